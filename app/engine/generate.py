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


class _Targets:
    """Where each card may go, from the pile tops (tableau_takes and foundation_takes
    turned around): each card that may move is then one dictionary lookup."""

    __slots__ = ("wanted", "empties", "to_found")

    def __init__(self, state: State) -> None:
        accepts = state.variant.accepted_by  # from stack_ok, the table tableau_takes reads
        self.wanted: dict[int, list[int]] = {}  # card -> tableau piles whose top takes it
        empties: list[int] = []
        for j, pile in enumerate(state.tableau):
            if pile:
                for card in accepts[pile[-1]]:
                    self.wanted.setdefault(card, []).append(j)
            else:
                empties.append(j)
        self.empties = empties if empty_tableau_open(state) else []
        self.to_found: dict[int, list[int]] = {}  # card -> foundations taking it
        for f in range(len(state.foundations)):
            for card in foundation_wants(state, f):
                self.to_found.setdefault(card, []).append(f)

    def add_moves(self, moves: list[Move], src: Pile, card: int, count: int, skip: int) -> None:
        """The moves of ``count`` cards from ``src``, ``card`` the lowest of them, onto a
        foundation, a tableau pile that takes it, or an empty pile (never ``skip``)."""
        if may_go_to_foundation(src, count):
            for f in self.to_found.get(card, ()):
                moves.append(Move(MOVE, src, F_PILES[f], 1))
        for j in self.wanted.get(card, ()):
            if j != skip:
                moves.append(Move(MOVE, src, T_PILES[j], count))
        for j in self.empties:
            if j != skip:
                moves.append(Move(MOVE, src, T_PILES[j], count))


def legal_moves(state: State) -> list[Move]:
    """Every legal explicit move, and nothing else (draw and redeal included)."""
    if state.is_won:
        return []  # the game is over: apply refuses every move (game_over)
    targets = _Targets(state)
    moves: list[Move] = []
    for i, pile in enumerate(state.tableau):
        if pile:
            src = T_PILES[i]
            for count in range(1, movable(state, src) + 1):
                targets.add_moves(moves, src, pile[-count], count, i)
    for src, cards in ((WASTE_PILE, state.waste), (RESERVE_PILE, state.reserve)):
        if cards and movable(state, src):
            targets.add_moves(moves, src, cards[-1], 1, -1)
    for f, fpile in enumerate(state.foundations):
        if fpile and movable(state, F_PILES[f]):
            targets.add_moves(moves, F_PILES[f], fpile[-1], 1, -1)
    if can_draw(state):
        moves.append(DRAW_MOVE)
    elif can_redeal(state):
        moves.append(REDEAL_MOVE)
    return moves
