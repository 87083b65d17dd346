"""Claims on background work, so that several instances on one database do each piece
once: a daily deal's proof (`daily`, `<variant>|<date>`) and a solvable pool's
candidate (`solvable`, `<variant>|<seq>`).

An instance claims a piece by inserting its row (`INSERT ... ON CONFLICT DO NOTHING`:
the first insert wins, on SQLite and PostgreSQL alike, and no lock outlives its
statement, so a transaction-pooling proxy in front of PostgreSQL is fine). While it
works it renews the claim's expiry; when done it marks the row `done`, and nobody does
that piece again. A claim that expired unfinished belongs to an instance that died: the
next to ask takes it over. Each instance names itself with an id made at start-up.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.models import WorkClaim, utcnow
from app.services.knowledge import insert_ignoring_conflicts

DAILY = "daily"
SOLVABLE = "solvable"


def new_owner() -> str:
    """An instance's name in its claims."""
    return str(uuid.uuid4())


async def claim(session: AsyncSession, kind: str, subject: str, owner: str, ttl: timedelta) -> bool:
    """Take the piece of work, if nobody holds it and it is not done."""
    now = utcnow()
    async with unit_of_work(session):
        inserted = await session.execute(
            insert_ignoring_conflicts(session, WorkClaim).values(  # type: ignore[attr-defined]
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


async def renew(session: AsyncSession, kind: str, subject: str, owner: str, ttl: timedelta) -> None:
    async with unit_of_work(session):
        await session.execute(
            update(WorkClaim)
            .where(WorkClaim.kind == kind, WorkClaim.subject == subject, WorkClaim.owner == owner)
            .values(expires_at=utcnow() + ttl)
        )


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
