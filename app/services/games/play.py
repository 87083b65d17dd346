"""Playing a line of moves on a locked game's position, in memory: each command resolved
and applied by the engine, with the log row and the events of each move. Nothing here
reads or writes the database; the service saves what `play_line` returns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine import EngineError, Move, Pile, State, resolve_click
from app.errors import AutoPlayOff, from_engine
from app.models import Game

DEFAULT_SETTINGS = {"auto_play": True, "auto_finish": True}

# A game in these statuses is over for good: it takes no move and no undo (409
# game_over). `resigned` is the game row's status only: the engine's position is left as
# it was (its own status says `playing` or `stuck`).
FINISHED = frozenset({"won", "resigned"})
# A game in these is over as far as its result goes (what an analysis may tell); a stuck
# one still takes its draws and an undo.
OVER = frozenset({"won", "stuck", "resigned"})


@dataclass(frozen=True)
class Click:
    """A click on a card (`index` from the bottom, None: the top card), resolved to a move
    against the game's position when it is played (`resolve_click`)."""

    pile: Pile
    index: int | None = None


# A move as the router hands it over: an engine move, or a click to resolve.
Command = Move | Click


class PositionChanged(Exception):
    """The game is no longer at the position a line of moves was found for."""


@dataclass
class Line:
    """The moves of one write, played from `start`: the position after them (`state`, its
    bytes `data`), their log rows in order, each move with its own events (`steps`, for
    finish's answer) and all their events at once."""

    start: State
    state: State
    data: bytes
    rows: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


def play_line(
    game: Game,
    start: State,
    commands: Sequence[Command],
    *,
    auto_finish_at: Callable[[int], bool] | None = None,
) -> Line:
    """Play the commands in order from the game's position `start`, each validated by the
    engine; once auto-finish wins the game along the line, the remaining ones are skipped.
    An illegal move raises its API error (nothing is saved then). Each move is played
    with the auto-finish as the game's setting says, or as `auto_finish_at(index)` says
    (a record played again: `Record.auto_finish_at`)."""
    line = Line(start=start, state=start, data=game.state)
    setting = bool(game.settings.get("auto_finish", True))
    for index, command in enumerate(commands):
        if line.state.is_won and line.events:
            break
        move = _resolve(line.state, command, game.settings)
        finish = setting if auto_finish_at is None else auto_finish_at(index)
        state, row, events = _play_one(game, line.state, line.data, move, len(line.rows), finish)
        line.state, line.data = state, state.to_bytes()
        line.rows.append(row)
        line.steps.append({"move": row["move"], "events": events})
        line.events += events
    return line


def _resolve(state: State, command: Command, settings: dict[str, Any]) -> Move:
    """The engine move a command makes in this position: a click is resolved to its
    target (refused while the game's `auto_play` is off)."""
    if isinstance(command, Move):
        return command
    if not settings.get("auto_play", True):
        raise AutoPlayOff()
    try:
        return resolve_click(state, command.pile, command.index)
    except EngineError as exc:
        raise from_engine(exc) from exc


def _play_one(
    game: Game, state: State, before: bytes, move: Move, played: int, auto_finish: bool
) -> tuple[State, dict[str, Any], list[dict[str, Any]]]:
    """Apply one engine move to a locked game's position (`before`: its bytes): the
    position after it, its log row's values (the `played`-th move of this write, so its
    version and number follow) and its events as answered. The log keeps the same events
    but a draw's cards: a redeal may turn them face down again, and the log is read
    later. `auto_finish`: whether the auto-finish may follow the move."""
    try:
        new_state, events = state.apply(move, auto_finish=auto_finish)
    except EngineError as exc:
        raise from_engine(exc) from exc
    answered = [e.to_json() for e in events]
    row = {
        "game_id": game.id,
        "seq": game.move_count + played + 1,
        "version": game.version + played + 1,
        "text": str(move),
        "move": move.to_json(),
        "events": [_logged(e) for e in answered],
        "state_before": before,
    }
    return new_state, row, answered


def _logged(event: dict[str, Any]) -> dict[str, Any]:
    if event["type"] == "move" and event["move"]["action"] == "draw":
        return {**event, "cards": None}
    return event


def undo_events(before: State, move_json: dict[str, Any], after: State) -> list[dict[str, Any]]:
    """Undo's events: the move taken back, then what changes back, newest first (cards
    turned face down again by pile and index only, never named)."""
    return [e.to_json() for e in before.undo_events(Move.from_json(move_json), after)]
