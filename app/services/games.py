"""Games: load, apply through the engine, save, in one transaction.

Every write of a game opens with `writing_game` (one unit of work of `app.db`, the
game loaded and locked, a stored answer replayed, `expected_version` checked), is
saved by `_save` (version bump under an optimistic check), and every move goes
through `apply_moves`, whoever asks for it (the moves endpoint, a hint's finish, the
daily game), so there is one path to validate, log and version a move.

Requests arrive typed: a move is an engine `Move` or a `Click` (resolved here, against
the locked position). Answers leave typed: the response models of `app.schemas`.

Concurrency: a write transaction locks the game (BEGIN IMMEDIATE on SQLite,
SELECT ... FOR UPDATE elsewhere), so concurrent moves on one game are
serialised; the save is also guarded by `UPDATE ... WHERE version = :v`, and a
request that names `expected_version` gets 409 `version_conflict` when another
change got there first.
"""

from __future__ import annotations

import base64
import json
import secrets
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Generic, TypeVar, cast

import pydantic_core
from sqlalchemy import Table, and_, bindparam, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from app.db import unit_of_work
from app.engine import EngineError, Move, Pile, Rules, State, Variant, deal, resolve_click
from app.errors import (
    ApiError,
    AutoPlayOff,
    GameNotFound,
    GameOver,
    IdempotencyKeyReused,
    InvalidCursor,
    InvalidRules,
    NothingToUndo,
    ValidationFailed,
    VersionConflict,
    from_engine,
)
from app.models import Game, IdempotencyKey, Player, utcnow
from app.models import Move as MoveRow
from app.schemas import (
    GameMoveResult,
    GamePage,
    GameState,
    GameSummary,
    MoveLog,
    UndoResult,
    rfc3339,
)
from app.services import ranking, solvable
from app.services.bounded import BoundedMap
from app.services.idempotency import Idempotency, expired, forget, keep_newest
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


Body = TypeVar("Body", bound=GameState)


class Answer(Generic[Body]):
    """A game as an answer shows it, and the version it shows (for the ETag).

    Given `raw` (the answer as `state_json` writes it, with its events) and `model`
    instead of `body`, the model is built only when `body` is first read: the moves
    endpoint writes `raw` straight to JSON (`json_bytes`) and never needs it."""

    def __init__(
        self,
        body: Body | None = None,
        *,
        game_id: str,
        version: int,
        replayed: bool = False,
        steps: tuple[dict[str, Any], ...] = (),
        raw: dict[str, Any] | None = None,
        model: type[Body] | None = None,
        game: Game | None = None,
    ) -> None:
        if body is None and (raw is None or model is None):
            raise ValueError("an answer needs its body, or its raw form and model")
        self._body = body
        self.game_id, self.version, self.replayed = game_id, version, replayed
        # Each move played, with its own events, in order (for finish's `steps`).
        self.steps = steps
        self._raw, self._model, self._game = raw, model, game

    @property
    def body(self) -> Body:
        if self._body is None:
            assert self._model is not None
            self._body = self._model.model_validate(self._raw)
        return self._body

    def json_bytes(self) -> bytes | None:
        """The JSON FastAPI would write for `body` (the response model, by alias), written
        from `raw` without building the model; None where there is no `raw` form or it
        is not of the shape `move_result_json` knows (the model writes it then)."""
        if self._raw is None or self._game is None or self._model is not GameMoveResult:
            return None
        return move_result_json(self._game, self._raw)


@dataclass(frozen=True)
class Click:
    """A click on a card (`index` from the bottom, None: the top card), resolved to a move
    against the game's position when it is played (`resolve_click`)."""

    pile: Pile
    index: int | None = None


# A move as the router hands it over: an engine move, or a click to resolve.
Command = Move | Click


def iso(moment: datetime) -> str:
    # SQLite hands back naive datetimes; every stored time is UTC.
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def etag(game_id: str, version: int) -> str:
    return f'"{game_id}.{version}"'


class PositionChanged(Exception):
    """The game is no longer at the position a line of moves was found for."""


# --- rendering ---------------------------------------------------------------


