"""The full search for games where any run moves as a whole: positions up to run arrangement.

In Rank and File (and Number Ten, Rainbow, Canfield) a face-up card moves with every card
above it, however many, so the tableau is a set of chains and the search table drowns in
the ways the same chains can hang off equal parents (two suits of a colour, two decks; in
Rainbow any card of the rank above). This module gives
the full search a coarser position key and the moves that go with it, and proves that
positions with the same key are won or lost together.

**Roles.** The *top run* of a pile is the longest run from its top card down (never into
the face-down cards). Its bottom card is the pile's *base* when something lies under it
(face-down cards, or face-up cards it does not build on: Number Ten deals two face-up
cards), else a *root* (the pile's bottom card). Every other top-run card is *attached*:
it lies on a card it builds on. Cards under a base cannot move until the base has gone;
they are kept exactly. The key is: the piles under their bases (with the bases), the
roots, the attached cards (as sorted multisets), the foundations, stock and waste.

**Why equal keys are won or lost alike.** A *class* is the cards a tableau build cannot
tell apart (same rank and colour in Rank and File, same rank in Rainbow); each card
builds on at most one class (without a wrap a King on none) and takes at most one (an
Ace none). A class member with nothing on it is a pile top. Given the key, for every class we know how many members are in play (bases, roots,
attached) and how many hold a card (one per attached card of the class it takes), so
how many are tops. Now take two positions with the same key and any move in one:

- a run from an attached card onto another top of its parent class leaves the key as it
  is: such moves are never needed and are not generated;
- every other move changes the key the same way in any position with that key, and can
  be made in each of them: a base or root card (with all above it) onto a top of its
  parent class, or into an empty pile; an attached card and all above it into an empty
  pile; a waste (or foundation) card onto a top or into an empty pile; a card to a
  foundation. The last needs the card on top: when something lies on it, that run first
  moves onto another top of the card's class, which exists in every such position
  exactly when it exists in one (the counts above), and which leaves the key alone.

So the key's successors do not depend on the arrangement, nor does winning (all cards up);
by induction on the moves left, neither does whether a position can be won. A search that
tries each key's moves from any one arrangement, skipping keys already seen, is exhaustive
over keys, and its exhaustion is a proof. (Safe foundation moves, played after each
child, are played alike from every arrangement: a safe card has nothing left that could
lie on it, so it is a top in each.)

**With a wrap** (Rainbow, Canfield: a King builds on an Ace) a run can reach a card of its
own bottom card's parent class, and then a top that the counts say exists can be the
moving run's own. Where the variant has one deck and its classes form one cycle under
"builds on" (13 ranks; 26 ranks and colours), every such case still reaches the same
key, with moves that leave the key alone first (:meth:`_Tops.split`):

- a root (or base) whose only parent-class top is its own run's: that run holds every
  class, so another pile's top is of the class of some card in it below the top; the
  run from the card above that one goes onto it (key unchanged), taking the parent-class
  top along, and the root's run follows onto it;
- a card to a foundation whose only class sibling on top is its own run's: the same
  split takes that sibling to another pile, and the rest of the run on the card follows;
- if no other pile has cards (the reserve is then empty: it refills emptied piles), the
  run from the first sibling above the card goes to an empty pile, the rest of the run
  on the card onto it, the card goes up, and the empty pile's cards go back onto the
  card's parent, whose class is the sibling's parent class (a "rejoin").

Where the reserve refills an emptied pile (Rainbow, Canfield), a root moving off or going
up empties its pile alike in every arrangement, and the same reserve card fills it.
`tests/solver/test_arrangements.py` checks the argument itself: of two positions with one
key, the children of either reach the key after every move of the other.

**No normal form.** Until 2026-12-03 the search put every root whose parent class had a
top onto it (``normalize``): the root can go back into the pile it left, so the two keys
reach each other and are won or lost together. But the search then meets only the
normal form, so its children must also give the other form's successors, and they do
not: the parent is covered, and moving it (to a foundation, say) now needs the root's run
cleared to a sibling, or into an empty pile, which only gives the other form back, put
away again. A late Canfield position that the plain search wins was answered ``unsolvable``,
and so was a Rank and File position on a line ``solve`` wins (deal 1001 after 165 moves:
a hint there said lost; ``test_a_position_on_a_winning_line_is_not_proven_lost``). No
survey had used it to prove a loss (Rank and File and Number Ten have no deal proven
lost), and its wins were all replayed.

Only where the argument holds (:func:`supports`): runs of any length move, and either no
wrap or the wrap's conditions above.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

from app.engine import DRAW_MOVE, REDEAL_MOVE, Move, State, Variant, run_start
from app.engine.moves import FOUNDATION, MOVE, RESERVE_PILE, TABLEAU, WASTE_PILE, Pile
from app.solver.moves import (
    CLEARED_FIRST,
    FOUNDATION_UNCOVERS,
    FROM_FOUNDATION,
    FROM_FOUNDATION_TO_EMPTY,
    FROM_WASTE,
    FROM_WASTE_TO_EMPTY,
    REDEAL_LAST,
    ROOT_TO_TOP,
    SPLIT_TO_EMPTY,
    TO_FOUNDATION,
    TURN_UP,
    TURN_UP_TO_EMPTY,
    Child,
)

T_PILES = tuple(Pile(TABLEAU, i) for i in range(16))
F_PILES = tuple(Pile(FOUNDATION, i) for i in range(16))


def supports(variant: Variant) -> bool:
    """Does the run-arrangement argument hold for ``variant``?"""
    classes = _classes(variant)
    return (
        variant.runs == "any"
        and classes is not None
        and (not variant.build_wrap or (variant.decks == 1 and _one_cycle(classes)))
    )


def _one_cycle(classes: tuple[tuple[int, ...], tuple[int, ...]]) -> bool:
    """Do the classes form one cycle under "builds on" (each has a parent, and following
    parents from any class meets every class)? What the wrap's argument needs."""
    klass, parent = classes
    parent_of = dict(zip(klass, parent, strict=True))
    if -1 in parent_of.values():
        return False
    seen, here = set(), klass[0]
    while here not in seen:
        seen.add(here)
        here = parent_of[here]
    return len(seen) == len(parent_of)


