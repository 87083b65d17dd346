"""The rule predicates: what a pile gives and what a pile takes, written once.

Move generation (:mod:`.generate`) asks these predicates which moves exist;
validation (:mod:`.validate`) asks the same predicates whether one move exists and,
only when it does not, explains why. So a rule changes in one place, and the two can
disagree only in the wording of a refusal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .moves import FOUNDATION, RESERVE, STOCK, TABLEAU, WASTE, Pile

if TYPE_CHECKING:
    from .state import State

Cards = tuple[int, ...]


def run_start(pile: Cards, hidden: int, stack_ok: tuple[bool, ...]) -> int:
    """Where the top run of a non-empty ``pile`` starts: the index of its lowest card,
    going down from the top card while each card builds on the one under it
    (``stack_ok[under * 52 + card]``), never into the ``hidden`` face-down cards.

    The one run rule: :meth:`State.run_length`, move checking, the auto-finish and the
    solver all read it from here. Where runs move, ``len(pile) - run_start(...)`` cards
    may move together.
    """
    k = len(pile) - 1
    while k > hidden and stack_ok[pile[k - 1] * 52 + pile[k]]:
        k -= 1
    return k


# ------------------------------------------------------------------ what a pile gives
def run_length(state: State, index: int) -> int:
    """How many cards from the top of tableau pile ``index`` may move together."""
    pile = state.tableau[index]
    if not pile:
        return 0
    if state.variant.runs == "single":
        return 1
    return len(pile) - run_start(pile, state.hidden[index], state.variant.stack_ok)


def pile_cards(state: State, pile: Pile) -> Cards:
    """The cards of an existing pile, bottom first."""
    if pile.kind == TABLEAU:
        return state.tableau[pile.index]
    if pile.kind == FOUNDATION:
        return state.foundations[pile.index]
    if pile.kind == WASTE:
        return state.waste
    return state.reserve if pile.kind == RESERVE else state.stock


def pile_exists(state: State, pile: Pile) -> bool:
    if pile.kind == TABLEAU:
        size = len(state.tableau)
    elif pile.kind == FOUNDATION:
        size = len(state.foundations)
    elif pile.kind == RESERVE:
        size = 1 if state.variant.reserve_size else 0
    else:
        size = 1
    return 0 <= pile.index < size


def movable(state: State, src: Pile) -> int:
    """How many cards may leave the (existing) pile ``src`` together, at most: the top
    run of a tableau pile (its top card where only single cards move), the top card of
    the waste and the reserve, the top card of a foundation where cards return, and
    nothing from the stock (it is drawn)."""
    if src.kind == TABLEAU:
        return run_length(state, src.index)
    if src.kind == STOCK:
        return 0
    if src.kind == FOUNDATION and not state.variant.foundation_return:
        return 0
    return 1 if pile_cards(state, src) else 0


def may_go_to_foundation(src: Pile, count: int) -> bool:
    """One card at a time goes to a foundation, and never from a foundation."""
    return count == 1 and src.kind != FOUNDATION


# ------------------------------------------------------------------ what a pile takes
def foundation_wants(state: State, index: int) -> Cards:
    """The cards foundation ``index`` takes now: any card of the base rank when empty,
    else the next card of its suit, nothing once complete."""
    pile = state.foundations[index]
    if not pile:
        return state.variant.base_cards(state.first_rank)
    if len(pile) >= 13:
        return ()
    nxt = state.variant.found_next[pile[-1]]
    return (nxt,) if nxt >= 0 else ()


def foundation_takes(state: State, index: int, card: int) -> bool:
    return card in foundation_wants(state, index)


def empty_tableau_open(state: State) -> bool:
    """Does an empty tableau pile take a card of the player's choice? Not while a
    reserve that fills empty piles has cards."""
    return not (state.variant.reserve_fills_empty and state.reserve)


def tableau_takes(state: State, index: int, card: int) -> bool:
    """May ``card`` (the bottom of what moves) go on tableau pile ``index``?"""
    pile = state.tableau[index]
    if not pile:
        return empty_tableau_open(state)
    return state.variant.stack_ok[pile[-1] * 52 + card]


def may_take(state: State, dst: Pile, src: Pile, count: int, card: int) -> bool:
    """May the ``count`` cards from ``src`` whose bottom card is ``card`` go on ``dst``?"""
    if dst.kind == FOUNDATION:
        return may_go_to_foundation(src, count) and foundation_takes(state, dst.index, card)
    if dst.kind == TABLEAU:
        return tableau_takes(state, dst.index, card)
    return False  # nothing is put on the stock, the waste or the reserve


# ------------------------------------------------------------------------ the stock
def can_draw(state: State) -> bool:
    return bool(state.stock)


def can_redeal(state: State) -> bool:
    return (
        not state.stock
        and bool(state.waste)
        and (state.redeals_left is None or state.redeals_left > 0)
    )
