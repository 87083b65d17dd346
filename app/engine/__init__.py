"""The game engine: pure rules, no I/O. ``docs/rules.md`` is the authority it implements."""

from .cards import CODE, RANK, SUIT, SUITS, RankName, card_code, parse_card
from .deal import MAX_DEAL, deal, shuffled_deck
from .errors import (
    REASONS,
    CorruptState,
    EngineError,
    IllegalMove,
    InvalidDeal,
    InvalidMove,
    InvalidRecord,
    UnknownVariant,
)
from .moves import (
    DRAW_MOVE,
    EV_UNDO,
    F_PILES,
    REDEAL_MOVE,
    RESERVE_PILE,
    STOCK_PILE,
    T_PILES,
    WASTE_PILE,
    Event,
    Move,
    Pile,
)
from .play import resolve_click
from .record import RECORD_MAX_CHARS, RECORD_MAX_MOVES, Record
from .state import State, run_start
from .variants import VARIANTS, Rules, Variant, get_variant

__all__ = [
    "CODE",
    "DRAW_MOVE",
    "EV_UNDO",
    "F_PILES",
    "MAX_DEAL",
    "RANK",
    "RECORD_MAX_CHARS",
    "REASONS",
    "RECORD_MAX_MOVES",
    "REDEAL_MOVE",
    "RESERVE_PILE",
    "STOCK_PILE",
    "SUIT",
    "SUITS",
    "T_PILES",
    "VARIANTS",
    "WASTE_PILE",
    "CorruptState",
    "EngineError",
    "Event",
    "IllegalMove",
    "InvalidDeal",
    "InvalidMove",
    "InvalidRecord",
    "Move",
    "Pile",
    "RankName",
    "Record",
    "Rules",
    "State",
    "UnknownVariant",
    "Variant",
    "card_code",
    "deal",
    "get_variant",
    "parse_card",
    "resolve_click",
    "run_start",
    "shuffled_deck",
]
