"""A dead-end test: the game played with the tableau relaxed to its cards and bottoms.

Where every tableau pile is always one run from its bottom card (Rainbow: one card dealt
face up to each pile, and every card put on the tableau goes onto a card it builds on or
into an empty pile), count the tableau's cards by *class* (the cards a build cannot tell
apart: a rank in Rainbow), ``n``, and its piles' bottoms by class, ``B``. Every card of
class ``k`` is a bottom or lies on a card of its parent class, and a card has at most one
card on it, so of class ``j``'s cards those with a card on them are the child class's
cards but its bottoms, and the rest are tops: ``T(j) = n(j) - n(child(j)) + B(child(j))``.
A real tableau of ``p`` piles has ``T >= 0``, ``0 <= B <= n``, at most ``p`` bottoms,
and one at least where it holds a card.

The *relaxed game* forgets how the tableau is laid out (and the bottoms' suits) and keeps
those counts. Its position is what is on the foundations (a count per suit), the stock
and reserve lengths, the waste and ``B``; the tableau is every other card. Its moves:
draw; the waste's or the reserve's top card up, or onto the tableau (onto a top of its
parent class, or as a bottom into an empty pile); a tableau card the foundations want up
(where its class has a top; a bottom too, or not); a foundation's top back onto the
tableau; a whole pile onto a top (a bottom less) and a run into an empty pile (a bottom
more); each allowed when the tableau after it keeps the bounds. Every move of the real
game is one of these or none (a run onto another pile changes neither count; a refill
from the reserve is the reserve's top put into the empty pile), each allowed because the
real position after it exists. So a line that wins the real game gives a line that wins
the relaxed one, and where the relaxed game cannot be won from a position's image, the
position is lost.

:meth:`Relaxation.lost` searches the relaxed game from the position's image and answers
True only when no win is reachable; what one search's tests learn (relaxed positions
known lost, or open) it keeps, and a test that meets :data:`STATE_LIMIT` relaxed
positions gives up (not shown lost), so an answer may depend on the tests before it, but
never wrongly: every entry kept is a fact, or claims nothing. The native core keeps the
same sets the same way, so both answer alike. It is asked only where the stock holds at
most :data:`STOCK_LIMIT` cards (a search may ask fewer): with more, the relaxed game is
almost always won, and the test is the costly part. ``docs/solver.md`` ("The relaxed
tableau") has the argument and the measurements; ``app/solver/native/relaxation.c``
mirrors this module.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import cache

from app.engine import SUIT, State, Variant
from app.solver import arrangements

# The most relaxed positions one test meets: beyond it the answer is "not shown lost",
# and its start is kept as open, which stops every later test reaching it (measured:
# docs/benchmarks.md, twentieth session; 5,000 gave up where the bottoms grew the spaces).
STATE_LIMIT = 100_000
# A search may let its tests run further (``relaxed_states``, up to this): where its tests
# are asked at few stock cards, a test that may run to the end shows lost where one that
# gives up at STATE_LIMIT blunts every test above it (Rainbow deal 5, docs/benchmarks.md,
# twenty-fifth session). The native core allocates room for that many at once.
MOST_STATES = 1 << 26
# The beam's tests, which only drop positions and prove nothing, give up sooner: the
# passes test many positions a full search never meets, and a give-up at 100,000 costs
# about 20 times one at this (docs/benchmarks.md, twentieth session).
BEAM_STATE_LIMIT = 5_000
# Asked only where the stock holds at most this many cards (measured: docs/benchmarks.md,
# twenty-first session: 8 decides more than 4, hints and lost proofs). A search may ask
# it at fewer (``relaxed_stock``): the tests comparing the Python reference with the
# native core over whole Rainbow searches ask it at 4, where a Python test costs less.
STOCK_LIMIT = 8
# A test of a search with a deadline looks at the clock every this many relaxed positions
# and gives up once it has passed (not shown lost): one test of 100,000 relaxed positions
# took Rainbow's undecided hints 150 ms past their 0.4 s (twenty-second session).
CLOCK_EVERY = 1024
# The relaxed positions one search keeps as known lost, and a quarter as many as open (a
# win reached from them, or a test that gave up there), before it starts each set afresh.
# The native core keeps more where its transposition table is larger (a survey's): an
# eighth of the table's keys (relaxation.c, relaxation_lost_limit).
LOST_LIMIT = 1 << 20
OPEN_LIMIT = LOST_LIMIT // 4

# Foundation counts by suit, stock and reserve lengths, the waste, the bottoms' classes.
RelaxedPosition = tuple[tuple[int, ...], int, int, tuple[int, ...], tuple[int, ...]]


class RelaxedTables:
    """The relaxed game's tables for one variant: each card's class, each class's parent."""

    def __init__(self, variant: Variant) -> None:
        classes = arrangements._classes(variant)
        assert classes is not None
        self.klass, parent = classes
        self.parent = [0] * (max(self.klass) + 1)
        for card, klass in enumerate(self.klass):
            self.parent[klass] = parent[card]
        self.piles = variant.tableau_piles
        self.child = [0] * len(self.parent)  # the class whose parent each class is
        for klass, above in enumerate(self.parent):
            self.child[above] = klass
        self.totals = [0] * len(self.parent)
        for klass in self.klass:
            self.totals[klass] += 1


