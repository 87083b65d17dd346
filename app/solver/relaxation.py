"""A dead-end test: the game played with the tableau relaxed to the cards it holds.

Where every tableau pile is always one run from its bottom card (Rainbow: one card dealt
face up to each pile, and every card put on the tableau goes onto a card it builds on or
into an empty pile), a tableau of ``p`` piles holds its cards in at most ``p`` runs. Count
the tableau's cards by *class* (the cards a build cannot tell apart: a rank in Rainbow)
and the runs they need: each run has one bottom card, and every other card lies on a card
of its parent class, which holds only that one. So a class with more cards than its
parent class has at least that many more bottoms, and (with any card at all) at least one
run is needed: :func:`fewest_runs`. A tableau needing more runs than there are piles
cannot occur.

The *relaxed game* forgets how the tableau is laid out and keeps only that count. Its
position is what is on the foundations (a count per suit), the stock and reserve lengths
and the waste; the tableau is every other card. Its moves: draw; the waste's or the
reserve's top card up, or onto the tableau; a tableau card the foundations want up; a
foundation's top back onto the tableau; each allowed when the foundations take the card
and the tableau left fits in the piles. Every move of the real game is one of these or
none (a move within the tableau changes nothing here; a refill from the reserve is the
reserve's top put on the tableau), each allowed because the real position after it
exists. So a line that wins the real game gives a line that wins the relaxed one, and
where the relaxed game cannot be won from a position's image, the position is lost.

:meth:`Relaxation.lost` searches the relaxed game from the position's image and answers
True only when no win is reachable; what one search's tests learn (relaxed positions
known lost, or open) it keeps, and a test that meets :data:`STATE_LIMIT` relaxed
positions gives up (not shown lost), so an answer may depend on the tests before it, but
never wrongly: every entry kept is a fact, or claims nothing. The native core keeps the
same sets the same way, so both answer alike. It is asked only where the stock holds at
most :data:`STOCK_LIMIT` cards: with more, the relaxed game is almost always won, and
the test is the costly part. ``docs/solver.md`` ("The relaxed tableau") has the argument
and the measurements; ``app/solver/native/relaxation.c`` mirrors this module.
"""

from __future__ import annotations

from functools import cache

from app.engine import SUIT, State, Variant
from app.solver import arrangements

# The most relaxed positions one test meets: beyond it the answer is "not shown lost".
STATE_LIMIT = 5_000
# Asked only where the stock holds at most this many cards (measured: docs/benchmarks.md).
STOCK_LIMIT = 4
# The relaxed positions one search keeps as known lost, and as open (a win reached from
# them, or a test that gave up there), before it starts each set afresh.
LOST_LIMIT = 1 << 20
OPEN_LIMIT = 1 << 18

RelaxedPosition = tuple[tuple[int, ...], int, int, tuple[int, ...]]


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
        self.totals = [0] * len(self.parent)
        for klass in self.klass:
            self.totals[klass] += 1


