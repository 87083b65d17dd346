"""The stored answers of requests sent with an `Idempotency-Key`, and their bounds.

An answer is stored whole (a few KB) in the transaction of the write it answers
(`app.services.games.writes.write_game`, which also replays it). What bounds them:

- time: an answer older than `IDEMPOTENCY_TTL_HOURS` is never replayed (the key is a new
  request then), and expired answers are deleted in the background every
  `IDEMPOTENCY_SWEEP_SECONDS` by every instance (`AnswerSweeper`; a DELETE by age is
  safe to run from several instances at once);
- number: a player keeps at most `IDEMPOTENCY_MAX_PER_PLAYER` answers; storing one more
  deletes their oldest, in the same transaction (`keep_newest`: one statement, read off
  the (player_id, created_at) index). On PostgreSQL, writes of one player committing at
  once each count without the others' new rows, so up to one more per such write may
  stay until the player's next keyed write.

So a client can rely on a retry within the TTL, and within its last N keys, replaying.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import unit_of_work
from app.models import IdempotencyKey, utcnow

log = logging.getLogger(__name__)


def fingerprint(method: str, path: str, payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{method} {path}\n{canonical}".encode()).hexdigest()


@dataclass(frozen=True)
class Idempotency:
    """A request's key and fingerprint, and how its player's answers are kept: each is
    replayed for `ttl`, and only the player's `keep` newest are."""

    key: str
    fingerprint: str
    ttl: timedelta
    keep: int


def expired(created_at: datetime, ttl: timedelta) -> bool:
    return created_at < utcnow() - ttl


async def forget(session: AsyncSession, row_id: int) -> None:
    await session.execute(delete(IdempotencyKey).where(IdempotencyKey.id == row_id))


# Built once (run with every keyed write). The player's rows past their `keep` newest,
# read off the (player_id, created_at) index; the id breaks ties of one instant.
_KEYS = IdempotencyKey.__table__.c
_BEYOND_NEWEST = (
    select(_KEYS.id)
    .where(_KEYS.player_id == bindparam("player_id"))
    .order_by(_KEYS.created_at.desc(), _KEYS.id.desc())
    .offset(bindparam("keep"))
)
_DROP_BEYOND_NEWEST = delete(IdempotencyKey).where(IdempotencyKey.id.in_(_BEYOND_NEWEST))


async def keep_newest(session: AsyncSession, player_id: str, keep: int) -> None:
    """Delete the player's stored answers beyond their `keep` newest, in the caller's
    transaction (the one that stored a new answer)."""
    await session.execute(_DROP_BEYOND_NEWEST, {"player_id": player_id, "keep": keep})


async def prune_idempotency_keys(session: AsyncSession, older_than: timedelta) -> int:
    """Delete stored answers older than `older_than` (never replayed any more)."""
    async with unit_of_work(session):
        result = await session.execute(
            delete(IdempotencyKey).where(IdempotencyKey.created_at < utcnow() - older_than)
        )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


class AnswerSweeper:
    """Deletes expired answers every `every_s` seconds while the app runs (started and
    closed by the lifespan). A failed sweep is logged and tried again next time."""

    def __init__(
        self, sessionmaker: async_sessionmaker[AsyncSession], ttl: timedelta, every_s: float
    ) -> None:
        self._sessionmaker, self.ttl, self.every_s = sessionmaker, ttl, every_s
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="idempotency-sweeper")

    async def close(self) -> None:
        if self.task is None:
            return
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task

    async def sweep(self) -> int:
        async with self._sessionmaker() as session:
            return await prune_idempotency_keys(session, self.ttl)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                swept = await self.sweep()
            except Exception:
                log.exception("sweeping expired idempotent answers failed")
                continue
            if swept:
                log.info("swept %d expired idempotent answers", swept)
