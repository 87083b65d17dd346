"""Move generation: every legal explicit move of a position, in a fixed order.

It reads the predicates of :mod:`.rules` (what each pile gives, what each pile takes),
turned around for speed: the cards each pile takes are collected once from the pile
tops, then each card that may move is one dictionary lookup. The order (tableau piles
left to right, each top card before its longer runs; then the waste, the reserve, the
foundations; then draw or redeal) is part of the contract: the native core of the
solver lists moves in the same order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .moves import (
    DRAW_MOVE,
    F_PILES,
    MOVE,
    REDEAL_MOVE,
    RESERVE_PILE,
    T_PILES,
    WASTE_PILE,
    Move,
    Pile,
)
from .rules import (
    can_draw,
    can_redeal,
    empty_tableau_open,
    foundation_wants,
    may_go_to_foundation,
    movable,
)

if TYPE_CHECKING:
    from .state import State


def legal_moves(state: State) -> list[Move]:
    """Every legal explicit move, and nothing else (draw and redeal included)."""
    if state.is_won:
        return []  # the game is over: apply refuses every move (game_over)
    tableau = state.tableau
    # tableau_takes, turned around: which tableau piles take which card.
    accepts = state.variant.accepted_by  # from stack_ok, the table tableau_takes reads
    wanted: dict[int, list[int]] = {}
    empties: list[int] = []
    for j, pile in enumerate(tableau):
        if pile:
            for card in accepts[pile[-1]]:
                wanted.setdefault(card, []).append(j)
        else:
            empties.append(j)
    if not empty_tableau_open(state):
        empties = []
    # foundation_takes, turned around.
    to_found: dict[int, list[int]] = {}
    for f in range(len(state.foundations)):
        for card in foundation_wants(state, f):
            to_found.setdefault(card, []).append(f)
    moves: list[Move] = []
    append = moves.append

    def add(src: Pile, card: int, count: int, skip: int) -> None:
        if may_go_to_foundation(src, count):
            for f in to_found.get(card, ()):
                append(Move(MOVE, src, F_PILES[f], 1))
        for j in wanted.get(card, ()):
            if j != skip:
                append(Move(MOVE, src, T_PILES[j], count))
        for j in empties:
            if j != skip:
                append(Move(MOVE, src, T_PILES[j], count))

    for i, pile in enumerate(tableau):
        if pile:
            src = T_PILES[i]
            for count in range(1, movable(state, src) + 1):
                add(src, pile[-count], count, i)
    for src, cards in ((WASTE_PILE, state.waste), (RESERVE_PILE, state.reserve)):
        if cards and movable(state, src):
            add(src, cards[-1], 1, -1)
    for f, fpile in enumerate(state.foundations):
        if fpile and movable(state, F_PILES[f]):
            add(F_PILES[f], fpile[-1], 1, -1)
    if can_draw(state):
        append(DRAW_MOVE)
    elif can_redeal(state):
        append(REDEAL_MOVE)
    return moves
