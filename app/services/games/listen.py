"""Changes of games across instances on one PostgreSQL: `LISTEN`/`NOTIFY`.

Every instance holds one connection of its own (outside the pool) that listens on the
channel `game_changes`. A committed change is published to this instance's streams at
once (`LocalNotifier`) and sent to the others with `pg_notify`: a queue drained by one
task, several changes a statement. Each notification carries the change (game, versions,
the answer's events when they fit PostgreSQL's 8,000-byte payload) and the sending
instance's name, so an instance skips its own.

A notification is a wake-up, not the record: the database stays the authority, and a
stream reads the game when woken. What can be missed is covered thus: while the
listening connection is down (PostgreSQL restarted, the network cut), it is opened again
with a growing pause, and on every (re)connection every stream of this instance is
woken to read its game afresh; and the versions of the games watched here are still
read every `resync_seconds` (`VersionWatcher`, one read for all the streams), a slower
period than SQLite's.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import secrets
from typing import Any

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine

from app.services.games.changes import Change, LocalNotifier

log = logging.getLogger("app.streams")

CHANNEL = "game_changes"
# PostgreSQL refuses a payload of 8,000 bytes or more: past this, the events are left
# out (the stream then sends the state alone, as after coalesced changes).
MAX_PAYLOAD = 7_500
# Changes waiting to be sent; past this a change is dropped (the resync poll finds it).
MAX_QUEUED = 10_000
# Pauses between attempts to open the listening connection again, in seconds.
RECONNECT_PAUSES = (0.1, 0.5, 1.0, 2.0, 5.0)


def encode(change: Change, origin: str) -> str:
    message: dict[str, Any] = {
        "o": origin,
        "g": change.game_id,
        "b": change.before,
        "v": change.version,
    }
    if change.events is not None:
        message["e"] = change.events
    payload = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    if len(payload.encode()) > MAX_PAYLOAD:
        del message["e"]
        payload = json.dumps(message, separators=(",", ":"))
    return payload


def decode(payload: str) -> tuple[str, Change] | None:
    """The origin and change of a notification; None for one that is not ours."""
    try:
        message = json.loads(payload)
        events = message.get("e")
        change = Change(
            game_id=str(message["g"]),
            before=int(message["b"]),
            version=int(message["v"]),
            events=tuple(events) if isinstance(events, list) else None,
        )
        return str(message["o"]), change
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def connect_arguments(engine: AsyncEngine) -> dict[str, Any]:
    """The engine's own connection arguments, as `asyncpg.connect` takes them (the
    dialect adds options of its pool that asyncpg does not know)."""
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    accepted = inspect.signature(asyncpg.connect).parameters
    return {key: value for key, value in kwargs.items() if key in accepted}


class PostgresNotifier(LocalNotifier):
    """A `LocalNotifier` whose changes also reach, and come from, the other instances
    on the same PostgreSQL."""

    def __init__(self, connect_kwargs: dict[str, Any]) -> None:
        super().__init__()
        self.origin = secrets.token_hex(8)
        self._connect_kwargs = connect_kwargs
        self._outbox: asyncio.Queue[str] = asyncio.Queue(MAX_QUEUED)
        self._connection: asyncpg.Connection | None = None
        self._connected = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.received = 0  # notifications from other instances (for tests and figures)

    async def start(self, timeout: float = 10.0) -> None:
        """Listening before the first request: the first connection must open."""
        self._tasks.append(asyncio.create_task(self._listen(), name="game-changes-listen"))
        self._tasks.append(asyncio.create_task(self._send(), name="game-changes-send"))
        await asyncio.wait_for(self._connected.wait(), timeout)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    def publish(self, change: Change) -> None:
        super().publish(change)
        try:
            self._outbox.put_nowait(encode(change, self.origin))
        except asyncio.QueueFull:
            log.warning("game change of %s not sent to other instances: queue full", change.game_id)

    # --- the listening connection -------------------------------------------------

    async def _listen(self) -> None:
        attempt = 0
        while True:
            try:
                connection = await asyncpg.connect(**self._connect_kwargs)
            except (OSError, asyncpg.PostgresError) as exc:
                pause = RECONNECT_PAUSES[min(attempt, len(RECONNECT_PAUSES) - 1)]
                log.warning("listening for game changes: %s; again in %.1f s", exc, pause)
                attempt += 1
                await asyncio.sleep(pause)
                continue
            attempt = 0
            try:
                await self._listen_on(connection)
            except (OSError, asyncpg.PostgresError) as exc:
                log.warning("listening for game changes: %s", exc)
            finally:
                self._connection = None
                self._connected.clear()
                with contextlib.suppress(Exception):
                    await connection.close(timeout=1)

    async def _listen_on(self, connection: asyncpg.Connection) -> None:
        """Until the connection is lost."""
        lost = asyncio.Event()
        connection.add_termination_listener(lambda _connection: lost.set())
        await connection.add_listener(CHANNEL, self._received)
        self._connection = connection
        self._connected.set()
        self._wake_everyone()  # what came while nobody listened
        await lost.wait()
        log.warning("the connection listening for game changes was lost")

    def _received(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        decoded = decode(payload)
        if decoded is None:
            return
        origin, change = decoded
        if origin == self.origin:
            return  # published here already, before it was sent
        self.received += 1
        LocalNotifier.publish(self, change)

    def _wake_everyone(self) -> None:
        for game_id in list(self._subscribers):
            self.wake(Change(game_id, before=-1, version=-1))

    # --- sending ------------------------------------------------------------------

    async def _send(self) -> None:
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 100:
                batch.append(self._outbox.get_nowait())
            await self._connected.wait()
            connection = self._connection
            if connection is None:
                continue
            try:
                await connection.execute(
                    f"SELECT pg_notify('{CHANNEL}', payload) FROM unnest($1::text[]) AS payload",
                    batch,
                )
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                # The others' resync (on their reconnection, or their poll) finds these.
                log.warning("%d game changes not sent to other instances: %s", len(batch), exc)
