"""Database engine, sessions and start-up migrations.

SQLite gets WAL, a busy timeout and explicit BEGIN handling so that a write
transaction can start with `BEGIN IMMEDIATE`: writers then queue on the lock
instead of failing with "database is locked" when two moves race.

A lock waited for past its bound (SQLite's busy timeout, PostgreSQL's `lock_timeout`;
a lock held that long is someone else's long transaction, a backup, an operator's
shell) or a pool with no connection free in time is a busy database (`is_busy`): the
request is answered 503 `database_busy` and `/health` says degraded until a write
commits again (`WRITES`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from app.config import Settings, make_private

log = logging.getLogger("app.db")

ROOT = Path(__file__).resolve().parent.parent

# The advisory lock key instances take while migrating PostgreSQL (any fixed number).
MIGRATION_LOCK = 0x50_4C_41_59  # "PLAY"

# Execution option read by the "begin" listener on SQLite.
SQLITE_BEGIN = "sqlite_begin"

# SQLSTATEs of a busy PostgreSQL: lock_timeout passed (55P03), a deadlock broken (40P01).
_BUSY_SQLSTATES = frozenset({"55P03", "40P01"})


def is_busy(exc: BaseException) -> bool:
    """Did `exc` come of a database too busy to answer in time (a lock waited for past
    its bound, no pooled connection free), rather than of a fault?"""
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    original: BaseException | None = exc.orig
    while original is not None:
        if getattr(original, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED"):
            return True
        if getattr(original, "sqlstate", None) in _BUSY_SQLSTATES:
            return True
        if "database is locked" in str(original):
            return True
        original = original.__cause__
    return False


class WriteHealth:
    """Whether this process's writes go through (what `/health` reports): failing from a
    write refused busy until a write commits, or `quiet_seconds` pass with no other
    refusal (an instance that writes seldom must not say degraded for good)."""

    def __init__(self, quiet_seconds: float = 30.0) -> None:
        self.quiet_seconds = quiet_seconds
        self._refused_at: float | None = None

    @property
    def failing(self) -> bool:
        refused = self._refused_at
        return refused is not None and time.monotonic() - refused < self.quiet_seconds

    def committed(self) -> None:
        self._refused_at = None

    def refused(self) -> None:
        self._refused_at = time.monotonic()


WRITES = WriteHealth()

# `session.info` key of what runs once the unit of work commits (`on_commit`).
_ON_COMMIT = "on_commit"


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def create_engine(url: str, settings: Settings) -> AsyncEngine:
    if is_sqlite(url):
        database = make_url(url).database
        if database and database != ":memory:" and not database.startswith("file:"):
            private_sqlite_file(Path(database))
        engine = create_async_engine(url, connect_args={"timeout": 30})
        _configure_sqlite(engine, settings.sqlite_busy_timeout_ms, settings.sqlite_synchronous)
        return engine
    # A row lock waited for past `postgres_lock_timeout_ms` fails the statement (busy)
    # instead of holding the request, and its connection, for as long as it is held.
    lock_timeout = {"server_settings": {"lock_timeout": str(settings.postgres_lock_timeout_ms)}}
    return create_async_engine(
        url,
        pool_size=settings.db_pool_size,
        max_overflow=5,
        pool_pre_ping=True,
        connect_args=lock_timeout if make_url(url).get_backend_name() == "postgresql" else {},
    )


def private_sqlite_file(path: Path) -> None:
    """Creates the database file 0600 before SQLite opens it (SQLite gives its -wal and
    -shm files the database file's mode), in a folder 0700 when it makes one, and
    tightens the files an older version left open to others."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))  # an empty file is an empty database
    for suffix in ("", "-wal", "-shm", "-journal"):
        make_private(path.with_name(path.name + suffix))


def _configure_sqlite(engine: AsyncEngine, busy_timeout_ms: int, synchronous: str) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take BEGIN out of the driver's hands so that we can choose IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA synchronous={synchronous}")  # a Literal of the settings
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get(SQLITE_BEGIN, "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")


class Database:
    """The engine and session factory of one running app."""

    def __init__(self, url: str, settings: Settings) -> None:
        self.url = url
        self.engine = create_engine(url, settings)
        self.sessionmaker = async_sessionmaker(self.engine, expire_on_commit=False)

    @property
    def is_sqlite(self) -> bool:
        return is_sqlite(self.url)

    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessionmaker() as session:
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()


async def begin_write(session: AsyncSession) -> None:
    """Open the session's transaction as a writer (BEGIN IMMEDIATE on SQLite).

    Must be the first thing done with a fresh session; a no-op elsewhere.
    """
    await session.connection(execution_options={SQLITE_BEGIN: "IMMEDIATE"})


@asynccontextmanager
async def unit_of_work(session: AsyncSession, *, write: bool = True) -> AsyncIterator[AsyncSession]:
    """One transaction, the only way the services run one: committed when the block ends,
    rolled back on any error (an `ApiError` included), so nothing half-done is kept and
    nothing acknowledged is lost (the answer is built only after the commit returns).

    `write`: open as a writer (BEGIN IMMEDIATE on SQLite, so writers queue on the lock
    instead of failing with "database is locked"; rows are locked with FOR UPDATE on
    PostgreSQL). `write=False`: a read whose snapshot ends with the block, for reads
    followed by slow work (a search, a proof) that must hold no connection meanwhile.

    A transaction the session already has (the authentication's read) is ended first:
    the unit starts afresh and sees the newest committed data.

    A transaction's end (commit or rollback, and the connection's return to the pool
    with it) runs to completion even when the task is cancelled meanwhile (a stream
    whose client left); the cancellation is raised after it.
    """
    try:
        if session.in_transaction():
            await _to_completion(session.commit())
        if write:
            await begin_write(session)
        yield session
    except BaseException as exc:
        session.info.pop(_ON_COMMIT, None)
        await _to_completion(session.rollback())
        if write and is_busy(exc):
            WRITES.refused()
        raise
    try:
        await _to_completion(session.commit())
    except Exception as exc:
        await _to_completion(session.rollback())
        if write and is_busy(exc):
            WRITES.refused()
        raise
    if write:
        WRITES.committed()
    for callback in session.info.pop(_ON_COMMIT, {}).values():
        try:
            callback()
        except Exception:  # what the commit made durable stands whatever a listener does
            log.exception("an on-commit callback failed")


async def _to_completion(end: Coroutine[Any, Any, None]) -> None:
    """Runs `end` in a task of its own and waits for it even if cancelled meanwhile, then
    raises the cancellation. Cut short, a commit's or rollback's return of the connection
    to the pool fails half done: SQLAlchemy logs an ERROR and drops the connection (as
    its own `AsyncSession.close` on leaving `async with` does, `_run_to_completion`)."""
    task = asyncio.ensure_future(end)
    cancelled: asyncio.CancelledError | None = None
    while True:
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError as exc:
            if task.done():
                raise
            cancelled = exc  # a cancel scope repeats it at every await: wait on
        else:
            break
    if cancelled is not None:
        raise cancelled


T = TypeVar("T", bound=Callable[[], None])


def on_commit(session: AsyncSession, key: str, make: Callable[[], T]) -> T:
    """The callback kept under `key` for the session's unit of work (made by `make` the
    first time), called once the unit commits and dropped if it rolls back: what a write
    tells others (a game's live streams) is told only once it is durable."""
    callbacks: dict[str, Any] = session.info.setdefault(_ON_COMMIT, {})
    callback = callbacks.get(key)
    if callback is None:
        callback = callbacks[key] = make()
    return cast(T, callback)


def dialect_insert(session: AsyncSession, table: Any) -> Any:
    """An INSERT in the session's own dialect, for its ON CONFLICT clauses (PostgreSQL's
    and SQLite's take the same form)."""
    module = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    return module.insert(table)


def masked_url(url: str) -> str:
    """A database URL fit for a log: any password shown as ***."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy reads: say nothing of what it holds
        return "<unreadable database URL>"


def alembic_config(url: str) -> Config:
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


async def upgrade_to_head(engine: AsyncEngine, revision: str = "head") -> None:
    """Apply the Alembic migrations on `engine` (the only way the schema is made)."""

    def _upgrade(connection: Connection) -> None:
        if connection.dialect.name == "postgresql":
            # Instances starting together migrate one after another: the first applies
            # what is missing, the others then find the schema at head. A lock of this
            # transaction only (the DDL's own, on PostgreSQL): nothing outlives it, behind
            # a transaction-pooling proxy too.
            # No lock_timeout here: an instance waits for another's migration to end.
            connection.exec_driver_sql("SET LOCAL lock_timeout = 0")
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        cfg = alembic_config(str(engine.url.render_as_string(hide_password=False)))
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, revision)

    async with engine.begin() as conn:
        await conn.run_sync(_upgrade)
