"""The games in the database: load (and lock), versioned save, the move log. Every
statement is built once, with bound parameters (building a statement per request cost
more than running it), and the process's two small memories live here: the games as
this process last wrote them (`_Written`) and positions by their bytes (`POSITIONS`).

Concurrency: a write transaction locks the game (BEGIN IMMEDIATE on SQLite,
SELECT ... FOR UPDATE elsewhere), so concurrent moves on one game are serialised; the
save is also guarded by `UPDATE ... WHERE version = :v`.
"""

from __future__ import annotations

import uuid
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    Column,
    MetaData,
    Table,
    and_,
    bindparam,
    delete,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.types import TypeDecorator

from app.db import unit_of_work
from app.engine import State
from app.errors import GameNotFound, VersionConflict
from app.i18n import N_
from app.models import Game, utcnow
from app.models import Move as MoveRow
from app.services.games import changes
from app.services.kit.bounded_map import BoundedMap


def checked_id(game_id: str) -> str:
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

# A Core read, not the ORM's: loading through the ORM cost twice as much, and no write
# needs the session to track the game (every write is `save`'s UPDATE).
_OWNED_GAME = select(_GAMES).where(
    _GAMES.c.id == bindparam("game_id"), _GAMES.c.player_id == bindparam("player_id")
)
_OWNED_GAME_LOCKED = _OWNED_GAME.with_for_update()


async def load_owned(
    session: AsyncSession, player_id: str, game_id: str, *, lock: bool = False
) -> Game:
    """The player's game as it is now in the database: a `Game` of its own, outside the
    session (so always the row as read, and never written back by a flush)."""
    query = _OWNED_GAME_LOCKED if lock else _OWNED_GAME
    params = {"game_id": checked_id(game_id), "player_id": player_id}
    row = (await session.execute(query, params)).one_or_none()
    if row is None:
        raise GameNotFound()
    return Game(**row._mapping)


async def version_of(session: AsyncSession, player_id: str, game_id: str) -> int:
    """Only the game's version (for a cheap If-None-Match answer)."""
    version = (
        await session.execute(
            select(Game.version).where(Game.id == checked_id(game_id), Game.player_id == player_id)
        )
    ).scalar_one_or_none()
    if version is None:
        raise GameNotFound()
    return version


async def games_page(
    session: AsyncSession, player_id: str, *, after: tuple[datetime, str] | None, limit: int
) -> list[Game]:
    """Up to `limit` of the player's games, newest first, from after the (created_at, id)
    a previous page ended at: keyset pagination, so pages never overlap."""
    query = select(Game).where(Game.player_id == player_id)
    if after is not None:
        created, game_id = after
        query = query.where(
            or_(Game.created_at < created, and_(Game.created_at == created, Game.id < game_id))
        )
    query = query.order_by(Game.created_at.desc(), Game.id.desc()).limit(limit)
    return list((await session.execute(query)).scalars())


# --- the write of a game ------------------------------------------------------------


@dataclass(frozen=True)
class Locked:
    """A game loaded and locked for a write. `copied`: the game is this process's copy
    of the row as its last write left it, not read (see `_Written`)."""

    game: Game
    copied: bool = False


class _Written:
    """The games this process wrote last, as each write left its row, so that a
    game's next move need not read the row again. A copy is only a guess: every write
    of a game bumps its version and `save` writes only where the version is still the
    one read, so a move played on a stale copy fails (409) and is played again from the
    row; so is a move the copy refused (an illegal move) and a write whose checks
    (`expected_version`, a won game) the copy failed: the row's answer stands. A copy is taken out while a write uses it, and put back only once that commits."""

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
async def locked_game(
    session: AsyncSession, player_id: str, game_id: str, *, copy: bool = False
) -> AsyncIterator[Locked]:
    """One unit of work with the player's game loaded and locked: committed when the
    block ends, rolled back on error. `copy`: start from this process's copy of the game
    where it has one, unread (the caller decides again on the row whatever fails)."""
    async with unit_of_work(session):
        game = _written(session).take(game_id, player_id) if copy else None
        copied = game is not None
        if game is None:
            game = await load_owned(session, player_id, game_id, lock=True)
        yield Locked(game=game, copied=copied)
    _written(session).keep(game)  # committed: the row is as the write left it


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