def visible_deal(game: Game) -> int | None:
    if game.daily_date is not None:
        # Everyone plays the same daily deal: its number is secret until it is published
        # (`GET /daily` shows it then too), won or not.
        published = ranking.deal_published(game.daily_date, utcnow())
        return int(game.deal) if published else None
    if game.source in SECRET_SOURCES and game.status != "won":
        return None
    return int(game.deal)


def state_json(game: Game, state: State, legal: list[Move] | None = None) -> dict[str, Any]:
    """The state as the API shows it: only what the player may see (the engine's public
    view; with clicks off for the game, no card says what a click would play). `legal`:
    the state's legal moves, where the caller has them already (generated once)."""
    settings = {**DEFAULT_SETTINGS, **game.settings}
    if legal is None:
        legal = state.legal_moves()
    public = state.view(clicks=bool(settings["auto_play"]), legal=legal).to_json()
    return {
        "id": game.id,
        "variant": game.variant,
        "deal": visible_deal(game),
        "source": game.source,
        "rules": {"foundation_return": state.variant.foundation_return},
        "settings": settings,
        "status": game.status,
        "version": game.version,
        "move_count": game.move_count,
        "assisted": bool(game.assisted),
        "ranked": ranking.is_ranked(game, utcnow()),
        "redeals_left": public["redeals_left"],
        "base_rank": public["base_rank"],
        "piles": public["piles"],
        "legal_moves": [m.to_json() for m in legal],
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


def game_state(game: Game, state: State) -> GameState:
    """The state as the API's response model (what `state_json` shows, typed)."""
    return GameState.model_validate(state_json(game, state))


def move_result(body: dict[str, Any]) -> GameMoveResult:
    """A state with the events of the change that led to it, typed."""
    return GameMoveResult.model_validate(body)


_SETTINGS = frozenset(DEFAULT_SETTINGS)
_CARDS_MOVED = frozenset({"move", "auto_finish"})
_IN_MODEL_ORDER = frozenset({"turn_up", "reserve_fill"})


def move_result_json(game: Game, body: dict[str, Any]) -> bytes | None:
    """`GameMoveResult.model_validate(body).model_dump_json(by_alias=True)` (what the
    moves endpoint answers), written without the model: the same keys in the model's
    order (`deal` first, as `_WithDeal` declares it, `deal_str` last; a move event's
    `from`, `to`, `cards`, `count` before its `type` and `move`), the times in RFC 3339.
    The piles, cards, clicks and legal moves are already in the engine's JSON form,
    which is the models' order. None for a body of another shape (settings other than
    the two booleans, an unknown event): the model then writes it, as before."""
    settings = body["settings"]
    if settings.keys() != _SETTINGS or not all(type(v) is bool for v in settings.values()):
        return None
    events = []
    for event in body["events"]:
        kind = event["type"]
        if kind in _CARDS_MOVED:
            events.append(
                {
                    "from": event["from"],
                    "to": event["to"],
                    "cards": event["cards"],
                    "count": event["count"],
                    "type": kind,
                    "move": event["move"],
                }
            )
        elif kind in _IN_MODEL_ORDER:
            events.append(event)
        else:
            return None
    deal = body["deal"]
    out = {
        "deal": deal,
        "id": body["id"],
        "variant": body["variant"],
        "source": body["source"],
        "rules": {"foundation_return": body["rules"]["foundation_return"]},
        "settings": {"auto_play": settings["auto_play"], "auto_finish": settings["auto_finish"]},
        "status": body["status"],
        "version": body["version"],
        "move_count": body["move_count"],
        "assisted": body["assisted"],
        "ranked": body["ranked"],
        "redeals_left": body["redeals_left"],
        "base_rank": body["base_rank"],
        "piles": body["piles"],
        "legal_moves": body["legal_moves"],
        "created_at": rfc3339(game.created_at),
        "updated_at": rfc3339(game.updated_at),
        "events": events,
        "deal_str": None if deal is None else str(deal),
    }
    # pydantic's own encoder (compact, UTF-8 as it is): the bytes FastAPI's dump writes,
    # in a quarter of the json module's time.
    return pydantic_core.to_json(out)


def _answer(body: Body, game: Game) -> Answer[Body]:
    return Answer(body=body, game_id=game.id, version=game.version)


# --- loading and locking ----------------------------------------------------------


def _checked_id(game_id: str) -> str:
    """A game id as this API makes them (a UUID); anything else is no game. Checked
    before a query: PostgreSQL refuses text with NUL (`%00` in a path) with an error."""
    try:
        if str(uuid.UUID(game_id)) == game_id:
            return game_id
    except ValueError:
        pass
    raise GameNotFound()


_GAMES = cast(Table, Game.__table__)
_COLUMNS = tuple(_GAMES.c.keys())
_MOVES = cast(Table, MoveRow.__table__)

# Built once, with bound parameters (building a statement per request cost more than
# running it). A Core read, not the ORM's: loading through the ORM cost twice as much,
# and no write needs the session to track the game (every write is `_save`'s UPDATE).
_OWNED_GAME = select(_GAMES).where(
    _GAMES.c.id == bindparam("game_id"), _GAMES.c.player_id == bindparam("player_id")
)
_OWNED_GAME_LOCKED = _OWNED_GAME.with_for_update()


async def _load_owned(
    session: AsyncSession, player_id: str, game_id: str, *, lock: bool = False
) -> Game:
    """The player's game as it is now in the database: a `Game` of its own, outside the
    session (so always the row as read, and never written back by a flush)."""
    query = _OWNED_GAME_LOCKED if lock else _OWNED_GAME
    params = {"game_id": _checked_id(game_id), "player_id": player_id}
    row = (await session.execute(query, params)).one_or_none()
    if row is None:
        raise GameNotFound()
    return Game(**row._mapping)


def _check_version(game: Game, expected_version: int | None) -> None:
    if expected_version is not None and expected_version != game.version:
        raise VersionConflict(f"the game is at version {game.version}, not {expected_version}")


@dataclass(frozen=True)
class GameWrite:
    """A game loaded and locked for a write, or the stored answer of a retried request
    (`replay`: answer it, change nothing). `copied`: the game is this process's copy of
    the row as its last write left it, not read (see `_Written`)."""

    game: Game
    replay: Answer[Any] | None
    copied: bool = False


class _Written:
    """The games this process wrote last, as each write left its row, so that a
    game's next move need not read the row again. A copy is only a guess: every write
    of a game bumps its version and `_save` writes only where the version is still the
    one read, so a move played on a stale copy fails (409) and is played again from the
    row; so is anything a copy refused (a wrong `expected_version`, an illegal move).
    A copy is taken out while a write uses it, and put back only once that commits."""

    def __init__(self, size: int) -> None:
        self._games: BoundedMap[str, Game] = BoundedMap(size)  # the oldest goes

    @property
    def size(self) -> int:
        return self._games.size

    def take(self, game_id: str, player_id: str) -> Game | None:
        game = self._games.pop(game_id)
        return game if game is not None and game.player_id == player_id else None

    def keep(self, game: Game) -> None:
        # A copy of its own: the request that wrote `game` still reads it for its answer.
        self._games.put(game.id, Game(**{name: getattr(game, name) for name in _COLUMNS}))


# One per database engine (per app: two apps in one process are two instances).
_WRITTEN_BY_ENGINE: weakref.WeakKeyDictionary[Any, _Written] = weakref.WeakKeyDictionary()


def _written(session: AsyncSession) -> _Written:
    engine = session.get_bind()
    written = _WRITTEN_BY_ENGINE.get(engine)
    if written is None:
        written = _WRITTEN_BY_ENGINE[engine] = _Written(size=1_000)
    return written


@asynccontextmanager
async def writing_game(
    session: AsyncSession,
    player_id: str,
    game_id: str,
    *,
    expected_version: int | None = None,
    idempotency: Idempotency | None = None,
    refuse_won: bool = False,
    replay_as: type[GameMoveResult] | type[UndoResult] = GameMoveResult,
    copy: bool = False,
) -> AsyncIterator[GameWrite]:
    """The opening of every write of a game (moves, undo, settings, assisted marking):
    one unit of work, the player's game loaded and locked, a retried request's stored
    answer found (before anything else is checked: a retry repeats the first request's
    `expected_version`), then `expected_version` checked and, with `refuse_won`, a won
    game refused (409 game_over). Committed when the block ends, rolled back on error.
    `replay_as`: the answer's model, to read a stored answer back as it was sent.
    `copy`: start from this process's copy of the game where it has one, unread (the
    caller plays again from the row whatever fails: `_Written`)."""
    async with unit_of_work(session):
        game = _written(session).take(game_id, player_id) if copy else None
        copied = game is not None
        if game is None:
            game = await _load_owned(session, player_id, game_id, lock=True)
        replay = None
        if idempotency is not None:
            replay = await _replay(session, player_id, idempotency, replay_as)
        if replay is None:
            _check_version(game, expected_version)
            if refuse_won and game.status == "won":
                raise GameOver()
        yield GameWrite(game=game, replay=replay, copied=copied)
    _written(session).keep(game)  # committed: the row is as the write left it


_INSERT_MOVES = insert(_MOVES)
# The save's UPDATE for each set of columns written (a few sets in all), built once.
_SAVES: dict[tuple[str, ...], Any] = {}


def _save_statement(names: tuple[str, ...]) -> Any:
    statement = _SAVES.get(names)
    if statement is None:
        statement = (
            update(_GAMES)
            .where(_GAMES.c.id == bindparam("_id"), _GAMES.c.version == bindparam("_old"))
            .values({name: bindparam(name) for name in names})
        )
        _SAVES[names] = statement
    return statement


async def _save(session: AsyncSession, game: Game, bump: int = 1, **values: Any) -> None:
    """Write new values and bump the version (by one per move saved), only if nobody else
    did meanwhile. One UPDATE; the loaded game (outside the session, `_load_owned`) takes
    the values as saved, so the answer built from it shows them."""
    old_version = game.version
    values["version"] = old_version + bump
    values["updated_at"] = utcnow()
    result = await session.execute(
        _save_statement(tuple(values)), {**values, "_id": game.id, "_old": old_version}
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise VersionConflict("the game changed meanwhile; reload it")
    for name, value in values.items():
        set_committed_value(game, name, value)


# --- idempotency -------------------------------------------------------------


async def _replay(
    session: AsyncSession,
    player_id: str,
    idem: Idempotency,
    model: type[GameMoveResult] | type[UndoResult] = GameMoveResult,
) -> Answer[Any] | None:
    row = (
        await session.execute(
            select(IdempotencyKey).where(
                IdempotencyKey.player_id == player_id, IdempotencyKey.key == idem.key
            )
        )
    ).scalar_one_or_none()
    if row is None:
        return None
    if expired(row.created_at, idem.ttl):
        # Never replayed, swept or not: forgotten now, so the key stores this answer.
        await forget(session, row.id)
        return None
    if row.fingerprint != idem.fingerprint:
        raise IdempotencyKeyReused()
    body = model.model_validate(row.response)
    return Answer(body=body, game_id=body.id, version=body.version, replayed=True)


async def _remember(
    session: AsyncSession, player_id: str, idem: Idempotency | None, answer: Answer[Any]
) -> None:
    if idem is None:
        return
    session.add(
        IdempotencyKey(
            player_id=player_id,
            key=idem.key,
            fingerprint=idem.fingerprint,
            status_code=200,
            response=answer.body.model_dump(mode="json"),
        )
    )
    await session.flush()
    await keep_newest(session, player_id, idem.keep)


async def _idempotent(
    session: AsyncSession,
    player_id: str,
    idempotency: Idempotency | None,
    write: Callable[[], Awaitable[Answer[Body]]],
    replay_as: type[GameMoveResult] | type[UndoResult] = GameMoveResult,
) -> Answer[Body]:
    """Run a write that may store its answer under an Idempotency-Key. A twin request with
    the same key that won the race (on another game: the game's lock does not order them)
    makes the insert fail: answer as it did, or refuse a key used for another request."""
    try:
        return await write()
    except IntegrityError:
        if idempotency is None:
            raise
        async with unit_of_work(session, write=False):
            replay = await _replay(session, player_id, idempotency, replay_as)
        if replay is None:
            raise
        return replay


# --- use cases ---------------------------------------------------------------


class _Positions:
    """The positions last saved or loaded, by their exact bytes: a game's next move
    finds the position its last move saved instead of decoding it again. Safe anywhere
    (several instances included): a State is a pure function of its bytes and never
    changes, so equal bytes are the same position whoever wrote them."""

    def __init__(self, size: int) -> None:
        self._states: BoundedMap[bytes, State] = BoundedMap(size)  # the oldest goes

    @property
    def size(self) -> int:
        return self._states.size

    def load(self, data: bytes) -> State:
        state = self._states.get(data)
        if state is None:
            state = State.from_bytes(data)
            self.keep(data, state)
        return state

    def keep(self, data: bytes, state: State) -> None:
        self._states.put(data, state)


_POSITIONS = _Positions(size=1_000)


def _deal(variant: Variant, number: int, rules: Rules) -> State:
    try:
        return deal(variant, number, rules)
    except EngineError as exc:
        raise from_engine(exc) from exc


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
) -> Answer[GameState]:
    """A new game. With `daily_date`, `deal_number` is that date's daily deal (source
    "daily"); the unique (player, variant, daily_date) constraint raises IntegrityError
    for a second one, which the daily service turns into "return the existing game".
    `solvable` deals one of `solvable_deals`' proven deals, claimed in the transaction
    that inserts the game; none ready is 503 no_solvable_deals at once."""
    variant = find_variant(variant_name, where="body")
    if solvable and deal_number is not None:
        raise ValidationFailed("give either a deal number or solvable, not both")
    try:
        game_rules = Rules.from_json(rules)
    except EngineError as exc:
        raise InvalidRules(exc.message, reason=exc.code) from exc
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
    async with unit_of_work(session):
        session.add(game)
        await session.flush()
    return _answer(game_state(game, state), game)


async def _create_solvable(
    session: AsyncSession,
    player: Player,
    variant: Variant,
    rules: Rules,
    settings: dict[str, Any] | None,
    solvable_deals: SolvableDeals | None,
) -> Answer[GameState]:
    async with unit_of_work(session):
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
    return _answer(game_state(game, state), game)


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
        ranked=ranking.starts_ranked(daily_date, now),
    )


