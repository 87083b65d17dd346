"""The use cases of a game once dealt (a new game: `create`): read, list, play, undo,
change its settings, and the solver's marks, each one unit of work. Every write that
answers a request goes through `write_game` (the game locked, a stored answer
replayed, `expected_version` checked, the answer stored under its `Idempotency-Key`)
and is saved by the repository's versioned `save`; every move goes through
`apply_moves`, whoever asks for it (the moves endpoint, a hint's finish, the daily
game), so there is one path to validate, log and version a move.

Requests arrive typed: a move is an engine `Move` or a `Click` (resolved against the
locked position). Answers leave typed: the response models of `app.schemas`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.engine import DRAW_MOVE, REDEAL_MOVE, Move, State
from app.errors import (
    GameAlreadyOver,
    NothingToUndo,
)
from app.i18n import N_
from app.models import Game, Player, utcnow
from app.schemas import (
    GameMoveResult,
    GameState,
    UndoResult,
)
from app.services.daily import ranking, revealed
from app.services.games import repository
from app.services.games.play import (
    DEFAULT_SETTINGS,
    FINISHED,
    Command,
    Line,
    LineOwner,
    PositionChanged,
    auto_finish_only_at,
    play_line,
    play_long_line,
    undo_events,
)
from app.services.games.presenter import (
    Answer,
    answer,
    move_answer,
    state_json,
    stored_game_state,
)
from app.services.games.repository import POSITIONS, save
from app.services.games.writes import write_game
from app.services.kit.idempotency import Idempotency
from app.services.kit.offload import LANE, LONG_LINE


async def update_settings(
    session: AsyncSession,
    player: Player,
    game_id: str,
    changes: dict[str, Any],
    expected_version: int | None,
) -> Answer[GameState]:
    async def change(game: Game) -> Answer[GameState]:
        await save(session, game, settings={**DEFAULT_SETTINGS, **game.settings, **changes})
        return answer(stored_game_state(game), game)

    return await write_game(
        session,
        player.id,  # read once: a rollback expires the ORM object
        game_id,
        change,
        expected_version=expected_version,
    )


async def played_line(
    game: Game, start: State, commands: Sequence[Command], *, auto_finish_index: int | None = None
) -> Line:
    """`play_line` from the game's position `start`: on the event loop for a short line
    (a move is tens of microseconds), in the lane for a long one (a finish's, a copy's:
    thousands of moves), its rows serialised there for the insert. `auto_finish_index`:
    as `play_long_line` takes it."""
    if len(commands) < LONG_LINE:
        at = auto_finish_only_at(auto_finish_index)
        return play_line(game, start, commands, auto_finish_at=at)
    owner = LineOwner.of(game)
    played = await LANE.run(play_long_line, owner, list(commands), auto_finish_index)
    return played.line(start, POSITIONS.load(played.data))


async def apply_moves(
    session: AsyncSession,
    player: Player,
    game_id: str,
    commands: Sequence[Command],
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
    assisted: bool = False,
    from_position: State | None = None,
) -> Answer[GameMoveResult]:
    """Apply moves in order, each validated by the engine and logged as its own move,
    in one transaction: all of them or none. The one path for every move (the moves
    endpoint; a hint's finish and the daily game reuse it). A won game takes no move
    (409 game_over); once auto-finish wins it along the line, the remaining moves are
    skipped. `assisted` (the solver's finish) marks the game assisted with its first
    move. With `from_position`, the moves are played only if the game is still at that
    position (else `PositionChanged`, nothing written)."""

    async def change(game: Game) -> Answer[GameMoveResult]:
        if from_position is not None and game.state != from_position.to_bytes():
            raise PositionChanged
        line = await played_line(game, POSITIONS.load(game.state), commands)
        # The legal moves of the new position, once: its status, the answer's
        # `legal_moves` and every click are read from them.
        legal = line.state.legal_moves()
        if line.rows:
            await save_line(session, game, line, legal, assisted=assisted)
        return move_answer(game, line.state, legal, line.events, line.steps)

    return await write_game(
        session,
        player.id,  # read once: a rollback expires the ORM object
        game_id,
        change,
        expected_version=expected_version,
        idempotency=idempotency,
        refuse_won=bool(commands),
        # A copy only where a move's UPDATE will check it (no commands: nothing checks it).
        copy=bool(commands),
    )


async def save_line(
    session: AsyncSession, game: Game, line: Line, legal: list[Move], *, assisted: bool = False
) -> None:
    """Save the moves of a line played on the game (`play_line`; `legal`: the legal moves
    of the position it ends in): one write for all of them (a finish plays thousands: a
    write per move held the database for seconds), each still logged as its own move and
    version. Every line of moves is saved here: `apply_moves`' and a record's.

    An `assisted` line (a finish) is revealed: its positions are kept for the daily deal
    (`revealed.record`). A win that kept its rank to its last move is judged then
    (`ranking.judge_win`): a revealed line followed, or a pace no person plays at,
    takes its rank."""
    status = line.state.status_given(legal)
    now = utcnow()
    marks = _line_marks(game, line, assisted, now)
    if assisted:
        await revealed.record(session, game, _positions_after(line))
    elif game.ranked and "ranked" not in marks and "won_at" in marks:
        reason = await _judge_win(session, game, line, now)
        if reason is not None:
            marks.update(ranking.unranked(game, reason))
    moves = len(line.rows)
    await save(
        session,
        game,
        bump=moves,
        state=line.data,
        status=status,
        move_count=game.move_count + moves,
        **marks,
    )
    POSITIONS.keep(line.data, line.state)
    for row in line.rows:
        row["created_at"] = game.updated_at
    await repository.insert_moves(session, line.rows, serialised=line.serialised)


# Moves that leave the layout as it was (`ranking.layout_key`): a draw, a redeal. The
# ranking's pace does not count them.
SAME_LAYOUT = frozenset({DRAW_MOVE.action, REDEAL_MOVE.action})


def _positions_after(line: Line) -> list[State]:
    """The position after each move of the line, in order."""
    after = [State.from_bytes(row["state_before"]) for row in line.rows[1:]]
    return [*after, line.state]


async def _judge_win(session: AsyncSession, game: Game, line: Line, now: datetime) -> str | None:
    """Why the game's win, played by `line` at `now`, is not ranked (`ranking.judge_win`
    over its whole line of play: the moves logged before it and the line's), or None."""
    played = await repository.line_of_play(session, game.id)
    played += [(row["state_before"], row["move"], now) for row in line.rows]
    # The layout after each move that may change it (a draw or a redeal does not): the
    # position before the next move; the won end, where every win ends, left out.
    layouts = [
        ranking.layout_key(State.from_bytes(after))
        for (after, _m, _at), (_b, move, _t) in zip(played[1:], played, strict=False)
        if move["action"] not in SAME_LAYOUT
    ]
    share = ranking.revealed_share(layouts, await revealed.revealed_keys(session, game))
    own = [(at, m["action"] not in SAME_LAYOUT) for _b, m, at in played]
    pace = ranking.pace_ms(game.created_at, own)
    return ranking.judge_win(share, pace)


def _line_marks(game: Game, line: Line, assisted: bool, now: datetime) -> dict[str, Any]:
    """What a line of moves changes on the game besides its position: assisted (the
    solver's finish), no longer ranked, the time it was won. A won game cannot be undone,
    so the winning move's time stays (results rank by it)."""
    marks: dict[str, Any] = {}
    if assisted and not game.assisted:
        marks["assisted"] = True
    if game.ranked and assisted:
        marks.update(ranking.unranked(game, ranking.ASSISTED))  # helped
    elif game.ranked and not ranking.keeps_rank(game, now):
        marks.update(ranking.unranked(game, ranking.LATE))  # played after the deal was public
    if line.state.is_won and not line.start.is_won:
        marks["won_at"] = now
    return marks


async def apply_move(
    session: AsyncSession,
    player: Player,
    game_id: str,
    command: Command,
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
) -> Answer[GameMoveResult]:
    """Apply one move and log it (see `apply_moves`)."""
    return await apply_moves(
        session,
        player,
        game_id,
        [command],
        expected_version=expected_version,
        idempotency=idempotency,
    )


async def undo(
    session: AsyncSession,
    player: Player,
    game_id: str,
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
) -> Answer[UndoResult]:
    """Take back the last move: restore its exact `state_before` and drop it from the log.
    A won game cannot be taken back (409 game_over)."""

    async def change(game: Game) -> Answer[UndoResult]:
        return await _take_back(session, game)

    return await write_game(
        session,
        player.id,  # read once: a rollback expires the ORM object
        game_id,
        change,
        expected_version=expected_version,
        idempotency=idempotency,
        refuse_won=True,
        replay_as=UndoResult,
    )


async def _take_back(session: AsyncSession, game: Game) -> Answer[UndoResult]:
    last = await repository.last_move(session, game.id)
    if last is None:
        raise NothingToUndo()
    state = State.from_bytes(last.state_before)
    undone = undo_events(state, last.move, State.from_bytes(game.state))
    await repository.delete_move(session, last.id)
    lost_at = game.lost_at
    if lost_at is not None and game.move_count - 1 < lost_at:
        lost_at = None  # taken back past the position proven lost: a new line ahead
    await save(
        session,
        game,
        state=last.state_before,
        status=state.status,
        move_count=game.move_count - 1,
        lost_at=lost_at,
        # An undo shows what the move turned up, then takes it back.
        **ranking.unranked(game, ranking.UNDONE),
    )
    body = state_json(game, state)
    body["events"] = undone
    return answer(UndoResult.model_validate(body), game)


async def resign(
    session: AsyncSession,
    player: Player,
    game_id: str,
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
) -> Answer[GameState]:
    """End a game in play: status `resigned`, for good (no move, no undo: 409 game_over).
    It counts as played and not won, and is never ranked. A game that is over already
    (won, stuck or resigned) is refused: 409 game_already_over. The position stays as it
    is: `resigned` is the game's status, not the engine's."""

    async def change(game: Game) -> Answer[GameState]:
        if game.status != "playing":
            raise GameAlreadyOver(
                N_("the game is {status} already; only a game in play resigns"),
                params={"status": game.status},
            )
        await save(session, game, status="resigned", **ranking.unranked(game, ranking.RESIGNED))
        return answer(stored_game_state(game), game)

    return await write_game(
        session,
        player.id,  # read once: a rollback expires the ORM object
        game_id,
        change,
        expected_version=expected_version,
        idempotency=idempotency,
        replay_as=GameState,
    )


# --- the solver's marks -------------------------------------------------------------
# Bookkeeping of the solver's, not a request's answer: no Idempotency-Key, no expected
# version, so they open the locked game directly.


async def mark_assisted(session: AsyncSession, player: Player, game_id: str) -> Game:
    """Mark a game in play as helped by the solver (its win is then not ranked). Saved
    as a change of its own (the version goes up once, so ETags show the flag); a won
    game, or one already marked, is left as it is. The game as it is now (its version,
    its position)."""
    player_id = player.id  # read once: a rollback expires the ORM object
    async with repository.locked_game(session, player_id, game_id) as locked:
        game = locked.game
        if (not game.assisted or game.ranked) and game.status not in FINISHED:
            await save(session, game, assisted=True, **ranking.unranked(game, ranking.ASSISTED))
    return game


def known_lost(game: Game) -> bool:
    """The game's position descends from one the solver proved lost (`Game.lost_at`)."""
    return game.lost_at is not None and game.move_count >= game.lost_at


async def mark_lost(session: AsyncSession, player: Player, game_id: str, position: State) -> Game:
    """The solver proved `position` lost: mark the game assisted (saying so tells the
    player something of hidden cards), and where the game is still at the position, keep
    its move count (`Game.lost_at`: every later position of this line is lost too; a game
    that moved on meanwhile may have been taken back past it). Only the mark changes the
    version: `lost_at` is not part of the public state. The game as it is now."""
    player_id = player.id  # read once: a rollback expires the ORM object
    async with repository.locked_game(session, player_id, game_id) as locked:
        game = locked.game
        if game.status in FINISHED:
            return game
        marks: dict[str, Any] = {}
        if not game.assisted or game.ranked:
            marks.update(assisted=True, **ranking.unranked(game, ranking.ASSISTED))
        if game.state == position.to_bytes() and not known_lost(game):
            marks["lost_at"] = game.move_count
        if marks:
            await save(session, game, bump=1 if "assisted" in marks else 0, **marks)
    return game