async def save(session: AsyncSession, game: Game, bump: int = 1, **values: Any) -> None:
    """Write new values and bump the version (by one per move saved), only if nobody else
    did meanwhile. One UPDATE; the loaded game (outside the session, `load_owned`) takes
    the values as saved, so the answer built from it shows them."""
    old_version = game.version
    values["version"] = old_version + bump
    values["updated_at"] = utcnow()
    result = await session.execute(
        _save_statement(tuple(values)), {**values, "_id": game.id, "_old": old_version}
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise VersionConflict(N_("the game changed meanwhile; reload it"))
    for name, value in values.items():
        set_committed_value(game, name, value)
    changes.record(session, game.id, old_version, values["version"])


# --- positions ----------------------------------------------------------------------


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


POSITIONS = _Positions(size=1_000)


# --- the move log -------------------------------------------------------------------

_INSERT_MOVES = insert(_MOVES)


class _SerialisedJson(TypeDecorator[Any]):
    """A JSON column's value serialised already (in the lane): bound as it is."""

    impl = JSON
    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> None:
        return None


# The move log as a long line's insert sees it: its JSON serialised beforehand.
_SERIALISED_MOVES = Table(
    "moves",
    MetaData(),
    *(
        Column(column.name, _SerialisedJson() if isinstance(column.type, JSON) else column.type)
        for column in _MOVES.columns
        if column.name != "id"
    ),
)
_INSERT_SERIALISED_MOVES = insert(_SERIALISED_MOVES)
# Rows a statement of a serialised insert: between two, the event loop serves others.
_ROWS_A_STATEMENT = 500


async def insert_moves(
    session: AsyncSession, rows: Sequence[dict[str, Any]], *, serialised: bool = False
) -> None:
    """A bulk insert of plain rows (Core: the ORM's unit of work per object cost seconds
    for a finish's thousands of moves); one row as a plain execute, not the bulk path.
    `serialised`: the rows' JSON is text already (`Line.serialise`, done in the lane for
    a long line: on the event loop it took a third of a second for 10,000 rows); such
    rows go in statements of `_ROWS_A_STATEMENT`, and the loop serves others between."""
    if not serialised:
        await session.execute(_INSERT_MOVES, rows if len(rows) > 1 else rows[0])
        return
    for first in range(0, len(rows), _ROWS_A_STATEMENT):
        await session.execute(_INSERT_SERIALISED_MOVES, rows[first : first + _ROWS_A_STATEMENT])


async def last_move(session: AsyncSession, game_id: str) -> MoveRow | None:
    return (
        await session.execute(
            select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.seq.desc()).limit(1)
        )
    ).scalar_one_or_none()


async def delete_move(session: AsyncSession, move_id: int) -> None:
    await session.execute(delete(MoveRow).where(MoveRow.id == move_id))


async def move_texts(session: AsyncSession, game_id: str) -> list[str]:
    """The text form of every move of the log, in order (a game's record)."""
    query = select(MoveRow.text).where(MoveRow.game_id == game_id).order_by(MoveRow.seq)
    return list((await session.execute(query)).scalars())


async def line_of_play(
    session: AsyncSession, game_id: str
) -> list[tuple[bytes, dict[str, Any], datetime]]:
    """Every move of the log, in order: the position before it, the move (JSON), when it
    was played (a win's judging: `ranking.judge_win`)."""
    query = (
        select(MoveRow.state_before, MoveRow.move, MoveRow.created_at)
        .where(MoveRow.game_id == game_id)
        .order_by(MoveRow.seq)
    )
    return [(bytes(b), m, at) for b, m, at in (await session.execute(query)).all()]


async def moves_page(
    session: AsyncSession, game_id: str, *, offset: int, limit: int
) -> Sequence[MoveRow]:
    """The moves with `seq` from `offset + 1` on, at most `limit` of them."""
    query = (
        select(MoveRow)
        .where(MoveRow.game_id == game_id, MoveRow.seq > offset)
        .order_by(MoveRow.seq)
        .limit(limit)
    )
    return (await session.execute(query)).scalars().all()
