"""The full search for games where any run moves as a whole: positions up to run arrangement.

In Rank and File (and Number Ten) a face-up card moves with every card above it, however
many, so the tableau is a set of chains and the search table drowns in the ways the same
chains can hang off equal parents (two suits of a colour, two decks). This module gives
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
tell apart (same rank and colour here); each card builds on at most one class (a King on
none) and takes at most one (an Ace none). A class member with nothing on it is a pile
top. Given the key, for every class we know how many members are in play (bases, roots,
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

**Normal form.** A root whose parent class has a top can go onto it, and back into the
pile it left: the two keys reach each other, so they are won or lost together.
:func:`normalize` makes that move wherever it can (each one takes a root away, so it
ends), and the search keys positions after it.

So the key's successors do not depend on the arrangement, nor does winning (all cards up);
by induction on the moves left, neither does whether a position can be won. A search that
tries each key's moves from any one arrangement, skipping keys already seen, is exhaustive
over keys, and its exhaustion is a proof.

Only where the argument holds (:func:`supports`): runs of any length move, no wrap (a
chain could reach its own top), and no reserve filling empty piles.
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
    return (
        variant.runs == "any"
        and not variant.build_wrap
        and not variant.reserve_fills_empty
        and _classes(variant) is not None
    )


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
# key, normalize and children. One search is one variant and one thread, so the pile
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


def normalize(state: State, line: list[Move], bases: Bases | None = None) -> State:
    """Put every root whose parent class has a top onto it, appending the moves to ``line``."""
    variant = state.variant
    ok = variant.stack_ok
    table = _bases(bases)
    get = table.get
    classes = None
    while True:
        tableau, hidden = state.tableau, state.hidden
        roots = []  # most positions have none: the class tables are not even needed
        for j, pile in enumerate(tableau):
            if pile and not hidden[j]:
                k = get(pile)
                if k is None:
                    k = table[pile] = run_start(pile, 0, ok)
                if not k:
                    roots.append(j)
        if not roots:
            return state
        if classes is None:
            classes = _classes(variant)
            assert classes is not None
        klass, parent = classes
        top_of: dict[int, int] = {}
        for j, pile in enumerate(tableau):
            if pile:
                top_of.setdefault(klass[pile[-1]], j)
        for j in roots:
            pile = tableau[j]
            target = top_of.get(parent[pile[0]], -1)
            if target >= 0:
                move = Move(MOVE, T_PILES[j], T_PILES[target], len(pile))
                state, _ = state.apply(move, auto_finish=False, validate=False)
                line.append(move)
                break
        else:
            return state


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
            _foundation_child(out, state, src, card, count, f, role != 2, tops)
        if role != 2:
            target = tops.top_of.get(tops.parent[card], -1)
            if target >= 0:
                # Base: turns up or uncovers what lies under it; root: frees its pile.
                score = TURN_UP + down if role == 0 else ROOT_TO_TOP
                out.append(Child(score, [], state, Move(MOVE, src, T_PILES[target], count)))
        if role != 1 and tops.empty >= 0:
            score = TURN_UP_TO_EMPTY + down if role == 0 else SPLIT_TO_EMPTY
            out.append(Child(score, [], state, Move(MOVE, src, T_PILES[tops.empty], count)))


def _foundation_child(
    out: list[Child],
    state: State,
    src: Pile,
    card: int,
    count: int,
    f: int,
    uncovers: bool,
    tops: _Tops,
) -> None:
    """``card`` (``count`` cards from the top of ``src``) to foundation ``f``: at once
    when it is the top card, else after the run on it goes to a class sibling (if any)."""
    score = FOUNDATION_UNCOVERS if uncovers else TO_FOUNDATION
    up = Move(MOVE, src, F_PILES[f], 1)
    if count == 1:
        out.append(Child(score, [], state, up))
        return
    sibling = tops.top_of.get(tops.klass[card])
    if sibling is not None:
        # The run on the card goes to a class sibling first (key unchanged).
        clear = Move(MOVE, src, T_PILES[sibling], count - 1)
        mid, _ = state.apply(clear, auto_finish=False, validate=False)
        out.append(Child(score + CLEARED_FIRST, [clear], mid, up))


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
