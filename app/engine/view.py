"""The public view: what a player may see of a position, as values.

Face-down cards carry no identity and the stock no order. Besides the cards, each pile
says what a client needs to draw it: which cards may be picked up (``movable_from``),
what a click on each card (and on the pile) would play, and for a foundation its suit
once it has one and the rank it starts from. ``to_json()`` is the API's form.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from .cards import SUIT, SUITS, card_json
from .moves import FOUNDATION, STOCK, Move, Pile
from .play import clicks_from_legal
from .rules import movable

if TYPE_CHECKING:
    from .state import State

_FACE_DOWN: dict[str, Any] = {"face_up": False}
# Each card's public form, built once (a view writes every face-up card of the layout),
# and with no click, the form of most cards in a view. Shared: read, never changed.
_CARD_JSON = tuple(card_json(card) for card in range(52))
_CARD_JSON_NO_CLICK = tuple({**shown, "click": None} for shown in _CARD_JSON)


class CardView(NamedTuple):
    """A card as a player sees it: ``card`` is None when it is face down; ``click`` is
    what a click on it would play (None: nothing; always None face down)."""

    card: int | None
    click: Move | None = None

    def to_json(self) -> dict[str, Any]:
        if self.card is None:
            return _FACE_DOWN
        if self.click is None:
            return _CARD_JSON_NO_CLICK[self.card]
        return {**_CARD_JSON[self.card], "click": self.click.to_json()}


# The views of a card with no click, built once (values: shared safely).
_FACE_DOWN_VIEW = CardView(None)
_SHOWN = tuple(CardView(card) for card in range(52))


class PileView(NamedTuple):
    pile: Pile
    cards: tuple[CardView, ...]
    movable_from: int | None  # the lowest card that may be picked up with those above it
    click: Move | None  # what a click on the pile (its top card; the stock) plays
    suit: int | None = None  # foundations: the suit of their cards, once they have one
    base_rank: int | None = None  # foundations: the rank an empty one takes

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.pile),
            "kind": self.pile.kind,
            "cards": [c.to_json() for c in self.cards],
            "movable_from": self.movable_from,
            "click": None if self.click is None else self.click.to_json(),
        }
        if self.pile.kind == FOUNDATION:
            data["suit"] = None if self.suit is None else SUITS[self.suit]
            data["base_rank"] = self.base_rank
        return data


class PublicView(NamedTuple):
    piles: tuple[PileView, ...]
    redeals_left: int | None
    base_rank: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "piles": [p.to_json() for p in self.piles],
            "redeals_left": self.redeals_left,
            "base_rank": self.base_rank,
        }


def public_view(
    state: State, *, clicks: bool = True, legal: Iterable[Move] | None = None
) -> PublicView:
    """What a player may see. ``clicks=False`` (clicks are off for the game) leaves every
    ``click`` None. ``legal``: the state's legal moves, where the caller has them already
    (the service answers them too), so they are generated once."""
    won = state.is_won
    click = (
        clicks_from_legal(state, state.legal_moves() if legal is None else legal) if clicks else {}
    )
    piles = []
    for pile, cards, down in state.piles():
        shown = [_FACE_DOWN_VIEW] * down + [
            CardView(c, k) if (k := click.get((pile, i))) else _SHOWN[c]
            for i, c in enumerate(cards[down:], down)
        ]
        count = 0 if won else movable(state, pile)
        top_click = click.get((pile, -1 if pile.kind == STOCK else len(cards) - 1))
        suit = base = None
        if pile.kind == FOUNDATION:
            suit = SUIT[cards[0]] if cards else None
            base = state.first_rank
        piles.append(
            PileView(
                pile,
                tuple(shown),
                len(cards) - count if count else None,
                top_click,
                suit,
                base,
            )
        )
    return PublicView(tuple(piles), state.redeals_left, state.base_rank)
