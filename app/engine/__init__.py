"""The game engine: pure rules, no I/O. ``docs/rules.md`` is the authority it implements."""

from .cards import CODE, RANK, SUIT, SUITS, card_code, parse_card
from .deal import MAX_DEAL, deal, shuffled_deck
from .errors import CorruptState, EngineError, IllegalMove, InvalidDeal, InvalidMove, UnknownVariant
from .moves import DRAW_MOVE, REDEAL_MOVE, Event, Move, Pile
from .play import resolve_click
from .state import State
from .variants import VARIANTS, Rules, Variant, get_variant

__all__ = [
    "CODE",
    "DRAW_MOVE",
    "MAX_DEAL",
    "RANK",
    "REDEAL_MOVE",
    "SUIT",
    "SUITS",
    "VARIANTS",
    "CorruptState",
    "EngineError",
    "Event",
    "IllegalMove",
    "InvalidDeal",
    "InvalidMove",
    "Move",
    "Pile",
    "Rules",
    "State",
    "UnknownVariant",
    "Variant",
    "card_code",
    "deal",
    "get_variant",
    "parse_card",
    "resolve_click",
    "shuffled_deck",
]
