"""Hints and finish: the solver behind the game service.

The search runs in a bounded :class:`SolverPool` (processes: a pure-Python search holds
the GIL and would stall the event loop). A saturated pool answers 429 ``solver_busy``
with ``Retry-After``. A winning line, once found, is kept per position, so a player who
follows the hints gets each next one without a new search. Finish plays the line
through ``games.apply_moves``, the one path every move takes.

Budgets and pool size come from the settings (``SOLVER_*``, ``HINT_*``, ``FINISH_*``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from fastapi import FastAPI

from app.config import Settings
from app.engine import Move, State
from app.errors import NoWinFound, SolverBusy, VersionConflict, retry_after
from app.models import Player
from app.schemas import FinishResult, Hint
from app.services import games
from app.services.games import Answer
from app.solver.plan import suggest
from app.solver.pool import SolverBusy as PoolBusy
from app.solver.pool import SolverPool
from app.solver.search import SolveResult

_LINES_KEPT = 50_000  # positions with a known winning rest (about 150 bytes each)
# Searches one finish may run when the game moves on while it searches.
_FINISH_SEARCHES = 2


def _settings(app: FastAPI) -> Settings:
    settings: Settings = app.state.settings
    return settings


class SolverService:
    """Per-app state: the pool and the winning lines already found."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.pool = SolverPool(
            workers=_settings(app).solver_workers,
            queue=_settings(app).solver_queue,
            kind=_settings(app).solver_kind,
            core=_settings(app).solver_core,
            table_size=_settings(app).solver_table_size,
        )
        # position bytes -> a winning line and where in it the position stands (one
        # tuple shared by every position along it: a copy of the rest per position cost
        # the square of the length, seconds for a finish line of 14,000 moves)
        self._lines: OrderedDict[bytes, tuple[tuple[Move, ...], int]] = OrderedDict()

    def known_line(self, position: bytes) -> tuple[Move, ...] | None:
        entry = self._lines.get(position)
        if entry is None:
            return None
        self._lines.move_to_end(position)
        line, at = entry
        return line[at:]

    def remember(self, state: State, moves: list[Move]) -> None:
        """Keep the rest of the line for every position along it."""
        line = tuple(moves)
        for i, move in enumerate(line):
            key = state.to_bytes()
            self._lines[key] = (line, i)
            self._lines.move_to_end(key)
            state, _ = state.apply(move, auto_finish=False, validate=False)
        while len(self._lines) > _LINES_KEPT:
            self._lines.popitem(last=False)

    async def search(self, state: State, positions: int, seconds: float) -> SolveResult:
        try:
            result = await self.pool.solve(
                state.to_bytes(), max_positions=positions, max_seconds=seconds
            )
        except PoolBusy as busy:
            raise SolverBusy(headers=retry_after(busy.retry_after)) from None
        if result.result == "solved":
            self.remember(state, result.moves)
        return result

    def close(self) -> None:
        self.pool.close()


def solver_service(app: FastAPI) -> SolverService:
    service: SolverService | None = getattr(app.state, "solver", None)
    if service is None:
        service = app.state.solver = SolverService(app)
    return service


async def _winning_line(
    app: FastAPI, state: State, positions: int, seconds: float
) -> tuple[tuple[Move, ...] | None, dict[str, Any]]:
    service = solver_service(app)
    known = service.known_line(state.to_bytes())
    if known is not None:
        return known, {"result": "solved", "positions": 0, "elapsed_ms": 0}
    if state.is_won:
        return (), {"result": "solved", "positions": 0, "elapsed_ms": 0}
    result = await service.search(state, positions, seconds)
    info = {"result": result.result, "positions": result.positions, "elapsed_ms": result.elapsed_ms}
    return (tuple(result.moves) if result.result == "solved" else None), info


async def _search_game(
    app: FastAPI, session: Any, player: Player, game_id: str, positions: int, seconds: float
) -> tuple[int, bool, State, tuple[Move, ...] | None, dict[str, Any]]:
    """The game's position as it is now and a winning line from it: (the version and
    whether the game was already assisted when read, the position, the line or None, the
    search's figures). The read is ended before the search (`games.load_position`), so no
    connection is held while it runs."""
    game, state = await games.load_position(session, player, game_id)
    version, already_assisted = game.version, game.assisted
    line, info = await _winning_line(app, state, positions, seconds)
    return version, already_assisted, state, line, info


async def hint(app: FastAPI, session: Any, player: Player, game_id: str) -> Hint:
    """The first move of a winning line from the game's position (or, with none found,
    a heuristic suggestion that ``result`` marks as such). Only the move is revealed.
    A hint that tells something (a move, or that the position is lost) marks the game
    assisted before it is answered: its win is then not ranked.

    The answer's `version` is the one the hinted move applies at: after the marking when
    the game is still at the position searched; the version searched when the game moved
    meanwhile (a move sent with it as `expected_version` then gets 409: ask again)."""
    settings = _settings(app)
    version, assisted, state, line, info = await _search_game(
        app, session, player, game_id, settings.hint_max_positions, settings.hint_max_seconds
    )
    if line:
        move: Move | None = line[0]
    else:
        move = None if state.is_won or info["result"] == "unsolvable" else suggest(state)
    if not assisted and (move is not None or info["result"] == "unsolvable"):
        game = await games.mark_assisted(session, player, game_id)
        assisted = game.assisted
        if game.state == state.to_bytes():
            version = game.version
    return Hint.model_validate(
        {"move": move.to_json() if move else None, "version": version, "assisted": assisted, **info}
    )


async def finish(app: FastAPI, session: Any, player: Player, game_id: str) -> Answer[FinishResult]:
    """Play a winning line to the end through the one move path; 409 ``no_win_found``.

    The game is read afresh after the search: a change made meanwhile (another client's
    move) is seen, and the line is played only from the position it was found for; from a
    moved position the search runs once more. A position proven lost marks the game
    assisted, as a hint saying so does: it tells the player something of hidden cards.
    The answer is the won state with ``events`` (all of them) and ``steps`` (each move of
    the line with its own events)."""
    for _attempt in range(_FINISH_SEARCHES):
        budget = _settings(app).finish_max_positions, _settings(app).finish_max_seconds
        _version, already_assisted, state, line, info = await _search_game(
            app, session, player, game_id, *budget
        )
        if line is None:
            if info["result"] == "unsolvable" and not already_assisted:
                await games.mark_assisted(session, player, game_id)
            raise NoWinFound(
                f"no winning line was found from this position (result: {info['result']}, "
                f"{info['positions']} positions searched)",
            )
        try:
            # Marked in the same transaction as the line's first move: not ranked.
            answer = await games.apply_moves(
                session, player, game_id, list(line), assisted=True, from_position=state
            )
        except games.PositionChanged:
            continue
        # `events` (all of them at once) stays; `steps` gives each move with its own
        # events, for a client to replay the finish one move at a time.
        body = FinishResult.model_validate(
            {**answer.body.model_dump(mode="json"), "steps": list(answer.steps)}
        )
        return Answer(body=body, game_id=answer.game_id, version=answer.version)
    raise VersionConflict("the game kept changing during the search; reload it")