class Relaxation:
    """The test for one search: the variant's tables, and what its tests found so far
    (the search meets each relaxed position many times: every layout of one tableau,
    and each test reaches many that others reach too)."""

    def __init__(self, tables: RelaxedTables, state_limit: int, stock_limit: int) -> None:
        self.tables = tables
        self.state_limit = state_limit  # a test gives up at this many relaxed positions
        self.stock_limit = stock_limit  # asked only where the stock holds at most this many
        self.deadline: float | None = None  # a time.perf_counter() time: a test gives up past it
        self.known_lost: set[RelaxedPosition] = set()  # no win reachable from them
        self.known_open: set[RelaxedPosition] = set()  # a win reachable, or a test gave up

    def lost(self, state: State) -> bool:
        """Is ``state`` shown lost by the relaxed game (see the module docstring)?"""
        if len(state.stock) > self.stock_limit:
            return False
        start = _image(state, self.tables.klass)
        if start in self.known_lost:
            return True
        if start in self.known_open or _won(start):
            return False
        return self._search(state, start)

    def _search(self, state: State, start: RelaxedPosition) -> bool:
        """Is no win reachable from ``start``? Depth first (a win, where there is one, is
        found sooner), never into a position known lost; a win, or a position known open,
        makes every position on the way to it open. Past ``state_limit`` positions, or
        past the deadline (looked at every :data:`CLOCK_EVERY`), it gives up: not shown
        lost."""
        order = [start]  # the relaxed positions met, and where each was reached from
        came_from = [-1]
        seen = {start}
        todo = [0]
        while todo:
            at = todo.pop()
            for after in self._following(state, order[at]):
                # Met already: it was neither won, open nor lost then, and the two sets
                # change only once the test ends. Asked first, as the native test does
                # (where this set is small and the others large): most are.
                if after in seen:
                    continue
                if _won(after) or after in self.known_open:
                    while at >= 0:
                        _keep(self.known_open, order[at], OPEN_LIMIT)
                        at = came_from[at]
                    return False
                if after in self.known_lost:
                    continue
                if len(seen) >= self.state_limit or self._past_deadline(len(order)):
                    _keep(self.known_open, start, OPEN_LIMIT)
                    return False
                seen.add(after)
                order.append(after)
                came_from.append(at)
                todo.append(len(order) - 1)
        for relaxed in order:  # everything reached from a lost position is lost
            _keep(self.known_lost, relaxed, LOST_LIMIT)
        return True

    def _past_deadline(self, met: int) -> bool:
        return (
            self.deadline is not None
            and met % CLOCK_EVERY == 0
            and time.perf_counter() > self.deadline
        )

    def _following(self, state: State, relaxed: RelaxedPosition) -> list[RelaxedPosition]:
        """The relaxed positions one move from ``relaxed`` (``state``'s stock and reserve
        are the search's), those putting a card up last: the search tries them first."""
        up, stock_left, reserve_left, waste, bottoms = relaxed
        tables = self.tables
        klass, parent, child, piles = tables.klass, tables.parent, tables.child, tables.piles
        first = state.first_rank - 1

        def card_of(suit: int, offset: int) -> int:
            return suit * 13 + (first + offset) % 13

        out = {card_of(suit, offset) for suit, count in enumerate(up) for offset in range(count)}
        out.update(waste, state.stock[:stock_left], state.reserve[:reserve_left])
        counts = tables.totals.copy()
        for card in out:
            counts[klass[card]] -= 1
        below = [0] * len(parent)  # the bottoms by class
        for bottom in bottoms:
            below[bottom] += 1
        # A pile is empty, and (once the reserve is empty, which refills every empty pile
        # at once) may take any card or run.
        empty = len(bottoms) < piles
        takes_any = empty and not reserve_left

        def tops_of(klass: int) -> int:
            return tops(counts, below, child, klass)

        cards, bottom_count = sum(counts), len(bottoms)

        def fits(klass: int, change: int, bottom: int = 0) -> tuple[int, ...] | None:
            """The bottoms after ``change`` cards of ``klass`` (``bottom`` of them bottoms)
            join the tableau, or None where that tableau cannot be laid out (every
            relaxed position met keeps the bounds: the image of a real one does, and each
            move is checked here)."""
            counts[klass] += change
            below[klass] += bottom
            fit = still_keeps_bounds(
                counts, below, tables, klass, bottom_count + bottom, cards + change
            )
            counts[klass] -= change
            below[klass] -= bottom
            if not fit:
                return None
            if bottom > 0:
                return tuple(sorted((*bottoms, klass)))
            if bottom < 0:
                at = bottoms.index(klass)
                return bottoms[:at] + bottoms[at + 1 :]
            return bottoms

        def raised(suit: int, change: int) -> tuple[int, ...]:
            return tuple(c + change if s == suit else c for s, c in enumerate(up))

        following: list[RelaxedPosition] = []
        for k in range(len(counts)):  # within the tableau
            # A whole pile onto a top of its bottom's parent class.
            if below[k] and tops_of(parent[k]) and (after := fits(k, 0, -1)) is not None:
                following.append((up, stock_left, reserve_left, waste, after))
            # A run from a card not a bottom into an empty pile.
            if takes_any and counts[k] > below[k] and (after := fits(k, 0, 1)) is not None:
                following.append((up, stock_left, reserve_left, waste, after))

        def put(card: int, rest: RelaxedPosition, may_open: bool) -> None:
            """``card`` onto the tableau: onto a top, or into an empty pile."""
            for bottom in (0, 1) if may_open else (0,):
                after = fits(klass[card], 1, bottom)
                if after is not None:
                    following.append((*rest[:4], after))  # type: ignore[arg-type]

        for suit, count in enumerate(up):  # a foundation's top back onto the tableau
            if count:
                put(card_of(suit, count - 1), (raised(suit, -1), *relaxed[1:]), takes_any)
        tops_: list[tuple[int, RelaxedPosition, bool]] = []  # the waste's and the reserve's
        if waste:
            tops_.append(
                (waste[-1], (up, stock_left, reserve_left, waste[:-1], bottoms), takes_any)
            )
        if reserve_left:
            rest = (up, stock_left, reserve_left - 1, waste, bottoms)
            tops_.append((state.reserve[reserve_left - 1], rest, empty))
        for card, rest, may_open in tops_:  # onto the tableau
            put(card, rest, may_open)
        if stock_left:  # draw
            drawn = (*waste, state.stock[stock_left - 1])
            following.append((up, stock_left - 1, reserve_left, drawn, bottoms))
        for suit, count in enumerate(up):  # a tableau card up
            card = card_of(suit, count) if count < 13 else -1
            if card < 0 or card in out or not tops_of(klass[card]):
                continue
            for bottom in (0, -1):  # a card under it, or none
                after = fits(klass[card], -1, bottom)
                if after is not None:
                    following.append((raised(suit, 1), *relaxed[1:4], after))  # type: ignore[arg-type]
        for card, rest, _may_open in tops_:  # the waste's or the reserve's top up
            suit = SUIT[card]
            if up[suit] < 13 and card_of(suit, up[suit]) == card:
                following.append((raised(suit, 1), *rest[1:]))  # type: ignore[arg-type]
        return following


