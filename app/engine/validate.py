"""Validation: is one move legal here, and if not, exactly why.

Each decision is a predicate of :mod:`.rules` (the ones move generation reads); the
code here only explains a refusal once the predicate said no, with a stable reason code
(:class:`IllegalMove.code`). Refusals are raised, never returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CODE, RANK, SUIT, RankName
from .errors import N_, IllegalMove
from .moves import (
    DRAW,
    F_PILES,
    FOUNDATION,
    MOVE,
    REDEAL,
    RESERVE,
    STOCK,
    TABLEAU,
    WASTE,
    Move,
    Pile,
)
from .rules import (
    can_draw,
    can_redeal,
    foundation_takes,
    may_go_to_foundation,
    movable,
    pile_cards,
    pile_exists,
    run_start,
    tableau_takes,
)

if TYPE_CHECKING:
    from .state import State


# Where a pile's kind is named, one whole sentence per kind (each its own template).
_NOT_A_TARGET = {
    STOCK: N_("nothing may be put on the stock"),
    WASTE: N_("nothing may be put on the waste"),
    RESERVE: N_("nothing may be put on the reserve"),
}
_ONE_CARD_FROM = {
    WASTE: N_("only one card moves from the waste"),
    RESERVE: N_("only one card moves from the reserve"),
    FOUNDATION: N_("only one card moves from the foundation"),
}


def check(state: State, move: Move) -> None:
    """Raise :class:`IllegalMove` saying why ``move`` is illegal here; return if legal."""
    if state.is_won:
        raise IllegalMove("game_over", "the game is won; no move is left to make")
    if move.action == DRAW:
        if not can_draw(state):
            raise IllegalMove("stock_empty", "the stock is empty")
        return
    if move.action == REDEAL:
        if not can_redeal(state):
            _refuse_redeal(state)
        return
    if move.action != MOVE or move.src is None or move.dst is None:
        raise IllegalMove("bad_move", "unknown action {action!r}", action=move.action)
    src, dst, count = move.src, move.dst, move.count
    check_pile(state, dst)
    if src == dst:
        raise IllegalMove("same_pile", "a move needs two different piles")
    card = pick(state, src, count)
    if dst.kind == FOUNDATION:
        _check_to_foundation(state, src, dst, count, card)
    else:
        _check_to_tableau(state, src, dst, card)


def _check_to_foundation(state: State, src: Pile, dst: Pile, count: int, card: int) -> None:
    if not may_go_to_foundation(src, count):
        if src.kind == FOUNDATION:
            raise IllegalMove(
                "foundation_return_not_allowed",
                "a foundation card may return only to a tableau pile",
            )
        raise IllegalMove("one_card_to_foundation", "only one card at a time goes to a foundation")
    if not foundation_takes(state, dst.index, card):
        _refuse_foundation(state, dst.index, card)


def _check_to_tableau(state: State, src: Pile, dst: Pile, card: int) -> None:
    if src.kind == FOUNDATION and dst.kind != TABLEAU:
        raise IllegalMove(
            "foundation_return_not_allowed", "a foundation card may return only to a tableau pile"
        )
    if dst.kind != TABLEAU:
        raise IllegalMove("not_a_target", _NOT_A_TARGET[dst.kind])
    if not tableau_takes(state, dst.index, card):
        target = state.tableau[dst.index]
        if not target:
            raise IllegalMove("reserve_fills_empty", "an empty pile is filled from the reserve")
        why = state.variant.stack_reason(target[-1], card)
        assert why is not None, "stack_ok and stack_reason disagree"
        code, template, params = why
        raise IllegalMove(code, template, **params)


def is_legal(state: State, move: Move) -> bool:
    try:
        check(state, move)
    except IllegalMove:
        return False
    return True


def check_pile(state: State, pile: Pile) -> None:
    if not pile_exists(state, pile):
        raise IllegalMove("no_such_pile", "this game has no pile {pile}", pile=str(pile))


def pick(state: State, src: Pile, count: int = 1) -> int:
    """The bottom card of the ``count`` cards that would leave ``src``; raises
    :class:`IllegalMove` saying why they may not."""
    check_pile(state, src)
    if count < 1:
        raise IllegalMove("bad_count", "count must be at least 1")
    cards = pile_cards(state, src)
    if 1 <= count <= movable(state, src) <= len(cards):
        return cards[-count]
    _refuse_pick(state, src, count, cards)
    raise AssertionError("unreachable")  # pragma: no cover


def _refuse_pick(state: State, src: Pile, count: int, cards: tuple[int, ...]) -> None:
    if src.kind == STOCK:
        raise IllegalMove("stock_not_playable", "cards leave the stock only by drawing")
    if src.kind != TABLEAU:
        if count != 1:
            raise IllegalMove("single_cards_only", _ONE_CARD_FROM[src.kind])
        if src.kind == FOUNDATION and not state.variant.foundation_return:
            raise IllegalMove(
                "foundation_return_not_allowed",
                "cards on the foundations never return to play in this game",
            )
        raise IllegalMove("empty_pile", "{pile} is empty", pile=str(src))
    if not cards:
        raise IllegalMove("empty_pile", "{pile} is empty", pile=str(src))
    if count > len(cards):
        raise IllegalMove(
            "bad_count", "{pile} holds only {count} card(s)", pile=str(src), count=len(cards)
        )
    hidden = state.hidden[src.index]
    if count > len(cards) - hidden:
        raise IllegalMove("card_face_down", "face-down cards cannot move")
    if state.variant.runs == "single":
        raise IllegalMove("single_cards_only", "only one card moves at a time in this game")
    assert run_start(cards, hidden, state.variant.stack_ok) > len(cards) - count
    raise IllegalMove(
        "run_not_in_sequence",
        "the cards from {card} up are not one ordered run",
        card=CODE[cards[-count]],
    )


def _refuse_redeal(state: State) -> None:
    if state.stock:
        raise IllegalMove("stock_not_empty", "redeal only once the stock is empty")
    if not state.waste:
        raise IllegalMove("waste_empty", "there is nothing in the waste to redeal")
    if state.variant.redeals == 0:
        raise IllegalMove("no_redeals_left", "this game allows no redeal")
    raise IllegalMove("no_redeals_left", "no redeals left")


def _refuse_foundation(state: State, index: int, card: int) -> None:
    pile = state.foundations[index]
    first = state.first_rank
    if not pile:
        template = (
            N_("an empty foundation takes only an {rank}")
            if first in (1, 8)
            else N_("an empty foundation takes only a {rank}")
        )
        raise IllegalMove("foundation_needs_base", template, rank=RankName(first))
    if len(pile) >= 13:
        raise IllegalMove("foundation_full", "{pile} is complete", pile=str(F_PILES[index]))
    top = pile[-1]
    if SUIT[top] != SUIT[card]:
        raise IllegalMove("wrong_suit", "foundations build up in suit")
    raise IllegalMove(
        "not_one_rank_higher",
        "{pile} needs the card one rank above its {rank}",
        pile=str(F_PILES[index]),
        rank=RankName(RANK[top]),
    )
