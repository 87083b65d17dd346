"""Play helpers of docs/rules.md: the click (auto-finish and stuck detection live on State)."""

from __future__ import annotations

from .errors import IllegalMove, InvalidMove
from .moves import (
    DRAW_MOVE,
    F_PILES,
    FOUNDATION,
    MOVE,
    REDEAL_MOVE,
    STOCK,
    T_PILES,
    TABLEAU,
    Move,
    Pile,
)
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
    cards = _pile_cards(state, where)
    if not cards:
        raise IllegalMove("empty_pile", f"{where} is empty")
    top = len(cards) - 1
    if index is None:
        index = top
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= top:
        raise InvalidMove("bad_index", f"{where} has cards at indexes 0 to {top}")
    count = top - index + 1
    if where.kind != TABLEAU and count != 1:
        raise IllegalMove("not_playable", f"only the top card of the {where.kind} can be played")
    picked = state.pick(where, count)
    if isinstance(picked, IllegalMove):
        raise picked
    candidates: list[Move] = []
    if count == 1 and where.kind != FOUNDATION:
        candidates += [Move(MOVE, where, f, 1) for f in F_PILES[: len(state.foundations)]]
    targets = [t for t in T_PILES[: len(state.tableau)] if t != where]
    filled = [t for t in targets if state.tableau[t.index]]
    # Moving a whole pile to an empty pile changes nothing a player can see: skip it.
    whole_pile = where.kind == TABLEAU and index == 0
    empty = [] if whole_pile else [t for t in targets if not state.tableau[t.index]]
    candidates += [Move(MOVE, where, t, count) for t in filled + empty]
    for move in candidates:
        if state.is_legal(move):
            return move
    raise IllegalMove("no_target", f"no pile takes the card clicked on {where}")


def _pile_cards(state: State, pile: Pile) -> tuple[int, ...]:
    bad = state._no_such_pile(pile)
    if bad is not None:
        raise bad
    if pile.kind == TABLEAU:
        return state.tableau[pile.index]
    if pile.kind == FOUNDATION:
        return state.foundations[pile.index]
    return state.waste if pile.kind == "waste" else state.reserve