def _won(relaxed: RelaxedPosition) -> bool:
    return all(count == 13 for count in relaxed[0])


def _keep(known: set[RelaxedPosition], relaxed: RelaxedPosition, limit: int) -> None:
    """Add to a set of one search's, starting it afresh when it holds ``limit`` already
    (as the native core's tables do: the same answers, in bounded memory)."""
    if relaxed not in known:
        if len(known) >= limit:
            known.clear()
        known.add(relaxed)


def tops(counts: list[int], below: list[int], child: list[int], klass: int) -> int:
    """The tops of class ``klass``: its cards but those with a card on them (a card of
    the child class not a bottom)."""
    return counts[klass] - counts[child[klass]] + below[child[klass]]


def keeps_bounds(counts: list[int], below: list[int], tables: RelaxedTables) -> bool:
    """Can a tableau of ``counts`` cards and ``below`` bottoms of each class be laid out
    in the variant's piles (see the module docstring)?"""
    child, bottoms = tables.child, sum(below)
    return (
        bottoms <= tables.piles
        and (bottoms > 0 or not any(counts))
        and all(
            0 <= below[k] <= counts[k] and tops(counts, below, child, k) >= 0
            for k in range(len(counts))
        )
    )


def still_keeps_bounds(
    counts: list[int],
    below: list[int],
    tables: RelaxedTables,
    klass: int,
    bottoms: int,
    cards: int,
) -> bool:
    """:func:`keeps_bounds` of a tableau that kept them until class ``klass``'s cards or
    bottoms changed (``counts`` and ``below`` are after the change, ``bottoms`` and
    ``cards`` its totals after). A change of class k's cards or bottoms moves no bound but
    k's own and the tops of k and of its parent class (whose child class is k: the
    classes form one cycle, :func:`applies`), so only those are looked at, as in the
    native core (``relaxation.c``, ``fits``); a test compares it with the whole check."""
    child, parent = tables.child, tables.parent
    return (
        0 <= below[klass] <= counts[klass]
        and tops(counts, below, child, klass) >= 0
        and tops(counts, below, child, parent[klass]) >= 0
        and bottoms <= tables.piles
        and (bottoms > 0 or cards == 0)
    )