@cache
def _classes(variant: Variant) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(class of each card, class of the cards it builds on or -1), or None when some card
    builds on cards of more than one class (the argument needs exactly one)."""
    ok = variant.stack_ok
    signatures: dict[tuple[tuple[bool, ...], tuple[bool, ...]], int] = {}
    klass = tuple(
        signatures.setdefault(
            (
                tuple(ok[card * 52 + m] for m in range(52)),
                tuple(ok[p * 52 + card] for p in range(52)),
            ),
            len(signatures),
        )
        for card in range(52)
    )
    parent = []
    for card in range(52):
        parents = {klass[p] for p in range(52) if ok[p * 52 + card]}
        if len(parents) > 1:
            return None
        parent.append(parents.pop() if parents else -1)
    return klass, tuple(parent)


# The search asks for the same piles' run bases over and over (a move copies only the
# piles it touches): each search keeps a table ``pile -> run base with no card face down``
# (with face-down cards the base is the larger of that and their count) and hands it to
# key and children. One search is one variant and one thread, so the pile
# alone keys it; without a table (tests, one-off calls) each call starts a fresh one.
Bases = dict[tuple[int, ...], int]
_BASES_LIMIT = 1 << 18  # piles per table before it starts afresh (memory stays bounded)


def _bases(bases: Bases | None) -> Bases:
    if bases is None:
        return {}
    if len(bases) > _BASES_LIMIT:
        bases.clear()
    return bases


def _run_base(pile: tuple[int, ...], hidden: int, table: Bases, ok: tuple[bool, ...]) -> int:
    """:func:`app.engine.run_start` (the base index) through the table of :func:`_bases`."""
    k = table.get(pile)
    if k is None:
        k = table[pile] = run_start(pile, 0, ok)
    return k if k > hidden else hidden


def key(state: State, single_pass: bool, bases: Bases | None = None) -> int:
    """The position key up to run arrangement (see the module docstring)."""
    return hash(key_parts(state, single_pass, bases))


def key_parts(state: State, single_pass: bool, bases: Bases | None = None) -> tuple[Any, ...]:
    """What :func:`key` hashes (the native core's ``arranged_key`` is equal exactly when
    this is: ``app/solver/native/arrangements.c``)."""
    ok = state.variant.stack_ok
    table = _bases(bases)
    get = table.get
    under: list[tuple[tuple[int, ...], int]] = []
    roots: list[int] = []
    attached: list[int] = []
    for pile, hidden in zip(state.tableau, state.hidden, strict=True):
        if not pile:
            continue
        k = get(pile)  # _run_base, inlined: the key is computed for every child
        if k is None:
            k = table[pile] = run_start(pile, 0, ok)
        if k < hidden:
            k = hidden
        if k:
            under.append((pile[: k + 1], hidden))
        else:
            roots.append(pile[0])
        attached.extend(pile[k + 1 :])
    under.sort()
    roots.sort()
    attached.sort()
    found = tuple(sorted(f[-1] if f else -1 for f in state.foundations))
    stock = len(state.stock) if single_pass else state.stock
    return (
        tuple(under),
        tuple(roots),
        tuple(attached),
        found,
        stock,
        state.waste,
        state.reserve,
        state.redeals_left,
    )


def children(
    state: State, wanted: dict[int, int], draw_score: int, bases: Bases | None = None
) -> list[Child]:
    """One move (or a run to a class sibling, then the move) per key successor, best first.

    ``wanted`` maps each card the foundations take now to a foundation that takes it.
    """
    classes = _classes(state.variant)
    assert classes is not None
    tops = _Tops.of(state.tableau, classes)
    out: list[Child] = []
    table = _bases(bases)
    done: set[tuple[int, int]] = set()  # (card, role) already given its moves
    for j, pile in enumerate(state.tableau):
        if pile:
            _run_children(
                out,
                state,
                j,
                _run_base(pile, state.hidden[j], table, state.variant.stack_ok),
                wanted,
                tops,
                done,
            )
    for src, cards in ((WASTE_PILE, state.waste), (RESERVE_PILE, state.reserve)):
        if cards:
            _single_children(out, state, src, cards[-1], wanted, tops)
    if state.variant.foundation_return:
        _return_children(out, state, tops)
    if state.stock:
        out.append(Child(draw_score, [], state, DRAW_MOVE))
    elif state.waste and (state.redeals_left is None or state.redeals_left > 0):
        out.append(Child(REDEAL_LAST, [], state, REDEAL_MOVE))
    out.sort(key=lambda child: child[0])
    return out


class _Tops(NamedTuple):
    """What the arranged moves read of the tableau: each card's class and parent class,
    a pile whose top card is of each class, and the first empty pile (-1 none)."""

    klass: tuple[int, ...]
    parent: tuple[int, ...]
    top_of: dict[int, int]
    empty: int

    @classmethod
    def of(
        cls, tableau: tuple[tuple[int, ...], ...], classes: tuple[tuple[int, ...], tuple[int, ...]]
    ) -> _Tops:
        klass, parent = classes
        top_of: dict[int, int] = {}
        empty = -1
        for j, pile in enumerate(tableau):
            if pile:
                top_of.setdefault(klass[pile[-1]], j)
            elif empty < 0:
                empty = j
        return cls(klass, parent, top_of, empty)

    def elsewhere(self, klass: int, j: int, tableau: tuple[tuple[int, ...], ...]) -> int:
        """The first pile other than ``j`` whose top card is of class ``klass``, else -1.
        Only with a wrap can pile ``j``'s own top be of the class one of its cards needs."""
        target = self.top_of.get(klass, -1)
        if target != j:
            return target
        for i in range(j + 1, len(tableau)):
            pile = tableau[i]
            if pile and self.klass[pile[-1]] == klass:
                return i
        return -1

    def split(self, tableau: tuple[tuple[int, ...], ...], j: int, i: int) -> tuple[int, int]:
        """With a wrap, where pile ``j``'s own top is the only top of the class its card
        ``i`` needs: (p, k) for the move of the run from card ``k`` (> ``i``) onto pile
        ``p``'s top, which leaves the key alone and takes that top out of pile ``j``: the
        first other pile with cards, and the lowest ``k`` whose card below is of its top's
        class. (-1, -1) when no other pile has cards."""
        pile = tableau[j]
        for p, other in enumerate(tableau):
            if p != j and other:
                wanted = self.klass[other[-1]]
                # The run from card i to the top holds every class (one cycle), and
                # ``wanted`` is not the class the caller needs (that top is this one).
                return p, next(
                    k for k in range(i + 1, len(pile)) if self.klass[pile[k - 1]] == wanted
                )
        return -1, -1


