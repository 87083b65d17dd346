"""Games: load, apply through the engine, save, in one transaction.

Every change of a game is saved by `_save` (version bump under an optimistic
check) and every move goes through `apply_moves`, whoever asks for it (the moves
endpoint now; a hint's finish and the daily game later), so there is one path to
validate, log and version a move.

Concurrency: a write transaction locks the game (BEGIN IMMEDIATE on SQLite,
SELECT ... FOR UPDATE elsewhere), so concurrent moves on one game are
serialised; the save is also guarded by `UPDATE ... WHERE version = :v`, and a
request that names `expected_version` gets 409 `version_conflict` when another
change got there first.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import begin_write
from app.engine import (
    EngineError,
    IllegalMove,
    InvalidDeal,
    InvalidMove,
    Move,
    Rules,
    State,
    Variant,
    deal,
    resolve_click,
)
from app.errors import ApiError
from app.models import Game, IdempotencyKey, Player, utcnow
from app.models import Move as MoveRow
from app.services import solvable
from app.services.proving import SERVER_DEAL_MAX
from app.services.solvable import SolvableDeals
from app.services.variants import find_variant

DEFAULT_SETTINGS = {"auto_play": True, "auto_finish": True}
# GET /games/{id}/moves: moves per page by default and at most (a move with its events
# is ~250 bytes of JSON; most games fit in one default page, as before pagination).
MOVES_PAGE_DEFAULT = 1000
MOVES_PAGE_MAX = 1000
# Sources whose deal number the server chose: hidden until the game is won.
SECRET_SOURCES = frozenset({"random", "solvable", "daily"})


@dataclass(frozen=True)
class Answer:
    """A JSON body and the game version it shows (for the ETag)."""

    body: dict[str, Any]
    game_id: str
    version: int
    replayed: bool = False


def iso(moment: datetime) -> str:
    # SQLite hands back naive datetimes; every stored time is UTC.
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def etag(game_id: str, version: int) -> str:
    return f'"{game_id}.{version}"'


class PositionChanged(Exception):
    """The game is no longer at the position a line of moves was found for."""


def not_found() -> ApiError:
    # One answer for unknown ids and other players' games: never reveal existence.
    return ApiError("game_not_found", 404, "no such game")


def engine_error(exc: EngineError) -> ApiError:
    if isinstance(exc, IllegalMove):
        return ApiError("illegal_move", 422, exc.message, reason=exc.code)
    if isinstance(exc, InvalidDeal):
        return ApiError("invalid_deal", 422, exc.message, reason=exc.code)
    if isinstance(exc, InvalidMove):
        return ApiError("invalid_move", 422, exc.message, reason=exc.code)
    return ApiError("engine_error", 422, exc.message, reason=exc.code)


# --- rendering ---------------------------------------------------------------


def visible_deal(game: Game) -> int | None:
    if game.source in SECRET_SOURCES and game.status != "won":
        return None
    # Everyone plays the same daily deal: its number stays secret until its date is over.
    if game.daily_date is not None and game.daily_date >= datetime.now(UTC).date():
        return None
    return int(game.deal)


def state_json(game: Game, state: State) -> dict[str, Any]:
    """The state as the API shows it: only what the player may see."""
    public = state.public()
    return {
        "id": game.id,
        "variant": game.variant,
        "deal": visible_deal(game),
        "source": game.source,
        "rules": {"foundation_return": state.variant.foundation_return},
        "settings": {**DEFAULT_SETTINGS, **game.settings},
        "status": game.status,
        "version": game.version,
        "move_count": game.move_count,
        "assisted": bool(game.assisted),
        "redeals_left": public.get("redeals_left", state.redeals_left),
        "base_rank": public.get("base_rank", state.base_rank),
        "piles": public["piles"],
        "legal_moves": [m.to_json() for m in state.legal_moves()],
        "created_at": iso(game.created_at),
        "updated_at": iso(game.updated_at),
    }


def summary_json(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "variant": game.variant,
        "deal": visible_deal(game),
        "source": game.source,
        "status": game.status,
        "version": game.version,
        "move_count": game.move_count,
        "created_at": iso(game.created_at),
        "updated_at": iso(game.updated_at),
    }


# --- transactions ------------------------------------------------------------


@asynccontextmanager
async def write_transaction(session: AsyncSession) -> AsyncIterator[None]:
    """One write transaction: committed on success, rolled back on any error."""
    if session.in_transaction():
        # A read before the write (e.g. authentication): end it so that the
        # write starts as a writer and sees the newest committed data.
        await session.commit()
    await begin_write(session)
    try:
        yield
    except BaseException:
        await session.rollback()
        raise
    await session.commit()


def _checked_id(game_id: str) -> str:
    """A game id as this API makes them (a UUID); anything else is no game. Checked
    before a query: PostgreSQL refuses text with NUL (`%00` in a path) with an error."""
    try:
        if str(uuid.UUID(game_id)) == game_id:
            return game_id
    except ValueError:
        pass
    raise not_found()


async def _load_owned(
    session: AsyncSession, player_id: str, game_id: str, *, lock: bool = False
) -> Game:
    query = select(Game).where(Game.id == _checked_id(game_id), Game.player_id == player_id)
    if lock:
        query = query.with_for_update()
    # populate_existing: a write after a long wait (a hint's search) must see the row as
    # it is now, not the copy this session loaded before.
    query = query.execution_options(populate_existing=True)
    game = (await session.execute(query)).scalar_one_or_none()
    if game is None:
        raise not_found()
    return game


def _check_version(game: Game, expected_version: int | None) -> None:
    if expected_version is not None and expected_version != game.version:
        raise ApiError(
            "version_conflict",
            409,
            f"the game is at version {game.version}, not {expected_version}",
        )


async def _save(session: AsyncSession, game: Game, bump: int = 1, **values: Any) -> None:
    """Write new values and bump the version (by one per move saved), only if nobody else
    did meanwhile."""
    old_version = game.version
    values["version"] = old_version + bump
    values["updated_at"] = utcnow()
    result = await session.execute(
        update(Game)
        .where(Game.id == game.id, Game.version == old_version)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise ApiError("version_conflict", 409, "the game changed meanwhile; reload it")
    for name, value in values.items():
        setattr(game, name, value)


# --- idempotency -------------------------------------------------------------


def fingerprint(method: str, path: str, payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{method} {path}\n{canonical}".encode()).hexdigest()


@dataclass(frozen=True)
class Idempotency:
    key: str
    fingerprint: str


async def _replay(session: AsyncSession, player_id: str, idem: Idempotency) -> Answer | None:
    row = (
        await session.execute(
            select(IdempotencyKey).where(
                IdempotencyKey.player_id == player_id, IdempotencyKey.key == idem.key
            )
        )
    ).scalar_one_or_none()
    if row is None:
        return None
    if row.fingerprint != idem.fingerprint:
        raise ApiError(
            "idempotency_key_reused",
            422,
            "this Idempotency-Key was already used for a different request",
        )
    body = row.response
    return Answer(body=body, game_id=body["id"], version=body["version"], replayed=True)


async def _remember(
    session: AsyncSession, player_id: str, idem: Idempotency | None, answer: Answer
) -> None:
    if idem is None:
        return
    session.add(
        IdempotencyKey(
            player_id=player_id,
            key=idem.key,
            fingerprint=idem.fingerprint,
            status_code=200,
            response=answer.body,
        )
    )
    await session.flush()


async def prune_idempotency_keys(session: AsyncSession, older_than: timedelta) -> int:
    """Forget stored answers past their useful life (retries come within minutes)."""
    async with write_transaction(session):
        result = await session.execute(
            delete(IdempotencyKey).where(IdempotencyKey.created_at < utcnow() - older_than)
        )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


# --- use cases ---------------------------------------------------------------


def _deal(variant: Variant, number: int, rules: Rules) -> State:
    try:
        return deal(variant, number, rules)
    except EngineError as exc:
        raise engine_error(exc) from exc


async def create_game(
    session: AsyncSession,
    player: Player,
    *,
    variant_name: str,
    deal_number: int | None,
    solvable: bool,
    rules: dict[str, Any] | None,
    settings: dict[str, Any] | None,
    solvable_deals: SolvableDeals | None = None,
    daily_date: date | None = None,
) -> Answer:
    """A new game. With `daily_date`, `deal_number` is that date's daily deal (source
    "daily"); the unique (player, variant, daily_date) constraint raises IntegrityError
    for a second one, which the daily service turns into "return the existing game".
    `solvable` deals one of `solvable_deals`' proven deals, claimed in the transaction
    that inserts the game; none ready is 503 no_solvable_deals at once."""
    variant = find_variant(variant_name, status=422)
    if solvable and deal_number is not None:
        raise ApiError("validation_error", 422, "give either a deal number or solvable, not both")
    try:
        game_rules = Rules.from_json(rules)
    except EngineError as exc:
        raise ApiError("invalid_rules", 422, exc.message, reason=exc.code) from exc
    if solvable:
        return await _create_solvable(
            session, player, variant, game_rules, settings, solvable_deals
        )
    if deal_number is None:
        number, source = secrets.randbelow(SERVER_DEAL_MAX) + 1, "random"
    else:
        number, source = deal_number, "daily" if daily_date else "deal"
    state = _deal(variant, number, game_rules)
    game = _new_game(player, variant, number, source, game_rules, settings, state, daily_date)
    async with write_transaction(session):
        session.add(game)
        await session.flush()
    return Answer(body=state_json(game, state), game_id=game.id, version=game.version)


async def _create_solvable(
    session: AsyncSession,
    player: Player,
    variant: Variant,
    rules: Rules,
    settings: dict[str, Any] | None,
    solvable_deals: SolvableDeals | None,
) -> Answer:
    async with write_transaction(session):
        claimed = await solvable.claim(session, variant, rules)
        if claimed is None:
            retry = solvable_deals.retry_after(variant.name) if solvable_deals else 60
            raise solvable.no_solvable_deals(variant.name, retry)
        row, state = claimed
        number = int(row.deal)
        game = _new_game(player, variant, number, "solvable", rules, settings, state, None)
        session.add(game)
        await session.flush()  # the game first: the claim names it
        row.dealt_at, row.game_id = game.created_at, game.id
        await session.flush()
    if solvable_deals is not None:
        solvable_deals.claimed(variant.name)
    return Answer(body=state_json(game, state), game_id=game.id, version=game.version)


def _new_game(
    player: Player,
    variant: Variant,
    number: int,
    source: str,
    rules: Rules,
    settings: dict[str, Any] | None,
    state: State,
    daily_date: date | None,
) -> Game:
    now = utcnow()
    return Game(
        player_id=player.id,
        variant=variant.name,
        deal=str(number),
        source=source,
        rules=rules.to_json(),
        settings={**DEFAULT_SETTINGS, **(settings or {})},
        status=state.status,
        version=0,
        move_count=0,
        state=state.to_bytes(),
        created_at=now,
        updated_at=now,
        daily_date=daily_date,
        assisted=False,
    )


async def get_game(session: AsyncSession, player: Player, game_id: str) -> Answer:
    player_id = player.id  # read once: a rollback expires the ORM object
    game = await _load_owned(session, player_id, game_id)
    state = State.from_bytes(game.state)
    return Answer(body=state_json(game, state), game_id=game.id, version=game.version)


async def load_position(session: AsyncSession, player: Player, game_id: str) -> tuple[Game, State]:
    """The game row and its full position, hidden cards included: for server-side work
    (the solver's hints) that must never be sent to the client as it is."""
    game = await _load_owned(session, player.id, game_id)
    return game, State.from_bytes(game.state)


async def game_version(session: AsyncSession, player: Player, game_id: str) -> int:
    """Only the version, for a cheap If-None-Match answer."""
    version = (
        await session.execute(
            select(Game.version).where(Game.id == _checked_id(game_id), Game.player_id == player.id)
        )
    ).scalar_one_or_none()
    if version is None:
        raise not_found()
    return version


def _encode_cursor(game: Game) -> str:
    raw = json.dumps([iso(game.created_at), game.id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The (created_at, id) a page ended at. Only what `_encode_cursor` makes is taken:
    an aware time that stays a valid time in UTC (`0001-01-01T00:00:00+01:00` does not,
    and the database would fail on it), and a game id."""
    invalid = ApiError("invalid_cursor", 422, "the cursor is not one this API gave")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, game_id = json.loads(raw)
        moment = datetime.fromisoformat(created)
        if moment.tzinfo is None or not isinstance(game_id, str):
            raise invalid
        return moment.astimezone(UTC), _checked_id(game_id)
    except (ValueError, TypeError, OverflowError) as exc:
        raise invalid from exc
    except ApiError as exc:
        raise invalid from exc


async def list_games(
    session: AsyncSession, player: Player, *, limit: int, cursor: str | None
) -> dict[str, Any]:
    """The player's games, newest first; keyset pagination so pages never overlap."""
    query = select(Game).where(Game.player_id == player.id)
    if cursor:
        created, game_id = _decode_cursor(cursor)
        query = query.where(
            or_(Game.created_at < created, and_(Game.created_at == created, Game.id < game_id))
        )
    query = query.order_by(Game.created_at.desc(), Game.id.desc()).limit(limit + 1)
    games = list((await session.execute(query)).scalars())
    more = len(games) > limit
    games = games[:limit]
    return {
        "items": [summary_json(g) for g in games],
        "next_cursor": _encode_cursor(games[-1]) if more and games else None,
    }


async def update_settings(
    session: AsyncSession,
    player: Player,
    game_id: str,
    changes: dict[str, Any],
    expected_version: int | None,
) -> Answer:
    player_id = player.id  # read once: a rollback expires the ORM object
    async with write_transaction(session):
        game = await _load_owned(session, player_id, game_id, lock=True)
        _check_version(game, expected_version)
        await _save(session, game, settings={**DEFAULT_SETTINGS, **game.settings, **changes})
        state = State.from_bytes(game.state)
    return Answer(body=state_json(game, state), game_id=game.id, version=game.version)


def parse_action(state: State, action: dict[str, Any], settings: dict[str, Any]) -> Move:
    """A request's action as an engine move; clicks are resolved to their target."""
    try:
        if action["action"] == "click":
            if not settings.get("auto_play", True):
                raise ApiError(
                    "auto_play_off", 422, "clicks are off for this game (setting auto_play)"
                )
            return resolve_click(state, action["pile"], action.get("index"))
        return Move.from_json(action)
    except EngineError as exc:
        raise engine_error(exc) from exc


# A move as the API sends it (JSON form, click included) or as the engine/solver makes it.
Action = dict[str, Any] | Move


def _play_one(game: Game, state: State, move: Move, played: int) -> tuple[State, dict[str, Any]]:
    """Apply one engine move to a locked game's position: the position after it and its
    log row's values (the `played`-th move of this write, so its version and number
    follow)."""
    try:
        new_state, events = state.apply(
            move, auto_finish=bool(game.settings.get("auto_finish", True))
        )
    except EngineError as exc:
        raise engine_error(exc) from exc
    row = {
        "game_id": game.id,
        "seq": game.move_count + played + 1,
        "version": game.version + played + 1,
        "text": str(move),
        "move": move.to_json(),
        "events": [e.to_json() for e in events],
        "state_before": state.to_bytes(),
    }
    return new_state, row


async def apply_moves(
    session: AsyncSession,
    player: Player,
    game_id: str,
    actions: Sequence[Action],
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
    assisted: bool = False,
    from_position: State | None = None,
) -> Answer:
    """Apply moves in order, each validated by the engine and logged as its own move,
    in one transaction: all of them or none. The one path for every move (the moves
    endpoint; a hint's finish and the daily game reuse it). Once the game is won
    (auto-finish may win it early), the remaining moves are skipped. `assisted` (the
    solver's finish) marks the game assisted with its first move. With `from_position`,
    the moves are played only if the game is still at that position (else
    `PositionChanged`, nothing written)."""
    player_id = player.id  # read once: a rollback expires the ORM object
    try:
        async with write_transaction(session):
            game = await _load_owned(session, player_id, game_id, lock=True)
            if idempotency is not None:
                replay = await _replay(session, player_id, idempotency)
                if replay is not None:
                    return replay
            _check_version(game, expected_version)
            if from_position is not None and game.state != from_position.to_bytes():
                raise PositionChanged
            start = state = State.from_bytes(game.state)
            events: list[Any] = []
            rows: list[dict[str, Any]] = []
            for action in actions:
                if state.is_won and events:
                    break
                move = (
                    action
                    if isinstance(action, Move)
                    else parse_action(state, action, game.settings)
                )
                state, row = _play_one(game, state, move, len(rows))
                rows.append(row)
                events += row["events"]
            # One write for all the moves (a finish plays thousands: a write per move
            # held the database for seconds), each still logged as its own move and
            # version. A won game cannot be undone, so the winning move's time stays
            # (results rank by it).
            values: dict[str, Any] = {}
            if assisted and not game.assisted:
                values["assisted"] = True
            if state.is_won and not start.is_won:
                values["won_at"] = utcnow()
            if rows:
                await _save(
                    session,
                    game,
                    bump=len(rows),
                    state=state.to_bytes(),
                    status=state.status,
                    move_count=game.move_count + len(rows),
                    **values,
                )
                for row in rows:
                    row["created_at"] = game.updated_at
                # A bulk insert of plain rows: the ORM's unit of work per object cost
                # seconds for a finish's thousands of moves.
                await session.execute(insert(MoveRow), rows)
            body = state_json(game, state)
            body["events"] = events
            answer = Answer(body=body, game_id=game.id, version=game.version)
            await _remember(session, player_id, idempotency, answer)
            return answer
    except IntegrityError:
        # A twin request with the same Idempotency-Key won the race: answer as it did.
        if idempotency is None:
            raise
        async with write_transaction(session):
            replay = await _replay(session, player_id, idempotency)
        if replay is None:
            raise
        return replay


async def apply_move(
    session: AsyncSession,
    player: Player,
    game_id: str,
    action: Action,
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
) -> Answer:
    """Apply one move and log it (see `apply_moves`)."""
    return await apply_moves(
        session,
        player,
        game_id,
        [action],
        expected_version=expected_version,
        idempotency=idempotency,
    )


async def mark_assisted(session: AsyncSession, player: Player, game_id: str) -> None:
    """Mark a game in play as helped by the solver (its win is then not ranked). Saved
    as a change of its own (the version goes up once, so ETags show the flag); a won
    game, or one already marked, is left as it is."""
    player_id = player.id  # read once: a rollback expires the ORM object
    async with write_transaction(session):
        game = await _load_owned(session, player_id, game_id, lock=True)
        if not game.assisted and game.status != "won":
            await _save(session, game, assisted=True)


async def undo(
    session: AsyncSession,
    player: Player,
    game_id: str,
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
) -> Answer:
    """Take back the last move: restore its exact `state_before` and drop it from the log."""
    player_id = player.id  # read once: a rollback expires the ORM object
    async with write_transaction(session):
        game = await _load_owned(session, player_id, game_id, lock=True)
        if idempotency is not None:
            replay = await _replay(session, player_id, idempotency)
            if replay is not None:
                return replay
        _check_version(game, expected_version)
        if game.status == "won":
            raise ApiError("game_over", 409, "the game is won; it cannot be taken back")
        last = (
            await session.execute(
                select(MoveRow)
                .where(MoveRow.game_id == game.id)
                .order_by(MoveRow.seq.desc())
                .limit(1)
            )
        ).scalar_one_or_none()
        if last is None:
            raise ApiError("nothing_to_undo", 409, "no move to take back")
        state = State.from_bytes(last.state_before)
        await session.execute(delete(MoveRow).where(MoveRow.id == last.id))
        await _save(
            session,
            game,
            state=last.state_before,
            status=state.status,
            move_count=game.move_count - 1,
        )
        body = state_json(game, state)
        body["events"] = [{"type": "undo", "move": last.move}]
        answer = Answer(body=body, game_id=game.id, version=game.version)
        await _remember(session, player_id, idempotency, answer)
        return answer


async def list_moves(
    session: AsyncSession,
    player: Player,
    game_id: str,
    *,
    offset: int = 0,
    limit: int = MOVES_PAGE_DEFAULT,
) -> dict[str, Any]:
    """One page of the move log: the moves with `seq` from `offset + 1` on, at most
    `limit` of them (`seq` runs 1, 2, 3, ... with no gaps, so the offset is a seq)."""
    player_id = player.id  # read once: a rollback expires the ORM object
    game = await _load_owned(session, player_id, game_id)
    rows = (
        await session.execute(
            select(MoveRow)
            .where(MoveRow.game_id == game.id, MoveRow.seq > offset)
            .order_by(MoveRow.seq)
            .limit(limit)
        )
    ).scalars()
    items = [
        {
            "seq": r.seq,
            "version": r.version,
            "text": r.text,
            "move": r.move,
            "events": r.events,
            "created_at": iso(r.created_at),
        }
        for r in rows
    ]
    total = game.move_count
    end = offset + len(items)
    return {
        "game_id": game.id,
        "version": game.version,
        "total": total,
        "items": items,
        "next_offset": end if items and end < total else None,
    }