async def get_game(session: AsyncSession, player: Player, game_id: str) -> Answer[GameState]:
    player_id = player.id  # read once: a rollback expires the ORM object
    async with unit_of_work(session, write=False):
        game = await _load_owned(session, player_id, game_id)
    return _answer(game_state(game, State.from_bytes(game.state)), game)


async def load_position(session: AsyncSession, player: Player, game_id: str) -> tuple[Game, State]:
    """The game row and its full position, hidden cards included: for server-side work
    (the solver's hints) that must never be sent to the client as it is. The read ends
    here: no connection is held while the caller works on the position."""
    async with unit_of_work(session, write=False):
        game = await _load_owned(session, player.id, game_id)
    return game, State.from_bytes(game.state)


async def game_version(session: AsyncSession, player: Player, game_id: str) -> int:
    """Only the version, for a cheap If-None-Match answer."""
    async with unit_of_work(session, write=False):
        version = (
            await session.execute(
                select(Game.version).where(
                    Game.id == _checked_id(game_id), Game.player_id == player.id
                )
            )
        ).scalar_one_or_none()
    if version is None:
        raise GameNotFound()
    return version


def _encode_cursor(game: Game) -> str:
    raw = json.dumps([iso(game.created_at), game.id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The (created_at, id) a page ended at. Only what `_encode_cursor` makes is taken:
    an aware time that stays a valid time in UTC (`0001-01-01T00:00:00+01:00` does not,
    and the database would fail on it), and a game id."""
    invalid = InvalidCursor()
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, game_id = json.loads(raw)
        moment = datetime.fromisoformat(created)
        if moment.tzinfo is None or not isinstance(game_id, str):
            raise invalid
        return moment.astimezone(UTC), _checked_id(game_id)
    except (ValueError, TypeError, OverflowError) as exc:
        raise invalid from exc
    except GameNotFound as exc:
        raise invalid from exc


async def list_games(
    session: AsyncSession, player: Player, *, limit: int, cursor: str | None
) -> GamePage:
    """The player's games, newest first; keyset pagination so pages never overlap."""
    query = select(Game).where(Game.player_id == player.id)
    if cursor:
        created, game_id = _decode_cursor(cursor)
        query = query.where(
            or_(Game.created_at < created, and_(Game.created_at == created, Game.id < game_id))
        )
    query = query.order_by(Game.created_at.desc(), Game.id.desc()).limit(limit + 1)
    async with unit_of_work(session, write=False):
        games = list((await session.execute(query)).scalars())
    more = len(games) > limit
    games = games[:limit]
    return GamePage(
        items=[GameSummary.model_validate(summary_json(g)) for g in games],
        next_cursor=_encode_cursor(games[-1]) if more and games else None,
    )


async def update_settings(
    session: AsyncSession,
    player: Player,
    game_id: str,
    changes: dict[str, Any],
    expected_version: int | None,
) -> Answer[GameState]:
    player_id = player.id  # read once: a rollback expires the ORM object
    async with writing_game(
        session, player_id, game_id, expected_version=expected_version
    ) as write:
        game = write.game
        await _save(session, game, settings={**DEFAULT_SETTINGS, **game.settings, **changes})
    return _answer(game_state(game, State.from_bytes(game.state)), game)


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
    game: Game, state: State, before: bytes, move: Move, played: int
) -> tuple[State, dict[str, Any], list[dict[str, Any]]]:
    """Apply one engine move to a locked game's position (`before`: its bytes): the
    position after it, its log row's values (the `played`-th move of this write, so its
    version and number follow) and its events as answered. The log keeps the same events
    but a draw's cards: a redeal may turn them face down again, and the log is read
    later."""
    try:
        new_state, events = state.apply(
            move, auto_finish=bool(game.settings.get("auto_finish", True))
        )
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
    player_id = player.id  # read once: a rollback expires the ORM object
    copied = False

    async def write(copy: bool = False) -> Answer[GameMoveResult]:
        nonlocal copied
        async with writing_game(
            session,
            player_id,
            game_id,
            expected_version=expected_version,
            idempotency=idempotency,
            refuse_won=bool(commands),
            copy=copy,
        ) as opened:
            copied = opened.copied
            if opened.replay is not None:
                return opened.replay
            game = opened.game
            if from_position is not None and game.state != from_position.to_bytes():
                raise PositionChanged
            data = game.state
            start = state = _POSITIONS.load(data)
            events: list[Any] = []
            rows: list[dict[str, Any]] = []
            steps: list[dict[str, Any]] = []
            for command in commands:
                if state.is_won and events:
                    break
                move = _resolve(state, command, game.settings)
                state, row, played = _play_one(game, state, data, move, len(rows))
                data = state.to_bytes()
                rows.append(row)
                steps.append({"move": row["move"], "events": played})
                events += played
            # One write for all the moves (a finish plays thousands: a write per move
            # held the database for seconds), each still logged as its own move and
            # version. A won game cannot be undone, so the winning move's time stays
            # (results rank by it).
            values: dict[str, Any] = {}
            now = utcnow()
            if assisted and not game.assisted:
                values["assisted"] = True
            if game.ranked and (assisted or not ranking.keeps_rank(game, now)):
                values["ranked"] = False  # helped, or played after the deal was published
            if state.is_won and not start.is_won:
                values["won_at"] = now
            # The legal moves of the new position, once: its status, the answer's
            # `legal_moves` and every click are read from them.
            legal = state.legal_moves()
            if rows:
                await _save(
                    session,
                    game,
                    bump=len(rows),
                    state=data,
                    status=state.status_given(legal),
                    move_count=game.move_count + len(rows),
                    **values,
                )
                _POSITIONS.keep(data, state)
                for row in rows:
                    row["created_at"] = game.updated_at
                # A bulk insert of plain rows (Core: the ORM's unit of work per object
                # cost seconds for a finish's thousands of moves); one row as a plain
                # execute, not the bulk path.
                await session.execute(_INSERT_MOVES, rows if len(rows) > 1 else rows[0])
            body = state_json(game, state, legal)
            body["events"] = events
            # The model is built only if something reads it (a stored answer, a finish).
            answer = Answer(
                game_id=game.id,
                version=game.version,
                steps=tuple(steps),
                raw=body,
                model=GameMoveResult,
                game=game,
            )
            await _remember(session, player_id, idempotency, answer)
        return answer

    try:
        # A copy only where a move's UPDATE will check it (no commands: nothing checks it).
        return await _idempotent(
            session, player_id, idempotency, lambda: write(copy=bool(commands))
        )
    except (ApiError, PositionChanged):
        if not copied:
            raise
    # Decided on this process's copy of the game (rolled back): decide on the row.
    return await _idempotent(session, player_id, idempotency, write)


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


async def mark_assisted(session: AsyncSession, player: Player, game_id: str) -> Game:
    """Mark a game in play as helped by the solver (its win is then not ranked). Saved
    as a change of its own (the version goes up once, so ETags show the flag); a won
    game, or one already marked, is left as it is. The game as it is now (its version,
    its position)."""
    player_id = player.id  # read once: a rollback expires the ORM object
    async with writing_game(session, player_id, game_id) as write:
        game = write.game
        if (not game.assisted or game.ranked) and game.status != "won":
            await _save(session, game, assisted=True, ranked=False)
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
    async with writing_game(session, player_id, game_id) as write:
        game = write.game
        values: dict[str, Any] = {}
        if game.status == "won":
            return game
        if not game.assisted or game.ranked:
            values["assisted"], values["ranked"] = True, False
        if game.state == position.to_bytes() and not known_lost(game):
            values["lost_at"] = game.move_count
        if values:
            await _save(session, game, bump=1 if "assisted" in values else 0, **values)
    return game


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
    player_id = player.id  # read once: a rollback expires the ORM object

    async def write() -> Answer[UndoResult]:
        async with writing_game(
            session,
            player_id,
            game_id,
            expected_version=expected_version,
            idempotency=idempotency,
            refuse_won=True,
            replay_as=UndoResult,
        ) as opened:
            if opened.replay is not None:
                return opened.replay
            game = opened.game
            last = (
                await session.execute(
                    select(MoveRow)
                    .where(MoveRow.game_id == game.id)
                    .order_by(MoveRow.seq.desc())
                    .limit(1)
                )
            ).scalar_one_or_none()
            if last is None:
                raise NothingToUndo()
            state = State.from_bytes(last.state_before)
            undone = _undo_events(state, last.move, State.from_bytes(game.state))
            await session.execute(delete(MoveRow).where(MoveRow.id == last.id))
            lost_at = game.lost_at
            if lost_at is not None and game.move_count - 1 < lost_at:
                lost_at = None  # taken back past the position proven lost: a new line ahead
            await _save(
                session,
                game,
                state=last.state_before,
                status=state.status,
                move_count=game.move_count - 1,
                lost_at=lost_at,
                ranked=False,  # an undo shows what the move turned up, then takes it back
            )
            body = state_json(game, state)
            body["events"] = undone
            answer = _answer(UndoResult.model_validate(body), game)
            await _remember(session, player_id, idempotency, answer)
        return answer

    return await _idempotent(session, player_id, idempotency, write, replay_as=UndoResult)


def _undo_events(before: State, move_json: dict[str, Any], after: State) -> list[dict[str, Any]]:
    """Undo's events: the move taken back, then what changes back, newest first (cards
    turned face down again by pile and index only, never named)."""
    return [e.to_json() for e in before.undo_events(Move.from_json(move_json), after)]


async def list_moves(
    session: AsyncSession,
    player: Player,
    game_id: str,
    *,
    offset: int = 0,
    limit: int = MOVES_PAGE_DEFAULT,
) -> MoveLog:
    """One page of the move log: the moves with `seq` from `offset + 1` on, at most
    `limit` of them (`seq` runs 1, 2, 3, ... with no gaps, so the offset is a seq)."""
    player_id = player.id  # read once: a rollback expires the ORM object
    async with unit_of_work(session, write=False):
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
                "created_at": r.created_at,
            }
            for r in rows
        ]
        total = game.move_count
        end = offset + len(items)
        return MoveLog.model_validate(
            {
                "game_id": game.id,
                "version": game.version,
                "total": total,
                "items": items,
                "next_offset": end if items and end < total else None,
            }
        )