def _run_children(
    out: list[Child],
    state: State,
    j: int,
    k: int,
    wanted: dict[int, int],
    tops: _Tops,
    done: set[tuple[int, int]],
) -> None:
    """The moves of the top run of pile ``j`` (its base at ``k``), card by card upwards."""
    pile, down = state.tableau[j], state.hidden[j]
    n = len(pile)
    src = T_PILES[j]
    for i in range(k, n):
        card = pile[i]
        count = n - i
        # Role: 0 base (something under it), 1 root, 2 attached. Equal cards in equal
        # roles give the same key successors (a base's pile is its own, so never equal).
        role = 0 if i == k and k else (1 if i == k else 2)
        if role:
            if (card, role) in done:
                continue
            done.add((card, role))
        f = wanted.get(card)
        if f is not None:
            # A base turns up what is under it; a root empties its pile.
            _foundation_child(out, state, j, i, f, role != 2, tops)
        if role != 2:
            # Base: turns up or uncovers what lies under it; root: frees its pile.
            score = TURN_UP + down if role == 0 else ROOT_TO_TOP
            parent = tops.parent[card]
            target = tops.elsewhere(parent, j, state.tableau)
            if target >= 0:
                out.append(Child(score, [], state, Move(MOVE, src, T_PILES[target], count)))
            elif parent >= 0 and tops.klass[pile[-1]] == parent:
                # A wrap: the only such top is this run's own. Another pile's top takes
                # the run from a card above first (key unchanged), then the card goes
                # onto the top that run carried there.
                p, above = tops.split(state.tableau, j, i)
                if p >= 0:
                    split = Move(MOVE, src, T_PILES[p], n - above)
                    mid, _ = state.apply(split, auto_finish=False, validate=False)
                    onto = Move(MOVE, src, T_PILES[p], above - i)
                    out.append(Child(score, [split], mid, onto))
        if role != 1 and tops.empty >= 0:
            score = TURN_UP_TO_EMPTY + down if role == 0 else SPLIT_TO_EMPTY
            out.append(Child(score, [], state, Move(MOVE, src, T_PILES[tops.empty], count)))


