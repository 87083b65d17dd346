"""Games: load, apply through the engine, save, in one transaction.

By job: `create` (a new game), `reads` (its state, the list of games, the move log, the
record), `service` (the writes: moves, undo, resign, settings, the solver's marks),
`play` (a line of moves played in memory), `repository` (load and lock, versioned save,
the move log, the process's row and position caches), `writes` (the one wrapper of every
answered write: lock, stored answer, `expected_version`, `Idempotency-Key`),
`presenter` (the one serializer, and the moves endpoint's bytes); the live streams:
`changes`, `listen`, `watch`, `stream`. What the rest of the app uses is named here.
"""

from app.services.games.create import DailyPick, create_copy, create_game
from app.services.games.play import FINISHED, OVER, Click, Command, PositionChanged
from app.services.games.presenter import Answer, etag
from app.services.games.reads import (
    MOVES_PAGE_DEFAULT,
    MOVES_PAGE_MAX,
    game_version,
    get_game,
    get_record,
    list_games,
    list_moves,
    load_position,
)
from app.services.games.service import (
    apply_move,
    apply_moves,
    known_lost,
    mark_assisted,
    mark_lost,
    resign,
    undo,
    update_settings,
)

__all__ = [
    "FINISHED",
    "OVER",
    "MOVES_PAGE_DEFAULT",
    "MOVES_PAGE_MAX",
    "Answer",
    "Click",
    "Command",
    "DailyPick",
    "PositionChanged",
    "apply_move",
    "apply_moves",
    "create_copy",
    "create_game",
    "etag",
    "game_version",
    "get_game",
    "get_record",
    "known_lost",
    "list_games",
    "list_moves",
    "load_position",
    "mark_assisted",
    "mark_lost",
    "resign",
    "undo",
    "update_settings",
]
