"""Claims on background work, so that several instances on one database do each piece
once: a daily deal's proof (`daily`, `<variant>|<date>`) and a solvable pool's
candidate (`solvable`, `<variant>|<seq>`).

An instance claims a piece by inserting its row (`INSERT ... ON CONFLICT DO NOTHING`:
the first insert wins, on SQLite and PostgreSQL alike, and no lock outlives its
statement, so a transaction-pooling proxy in front of PostgreSQL is fine). While it
holds the claim (`kept`: waiting for a worker, then working) it renews the expiry; when done it marks the row `done`, and nobody does
that piece again. A claim that expired unfinished belongs to an instance that died: the
next to ask takes it over. Each instance names itself with an id made at start-up.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db import dialect_insert, unit_of_work
from app.models import WorkClaim, utcnow

log = logging.getLogger("app.claims")

DAILY = "daily"
SOLVABLE = "solvable"


def new_owner() -> str:
    """An instance's name in its claims."""
    return str(uuid.uuid4())


def proof_ttl(settings: Settings) -> timedelta:
    """How long a claim on a proof holds without renewal (it is renewed every third of
    this while held): several candidates' budgets."""
    return timedelta(seconds=max(30.0, 5 * settings.daily_max_seconds))


async def claim(session: AsyncSession, kind: str, subject: str, owner: str, ttl: timedelta) -> bool:
    """Take the piece of work, if nobody holds it and it is not done."""
    now = utcnow()
    async with unit_of_work(session):
        inserted = await session.execute(
            dialect_insert(session, WorkClaim)
            .on_conflict_do_nothing()
            .values(
                kind=kind,
                subject=subject,
                owner=owner,
                expires_at=now + ttl,
                done=False,
                created_at=now,
            )
        )
        if inserted.rowcount == 1:  # type: ignore[attr-defined]
            return True
        taken = await session.execute(
            update(WorkClaim)
            .where(
                WorkClaim.kind == kind,
                WorkClaim.subject == subject,
                WorkClaim.done.is_(False),
                or_(WorkClaim.expires_at < now, WorkClaim.owner == owner),
            )
            .values(owner=owner, expires_at=now + ttl)
        )
        return bool(taken.rowcount == 1)  # type: ignore[attr-defined]


async def renew(session: AsyncSession, kind: str, subject: str, owner: str, ttl: timedelta) -> bool:
    """Push the claim's expiry on; False when `owner` no longer holds it."""
    async with unit_of_work(session):
        renewed = await session.execute(
            update(WorkClaim)
            .where(
                WorkClaim.kind == kind,
                WorkClaim.subject == subject,
                WorkClaim.owner == owner,
                WorkClaim.done.is_(False),
            )
            .values(expires_at=utcnow() + ttl)
        )
    return bool(renewed.rowcount == 1)  # type: ignore[attr-defined]


@asynccontextmanager
async def kept(
    sessionmaker: async_sessionmaker[AsyncSession],
    kind: str,
    subject: str,
    owner: str,
    ttl: timedelta,
) -> AsyncIterator[None]:
    """Renew a claim every third of its time to live for as long as the block runs (the
    wait for a worker included: a claim must not expire while its work is queued)."""

    async def renewing() -> None:
        while True:
            await asyncio.sleep(ttl.total_seconds() / 3)
            try:
                async with sessionmaker() as session:
                    if not await renew(session, kind, subject, owner, ttl):
                        log.warning("claim %s %s: lost to another instance", kind, subject)
                        return
            except SQLAlchemyError as exc:  # the database away for a moment: try again
                log.warning("claim %s %s: not renewed (%s)", kind, subject, exc)

    task = asyncio.create_task(renewing(), name=f"claim {kind} {subject}")
    try:
        yield
    finally:
        task.cancel()
        # Not `await task` under suppress(CancelledError): a cancel of this task arriving
        # meanwhile would be swallowed with the renewal's, and the work would go on.
        await asyncio.wait([task])


@asynccontextmanager
async def working(
    sessionmaker: async_sessionmaker[AsyncSession],
    kind: str,
    subject: str,
    owner: str,
    ttl: timedelta,
) -> AsyncIterator[None]:
    """The work of a claim taken: renewed while the block runs (`kept`), marked done when
    it ends, given back when it fails (or is cancelled) so that another may try it."""
    try:
        async with kept(sessionmaker, kind, subject, owner, ttl):
            yield
    except BaseException:
        async with sessionmaker() as session:
            await release(session, kind, subject, owner)
        raise
    async with sessionmaker() as session:
        await finish(session, kind, subject, owner)


async def finish(session: AsyncSession, kind: str, subject: str, owner: str) -> None:
    """Done: nobody does this piece again."""
    async with unit_of_work(session):
        await session.execute(
            update(WorkClaim)
            .where(WorkClaim.kind == kind, WorkClaim.subject == subject, WorkClaim.owner == owner)
            .values(done=True)
        )


async def release(session: AsyncSession, kind: str, subject: str, owner: str) -> None:
    """Give the piece back unfinished (it failed here): another may try it."""
    async with unit_of_work(session):
        await session.execute(
            delete(WorkClaim).where(
                WorkClaim.kind == kind,
                WorkClaim.subject == subject,
                WorkClaim.owner == owner,
                WorkClaim.done.is_(False),
            )
        )


async def holder(session: AsyncSession, kind: str, subject: str) -> tuple[str, datetime] | None:
    """Who holds an unfinished claim, and until when; None when none does."""
    async with unit_of_work(session, write=False):
        row = (
            await session.execute(
                select(WorkClaim.owner, WorkClaim.expires_at).where(
                    WorkClaim.kind == kind, WorkClaim.subject == subject, WorkClaim.done.is_(False)
                )
            )
        ).one_or_none()
    return None if row is None else (row[0], row[1])
