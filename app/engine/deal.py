"""Deals: ``(variant, number)`` gives PySolFC's layout for the same game number.

The shuffle is PySolFC's, from the ``pysol-cards`` package: numbers below 32000 use
the Microsoft-compatible ``LCRandom31`` (after the 52-card Microsoft rearrangement),
32000 and above the Mersenne Twister. ``pysol_cards.random.shuffle`` switches at
``<= 32000``, one number off from PySolFC, so the generator classes are called
directly. The top of the shuffled deck is the last element.
"""

from __future__ import annotations

from pysol_cards.cards import createCards, ms_rearrange
from pysol_cards.random import LCRandom31, MTRandom

from .cards import make_card
from .errors import InvalidDeal
from .state import State
from .variants import Rules, Variant

MS_DEALS_BELOW = 32000
MAX_DEAL = 10**20 - 1  # MTRandom's largest seed


def shuffled_deck(decks: int, number: int) -> list[int]:
    """The shuffled cards of deal ``number``, top of the deck last."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_DEAL:
        raise InvalidDeal(
            "invalid_deal", "a deal number is a whole number from 1 to {max}", max=MAX_DEAL
        )
    cards = createCards(decks)
    if number < MS_DEALS_BELOW:
        rng: LCRandom31 | MTRandom = LCRandom31(number)
        cards = ms_rearrange(cards)
    else:
        rng = MTRandom(number)
    rng.shuffle(cards)
    return [make_card(c.rank, c.suit) for c in cards]


def deal(variant: Variant, number: int, rules: Rules | None = None) -> State:
    """The opening position of deal ``number``, dealt in PySolFC's order for the game."""
    variant = variant.with_rules(rules)
    deck = shuffled_deck(variant.decks, number)
    foundations: list[tuple[int, ...]] = [() for _ in range(variant.foundation_count)]
    base_rank = None
    if variant.foundation_base == "first_card":
        base = deck.pop()
        base_rank = base % 13 + 1
        foundations[base // 13] = (base,)  # PySolFC lists foundations in suit order
    reserve = tuple(deck.pop() for _ in range(variant.reserve_size))
    piles: list[list[int]] = [[] for _ in range(variant.tableau_piles)]
    order = list(range(variant.tableau_piles))
    if variant.deal_right_to_left:
        order.reverse()
    for _round in variant.tableau_rounds:
        for i in order:
            piles[i].append(deck.pop())
    return State(
        variant=variant,
        tableau=tuple(tuple(p) for p in piles),
        hidden=(variant.hidden_rounds,) * variant.tableau_piles,
        foundations=tuple(foundations),
        stock=tuple(deck),
        waste=(),
        reserve=reserve,
        redeals_left=variant.redeals,
        base_rank=base_rank,
    )
