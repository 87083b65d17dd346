"""Playing a line of moves on a locked game's position, in memory: each command resolved
and applied by the engine, with the log row and the events of each move. Nothing here
reads or writes the database; the service saves what `play_line` returns."""

from __future__ import annotations

import json
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
    # The rows' JSON columns are text already (`serialise`).
    serialised: bool = False

    def serialise(self) -> None:
        """The rows' JSON columns as text, as the database keeps them: done where the
        line was played (the lane), not by the insert on the event loop."""
        self.rows = [
            {**row, "move": json.dumps(row["move"]), "events": json.dumps(row["events"])}
            for row in self.rows
        ]
        self.serialised = True


def play_line(
    game: Game | LineOwner,
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


def auto_finish_only_at(index: int | None) -> Callable[[int], bool] | None:
    """The auto-finish allowed with the `index`-th move only (-1: never); None: as the
    game's setting says."""
    if index is None:
        return None
    return lambda played: played == index


@dataclass(frozen=True)
class LineOwner:
    """What playing a line reads of its game, as a value another process can take."""

    id: str
    settings: dict[str, Any]
    state: bytes
    move_count: int
    version: int

    @classmethod
    def of(cls, game: Game) -> LineOwner:
        return cls(game.id, dict(game.settings), game.state, game.move_count, game.version)


@dataclass(frozen=True)
class PlayedLine:
    """A long line played in the lane, as it comes back: the position's bytes after it,
    its rows (JSON serialised for the insert), steps and events."""

    data: bytes
    rows: list[dict[str, Any]]
    steps: list[dict[str, Any]]
    events: list[dict[str, Any]]

    def line(self, start: State, state: State) -> Line:
        """The `Line` from `start` (the caller's position) to `state` (of `data`)."""
        return Line(start, state, self.data, self.rows, self.steps, self.events, serialised=True)


def play_long_line(
    owner: LineOwner, commands: Sequence[Command], auto_finish_index: int | None = None
) -> PlayedLine:
    """`play_line` from the owner's position, as the lane runs it: the rows serialised
    for the insert. `auto_finish_index`: the one move the auto-finish may follow (-1:
    none), instead of the game's setting."""
    start = State.from_bytes(owner.state)
    line = play_line(owner, start, commands, auto_finish_at=auto_finish_only_at(auto_finish_index))
    line.serialise()
    return PlayedLine(line.data, line.rows, line.steps, line.events)


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
    game: Game | LineOwner, state: State, before: bytes, move: Move, played: int, auto_finish: bool
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
