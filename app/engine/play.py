"""Play helpers of docs/rules.md: the click (auto-finish and stuck detection live on State).

:func:`resolve_click` is the move one click makes (or why none); :func:`click_moves`
is the same for every card at once (a client highlights what a click would do before
the click). Both read one list of candidates, in one order. The public view uses
:func:`clicks_from_legal`, the same answers read in one pass from the legal moves it
lists anyway (tests/engine/test_fast_paths.py holds it to the other two).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import N_, IllegalMove, InvalidMove
from .moves import (
    DRAW_MOVE,
    F_PILES,
    FOUNDATION,
    MOVE,
    REDEAL_MOVE,
    RESERVE,
    STOCK,
    T_PILES,
    TABLEAU,
    WASTE,
    Move,
    Pile,
)
from .rules import movable, pile_cards
from .validate import check_pile, pick

_TOP_ONLY = {
    WASTE: N_("only the top card of the waste can be played"),
    RESERVE: N_("only the top card of the reserve can be played"),
    FOUNDATION: N_("only the top card of the foundation can be played"),
}

if TYPE_CHECKING:
    from collections.abc import Container, Iterable

    from .state import State


def resolve_click(state: State, pile: str | Pile, index: int | None = None) -> Move:
    """The move a click on a card makes: to a foundation that takes it, else to the first
    tableau pile (left to right) that takes it, else to an empty pile. A card clicked
    inside a tableau pile takes the cards above it along. ``index`` counts from the bottom
    of the pile (0-based); ``None`` means the top card. A click on the stock draws (or
    redeals once it is empty)."""
    where = Pile.parse(pile) if isinstance(pile, str) else pile
    if where.kind == STOCK:
        for move in (DRAW_MOVE, REDEAL_MOVE):
            if state.is_legal(move):
                return move
        raise IllegalMove("no_target", "the stock is empty and no redeal is left")
    check_pile(state, where)
    cards = pile_cards(state, where)
    if not cards:
        raise IllegalMove("empty_pile", "{pile} is empty", pile=str(where))
    top = len(cards) - 1
    if index is None:
        index = top
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= top:
        raise InvalidMove(
            "bad_index", "{pile} has cards at indexes 0 to {top}", pile=str(where), top=top
        )
    count = top - index + 1
    if where.kind != TABLEAU and count != 1:
        raise IllegalMove("not_playable", _TOP_ONLY[where.kind])
    pick(state, where, count)  # raises when these cards may not leave the pile
    for move in _candidates(state, where, index, count):
        if state.is_legal(move):
            return move
    raise IllegalMove("no_target", "no pile takes the card clicked on {pile}", pile=str(where))


def click_moves(state: State, legal: Container[Move] | None = None) -> dict[tuple[Pile, int], Move]:
    """What a click on each card would play: ``(pile, index) -> move`` for every card a
    click moves (the stock as ``(stock, -1)``: a click on it, empty or not). Exactly
    :func:`resolve_click`'s answers, read against the legal moves once."""
    if legal is None:
        legal = set(state.legal_moves())
    out: dict[tuple[Pile, int], Move] = {}
    for move in (DRAW_MOVE, REDEAL_MOVE):
        if move in legal:
            out[Pile(STOCK), -1] = move
            break
    for where, cards, _down in state.piles():
        if where.kind == STOCK or not cards:
            continue
        top = len(cards) - 1
        for count in range(1, movable(state, where) + 1):
            index = top - count + 1
            for move in _candidates(state, where, index, count):
                if move in legal:
                    out[where, index] = move
                    break
    return out


def clicks_from_legal(state: State, legal: Iterable[Move]) -> dict[tuple[Pile, int], Move]:
    """:func:`click_moves`' answers, read in one pass from ``legal``, which must be all of
    the state's legal moves (``legal_moves()``): for each card, the first of its
    candidates (foundations, then filled tableau piles left to right, then empty ones;
    never a whole pile to an empty pile) is the legal move from it of the least rank
    (0 foundation, 1 filled tableau pile, 2 empty one), then of the least pile index."""
    out: dict[tuple[Pile, int], Move] = {}
    ranks: dict[tuple[Pile, int], tuple[int, int]] = {}
    tableau = state.tableau
    stock: Move | None = None
    for move in legal:
        src, dst = move.src, move.dst
        if src is None or dst is None:  # draw or redeal: a click on the stock
            if stock is None or move == DRAW_MOVE:
                stock = move
            continue
        if src.kind == TABLEAU:
            index = len(tableau[src.index]) - move.count
        else:  # one card: the top of the waste, the reserve or a foundation
            index = len(pile_cards(state, src)) - 1
        if dst.kind == FOUNDATION:
            rank = (0, dst.index)
        elif tableau[dst.index]:
            rank = (1, dst.index)
        elif src.kind == TABLEAU and index == 0:
            continue  # a whole pile to an empty pile: no click plays it
        else:
            rank = (2, dst.index)
        key = (src, index)
        best = ranks.get(key)
        if best is None or rank < best:
            ranks[key] = rank
            out[key] = move
    if stock is not None:
        out[Pile(STOCK), -1] = stock
    return out


def _candidates(state: State, where: Pile, index: int, count: int) -> list[Move]:
    """The moves a click tries, in order: foundations, filled tableau piles left to
    right, then empty ones (never a whole pile to an empty pile: that changes nothing a
    player can see)."""
    candidates: list[Move] = []
    if count == 1 and where.kind != FOUNDATION:
        candidates += [Move(MOVE, where, f, 1) for f in F_PILES[: len(state.foundations)]]
    targets = [t for t in T_PILES[: len(state.tableau)] if t != where]
    filled = [t for t in targets if state.tableau[t.index]]
    whole_pile = where.kind == TABLEAU and index == 0
    empty = [] if whole_pile else [t for t in targets if not state.tableau[t.index]]
    candidates += [Move(MOVE, where, t, count) for t in filled + empty]
    return candidates
