"""One reader of the watched games' versions for all the live streams of a process.

A stream waits on the notifier only; what the notifier cannot know (a change made by
another process on the same SQLite file; on PostgreSQL, a notification lost while the
listening connection was down) is found here: every `period` seconds, the versions of
every game a stream of this process watches are read in one query (`CHUNK` ids a
statement), and the streams of each game whose version moved past the one its streams
were last told of are woken to read it. Idle streams thus cost one indexed read a period
for the whole process, not one a stream.

The reading task starts with the first watched game and ends at the first period that
finds none watched. A failed read (the database away) is logged and tried again the
next period; the streams wait meanwhile, and are woken once it reads again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import unit_of_work
from app.models import Game
from app.services.games.changes import Change, LocalNotifier

log = logging.getLogger("app.streams")

# Game ids a statement (SQLite's oldest builds take 999 parameters).
CHUNK = 500
# After the first failed read in a row, one warning every this many.
WARN_EVERY = 60


@dataclass
class _Watched:
    streams: int
    # The version the game's streams are known to have (the lowest they opened at), or
    # were last woken for: a read of a newer one wakes them.
    seen: int


class VersionWatcher:
    """The games the streams of this process watch, read every `period` seconds."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        notifier: LocalNotifier,
        period: float,
    ) -> None:
        self._sessions = sessions
        self._notifier = notifier
        self.period = period
        self._games: dict[str, _Watched] = {}
        self._task: asyncio.Task[None] | None = None
        self._failures = 0
        self.reads = 0  # rounds read (for tests and figures)

    @property
    def watched(self) -> int:
        """Games watched now."""
        return len(self._games)

    @property
    def running(self) -> bool:
        """Is the reading task alive (it ends a period after the last game left)?"""
        return self._task is not None

    @contextmanager
    def watch(self, game_id: str, version: int) -> Iterator[None]:
        """The game watched for a stream that has `version`, for the block's duration."""
        watched = self._games.get(game_id)
        if watched is None:
            self._games[game_id] = _Watched(streams=1, seen=version)
        else:
            watched.streams += 1
            watched.seen = min(watched.seen, version)
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="stream-versions")
        try:
            yield
        finally:
            watched = self._games[game_id]
            watched.streams -= 1
            if not watched.streams:
                del self._games[game_id]

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        try:
            while True:
                await asyncio.sleep(self.period)
                if not self._games:
                    return  # the next watched game starts another
                await self._read_guarded()
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    async def _read_guarded(self) -> None:
        try:
            await self.read()
        except Exception as exc:  # the database away: the streams wait for the next period
            self._failures += 1
            if self._failures % WARN_EVERY == 1:
                log.warning(
                    "reading the versions of %d watched games failed (%d in a row): %s; "
                    "again every %.1f s",
                    len(self._games),
                    self._failures,
                    exc,
                    self.period,
                )
        else:
            if self._failures:
                log.warning("the watched games' versions are read again")
            self._failures = 0

    async def read(self) -> None:
        """One round: read the watched games' versions, wake the streams of those that
        moved on."""
        ids = list(self._games)
        versions: dict[str, int] = {}
        async with self._sessions() as session, unit_of_work(session, write=False):
            for start in range(0, len(ids), CHUNK):
                rows = await session.execute(
                    select(Game.id, Game.version).where(Game.id.in_(ids[start : start + CHUNK]))
                )
                versions.update((game_id, version) for game_id, version in rows)
        self.reads += 1
        for game_id, version in versions.items():
            watched = self._games.get(game_id)  # its streams may have ended meanwhile
            if watched is not None and version > watched.seen:
                watched.seen = version
                self._notifier.wake(Change(game_id, before=-1, version=version))