def _image(state: State, klass: Sequence[int]) -> RelaxedPosition:
    """The relaxed position of ``state`` (its piles' bottom classes sorted)."""
    up = [0, 0, 0, 0]
    for pile in state.foundations:
        if pile:
            up[SUIT[pile[0]]] = len(pile)
    bottoms = tuple(sorted(klass[pile[0]] for pile in state.tableau if pile))
    return tuple(up), len(state.stock), len(state.reserve), state.waste, bottoms


# The native core codes the bottoms in 32 bits, a base-5 digit a class (relaxation.c).
_BOTTOMS_MOST_PILES, _BOTTOMS_MOST_CLASSES = 4, 13


def applies(variant: Variant) -> bool:
    """Is every tableau pile always one run from its bottom card, with one deck whose
    classes each have one parent class, a stock drawn one card at a time in one pass, and
    bottoms the native core can code (at most 4 piles, 13 classes)?"""
    classes = arrangements._classes(variant)
    return (
        variant.decks == 1
        and variant.tableau_rounds == (True,)
        and variant.redeals == 0
        and variant.draw == 1
        and classes is not None
        and arrangements._one_cycle(classes)
        and variant.tableau_piles <= _BOTTOMS_MOST_PILES
        and max(classes[0]) < _BOTTOMS_MOST_CLASSES
    )


@cache
def tables_of(variant: Variant) -> RelaxedTables | None:
    """The variant's relaxed tables, or None where the relaxation does not apply."""
    return RelaxedTables(variant) if applies(variant) else None


# The native core keys a relaxed position exactly in one word and the bottoms' code
# (relaxation.c): the waste cards the search can meet (its root's waste and stock) a bit
# each, the stock and reserve lengths in 6 and 4 bits. Past those bounds neither core
# asks the test.
_SEQUENCE_MOST, _STOCK_MOST, _RESERVE_MOST = 38, 63, 15


def for_search(
    root: State, state_limit: int | None = None, stock_limit: int = STOCK_LIMIT
) -> Relaxation | None:
    """A fresh test for one search from ``root``, or None where it does not apply; its
    tests give up at ``state_limit`` relaxed positions (default :data:`STATE_LIMIT`) and
    are asked where the stock holds at most ``stock_limit`` cards."""
    tables = tables_of(root.variant)
    if (
        tables is None
        or len(root.waste) + len(root.stock) > _SEQUENCE_MOST
        or len(root.stock) > _STOCK_MOST
        or len(root.reserve) > _RESERVE_MOST
    ):
        return None
    if stock_limit < 0:
        raise ValueError("stock_limit must be at least 0")
    if state_limit is not None and not 1 <= state_limit <= MOST_STATES:
        raise ValueError(f"state_limit must be 1 to {MOST_STATES}")
    return Relaxation(tables, STATE_LIMIT if state_limit is None else state_limit, stock_limit)