def _foundation_child(
    out: list[Child], state: State, j: int, i: int, f: int, uncovers: bool, tops: _Tops
) -> None:
    """Pile ``j``'s card ``i`` to foundation ``f``: at once when it is the top card, else
    after the run on it goes to a class sibling (key unchanged). With a wrap that
    sibling can be the run's own top, and the only one: see :meth:`_Tops.split`."""
    tableau = state.tableau
    pile = tableau[j]
    n, card, src = len(pile), pile[i], T_PILES[j]
    score = FOUNDATION_UNCOVERS if uncovers else TO_FOUNDATION
    up = Move(MOVE, src, F_PILES[f], 1)
    if i == n - 1:
        out.append(Child(score, [], state, up))
        return
    score += CLEARED_FIRST
    sibling = tops.elsewhere(tops.klass[card], j, tableau)
    if sibling >= 0:
        clear = Move(MOVE, src, T_PILES[sibling], n - i - 1)
        mid, _ = state.apply(clear, auto_finish=False, validate=False)
        out.append(Child(score, [clear], mid, up))
        return
    if tops.klass[pile[-1]] != tops.klass[card]:
        return  # no sibling anywhere: the card cannot be cleared
    p, k = tops.split(tableau, j, i)
    if p >= 0:
        # The run from card k onto pile p's top takes the sibling there; the rest of
        # the run on the card follows it.
        first = Move(MOVE, src, T_PILES[p], n - k)
        then = Move(MOVE, src, T_PILES[p], k - i - 1)
        mid, _ = state.apply(first, auto_finish=False, validate=False)
        mid, _ = mid.apply(then, auto_finish=False, validate=False)
        out.append(Child(score, [first, then], mid, up))
    elif i and tops.empty >= 0:
        # Every card in play is in this pile, on the card's parent (i > 0), and the
        # reserve is empty. The run from the first sibling above the card goes to an
        # empty pile, the rest of the run on the card onto it; the card goes up, and the
        # empty pile's cards go back onto its parent, which is of the sibling's parent
        # class: one pile again, the same cards attached.
        s = next(k for k in range(i + 1, n) if tops.klass[pile[k]] == tops.klass[card])
        empty = T_PILES[tops.empty]
        first = Move(MOVE, src, empty, n - s)
        then = Move(MOVE, src, empty, s - i - 1)
        mid = state
        for move in (first, then, up):
            mid, _ = mid.apply(move, auto_finish=False, validate=False)
        out.append(Child(score, [first, then, up], mid, Move(MOVE, empty, src, n - i - 1)))


def _single_children(
    out: list[Child], state: State, src: Pile, card: int, wanted: dict[int, int], tops: _Tops
) -> None:
    """The moves of the waste's (or the reserve's) top ``card``."""
    f = wanted.get(card)
    if f is not None:
        out.append(Child(TO_FOUNDATION, [], state, Move(MOVE, src, F_PILES[f], 1)))
    target = tops.top_of.get(tops.parent[card], -1)
    if target >= 0:
        out.append(Child(FROM_WASTE, [], state, Move(MOVE, src, T_PILES[target], 1)))
    if tops.empty >= 0:
        out.append(Child(FROM_WASTE_TO_EMPTY, [], state, Move(MOVE, src, T_PILES[tops.empty], 1)))


def _return_children(out: list[Child], state: State, tops: _Tops) -> None:
    """Foundation tops back to the tableau: one per card (equal foundations alike)."""
    returned: set[int] = set()
    for f, cards in enumerate(state.foundations):
        if not cards or cards[-1] in returned:
            continue
        card = cards[-1]
        returned.add(card)
        target = tops.top_of.get(tops.parent[card], -1)
        if target >= 0:
            back = Move(MOVE, F_PILES[f], T_PILES[target], 1)
            out.append(Child(FROM_FOUNDATION, [], state, back))
        if tops.empty >= 0:
            back = Move(MOVE, F_PILES[f], T_PILES[tops.empty], 1)
            out.append(Child(FROM_FOUNDATION_TO_EMPTY, [], state, back))