class Relaxation:
    """The test for one search: the variant's tables, and what its tests found so far
    (the search meets each relaxed position many times: every layout of one tableau,
    and each test reaches many that others reach too)."""

    def __init__(self, tables: RelaxedTables) -> None:
        self.tables = tables
        self.known_lost: set[RelaxedPosition] = set()  # no win reachable from them
        self.known_open: set[RelaxedPosition] = set()  # a win reachable, or a test gave up

    def lost(self, state: State) -> bool:
        """Is ``state`` shown lost by the relaxed game (see the module docstring)?"""
        if len(state.stock) > STOCK_LIMIT:
            return False
        start = _image(state)
        if start in self.known_lost:
            return True
        if start in self.known_open or _won(start):
            return False
        return self._search(state, start)

    def _search(self, state: State, start: RelaxedPosition) -> bool:
        """Is no win reachable from ``start``? Depth first (a win, where there is one, is
        found sooner), never into a position known lost; a win, or a position known open,
        makes every position on the way to it open. Past :data:`STATE_LIMIT` positions it
        gives up: not shown lost."""
        order = [start]  # the relaxed positions met, and where each was reached from
        came_from = [-1]
        seen = {start}
        todo = [0]
        while todo:
            at = todo.pop()
            for after in self._following(state, order[at]):
                if _won(after) or after in self.known_open:
                    while at >= 0:
                        _keep(self.known_open, order[at], OPEN_LIMIT)
                        at = came_from[at]
                    return False
                if after in self.known_lost or after in seen:
                    continue
                if len(seen) >= STATE_LIMIT:
                    _keep(self.known_open, start, OPEN_LIMIT)
                    return False
                seen.add(after)
                order.append(after)
                came_from.append(at)
                todo.append(len(order) - 1)
        for relaxed in order:  # everything reached from a lost position is lost
            _keep(self.known_lost, relaxed, LOST_LIMIT)
        return True

    def _following(self, state: State, relaxed: RelaxedPosition) -> list[RelaxedPosition]:
        """The relaxed positions one move from ``relaxed`` (``state``'s stock and reserve
        are the search's), those putting a card up last: the search tries them first."""
        up, stock_left, reserve_left, waste = relaxed
        tables = self.tables
        klass, parent, piles = tables.klass, tables.parent, tables.piles
        first = state.first_rank - 1

        def card_of(suit: int, offset: int) -> int:
            return suit * 13 + (first + offset) % 13

        out = {card_of(suit, offset) for suit, count in enumerate(up) for offset in range(count)}
        out.update(waste, state.stock[:stock_left], state.reserve[:reserve_left])
        counts = tables.totals.copy()
        for card in out:
            counts[klass[card]] -= 1

        def fits(card: int, change: int) -> bool:
            counts[klass[card]] += change
            runs = fewest_runs(counts, parent)
            counts[klass[card]] -= change
            return runs <= piles

        def raised(suit: int, change: int, relaxed: RelaxedPosition) -> RelaxedPosition:
            counts = tuple(c + change if s == suit else c for s, c in enumerate(relaxed[0]))
            return (counts, *relaxed[1:])  # type: ignore[return-value]

        following: list[RelaxedPosition] = []
        for suit, count in enumerate(up):  # a foundation's top back onto the tableau
            if count and fits(card_of(suit, count - 1), 1):
                following.append(raised(suit, -1, relaxed))
        tops: list[tuple[int, RelaxedPosition]] = []  # the waste's and the reserve's
        if waste:
            tops.append((waste[-1], (up, stock_left, reserve_left, waste[:-1])))
        if reserve_left:
            tops.append(
                (state.reserve[reserve_left - 1], (up, stock_left, reserve_left - 1, waste))
            )
        following.extend(rest for card, rest in tops if fits(card, 1))  # onto the tableau
        if stock_left:  # draw
            drawn = (*waste, state.stock[stock_left - 1])
            following.append((up, stock_left - 1, reserve_left, drawn))
        for suit, count in enumerate(up):  # a tableau card up
            if count < 13 and card_of(suit, count) not in out and fits(card_of(suit, count), -1):
                following.append(raised(suit, 1, relaxed))
        for card, rest in tops:  # the waste's or the reserve's top up
            suit = SUIT[card]
            if up[suit] < 13 and card_of(suit, up[suit]) == card:
                following.append(raised(suit, 1, rest))
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


def fewest_runs(counts: list[int], parent: list[int]) -> int:
    """The fewest runs that can hold ``counts`` cards of each class (see the module
    docstring): each class's cards beyond its parent class's are bottoms, and at least one."""
    bottoms = 0
    for klass, count in enumerate(counts):
        extra = count - counts[parent[klass]]
        if extra > 0:
            bottoms += extra
    return bottoms if bottoms or not any(counts) else 1


def _image(state: State) -> RelaxedPosition:
    up = [0, 0, 0, 0]
    for pile in state.foundations:
        if pile:
            up[SUIT[pile[0]]] = len(pile)
    return tuple(up), len(state.stock), len(state.reserve), state.waste


def applies(variant: Variant) -> bool:
    """Is every tableau pile always one run from its bottom card, with one deck whose
    classes each have one parent class, a stock drawn one card at a time in one pass?"""
    classes = arrangements._classes(variant)
    return (
        variant.decks == 1
        and variant.tableau_rounds == (True,)
        and variant.redeals == 0
        and variant.draw == 1
        and classes is not None
        and arrangements._one_cycle(classes)
    )


@cache
def tables_of(variant: Variant) -> RelaxedTables | None:
    """The variant's relaxed tables, or None where the relaxation does not apply."""
    return RelaxedTables(variant) if applies(variant) else None


# The native core keys a relaxed position exactly in one word (relaxation.c): the waste
# cards the search can meet (its root's waste and stock) a bit each, the stock and reserve
# lengths in 6 and 4 bits. Past those bounds neither core asks the test.
_SEQUENCE_MOST, _STOCK_MOST, _RESERVE_MOST = 38, 63, 15


def for_search(root: State) -> Relaxation | None:
    """A fresh test for one search from ``root``, or None where it does not apply."""
    tables = tables_of(root.variant)
    if (
        tables is None
        or len(root.waste) + len(root.stock) > _SEQUENCE_MOST
        or len(root.stock) > _STOCK_MOST
        or len(root.reserve) > _RESERVE_MOST
    ):
        return None
    return Relaxation(tables)
