"""The one queue of background work: jobs in the database (`jobs`), shared by every
process that works them (docs/decisions/0015-job-queue.md).

A job is a piece of work named by `kind` and `subject`, one row each: a daily deal
(`daily`, `<variant>|<date>|<slot>`), a game's solvable pools (`solvable`, `<variant>`),
an analysis (`analysis`, `<game id>|<line>`). `enqueue` queues it, or raises the
priority of one already queued or running (the lower number wins), or queues a finished
one again: whoever needs the work says so, and one row keeps it whatever the number of
askers. `take` gives a worker the next job by priority, then by how long it has been
queued: in one write transaction, `FOR UPDATE SKIP LOCKED` on PostgreSQL (concurrent
takers skip each other's row), under SQLite's one write lock (`BEGIN IMMEDIATE`)
there. The worker renews its lease while it works (`renew`), and `finish`es or `fail`s
it; a job whose lease ran out (its worker died) is taken again, `MAX_ATTEMPTS` times at
most, then `failed` with its last error kept.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, case, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import dialect_insert, unit_of_work
from app.models import Job, utcnow

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
KINDS = ("daily", "solvable", "analysis")
# A job taken this many times without finishing (its worker died each time, or it
# raised) is failed, not taken again.
MAX_ATTEMPTS = 3
# After a failure, a job waits this long times its attempts before it is taken again.
RETRY_PAUSE = timedelta(seconds=10)
# Finished jobs are kept this long (their timings), then deleted.
KEEP_FINISHED = timedelta(days=7)


def new_owner() -> str:
    """A worker's name in the jobs it holds (one per process, made at start-up)."""
    return str(uuid.uuid4())


# Told of each job this process queues (its runner, where it has one, looks at once).
Queued = Callable[[str, str, int], None]


def unheard(kind: str, subject: str, priority: int) -> None:
    """The `Queued` of a process without a runner: another process takes the job."""


@dataclass
class Taken:
    """A job a worker holds: its priority is kept up to date while it runs (a player who
    starts waiting for it raises it), so its units of work queue as it says."""

    kind: str
    subject: str
    priority: int
    attempts: int


async def enqueue(
    session: AsyncSession, kind: str, subject: str, priority: int, *, after: datetime | None = None
) -> None:
    """Queue the job (not before `after`), in a unit of work of its own. One queued or
    running keeps the more urgent of its priority and this one; a finished one is queued
    afresh."""
    now = utcnow()
    run_after = after or now
    async with unit_of_work(session):
        await enqueue_in(session, kind, subject, priority, now=now, run_after=run_after)


async def enqueue_in(
    session: AsyncSession,
    kind: str,
    subject: str,
    priority: int,
    *,
    now: datetime | None = None,
    run_after: datetime | None = None,
) -> None:
    """`enqueue` within the caller's unit of work (queued with what it writes)."""
    now = now or utcnow()
    run_after = run_after or now
    insert = dialect_insert(session, Job).values(
        kind=kind,
        subject=subject,
        priority=priority,
        state=QUEUED,
        attempts=0,
        run_after=run_after,
        created_at=now,
        queued_at=now,
    )
    new = insert.excluded
    finished = Job.state.in_((DONE, FAILED))
    sooner = case((new.run_after < Job.run_after, new.run_after), else_=Job.run_after)
    await session.execute(
        insert.on_conflict_do_update(
            index_elements=[Job.kind, Job.subject],
            set_={
                "priority": case(
                    (finished, new.priority),
                    (new.priority < Job.priority, new.priority),
                    else_=Job.priority,
                ),
                "state": case((finished, QUEUED), else_=Job.state),
                "attempts": case((finished, 0), else_=Job.attempts),
                "queued_at": case((finished, now), else_=Job.queued_at),
                "run_after": case((finished, new.run_after), else_=sooner),
                "error": case((finished, None), else_=Job.error),
            },
        )
    )


async def take(
    session: AsyncSession, owner: str, lease: timedelta, priorities: list[int]
) -> Taken | None:
    """The next job of one of `priorities` for worker `owner` (most urgent, then longest
    queued), leased for `lease`; None when there is none. A job whose lease ran out is
    taken again, or failed once it has been taken `MAX_ATTEMPTS` times."""
    now = utcnow()
    ready = or_(
        and_(Job.state == QUEUED, Job.run_after <= now),
        and_(Job.state == RUNNING, Job.lease_until < now),
    )
    # A read first: an idle worker's looks take no write lock (SQLite has one).
    async with unit_of_work(session, write=False):
        found = select(Job.kind).where(ready, Job.priority.in_(priorities)).limit(1)
        if (await session.execute(found)).first() is None:
            return None
    async with unit_of_work(session):
        while True:
            query = (
                select(Job.kind, Job.subject, Job.priority, Job.attempts, Job.state)
                .where(ready, Job.priority.in_(priorities))
                .order_by(Job.priority, Job.queued_at)
                .limit(1)
                .with_for_update(skip_locked=True)
            )
            row = (await session.execute(query)).one_or_none()
            if row is None:
                return None
            kind, subject, priority, attempts, state = row
            where = and_(Job.kind == kind, Job.subject == subject)
            if state == RUNNING and attempts >= MAX_ATTEMPTS:
                error = f"its worker stopped {attempts} times before it finished"
                await session.execute(
                    update(Job)
                    .where(where)
                    .values(
                        state=FAILED, owner=None, lease_until=None, finished_at=now, error=error
                    )
                )
                continue
            await session.execute(
                update(Job)
                .where(where)
                .values(
                    state=RUNNING,
                    owner=owner,
                    lease_until=now + lease,
                    attempts=attempts + 1,
                    started_at=now,
                )
            )
            return Taken(kind, subject, priority, attempts + 1)


async def renew(session: AsyncSession, job: Taken, owner: str, lease: timedelta) -> bool:
    """Push the lease on; False when `owner` no longer holds the job."""
    async with unit_of_work(session):
        renewed = await session.execute(
            update(Job)
            .where(
                Job.kind == job.kind,
                Job.subject == job.subject,
                Job.owner == owner,
                Job.state == RUNNING,
            )
            .values(lease_until=utcnow() + lease)
        )
    return bool(renewed.rowcount == 1)  # type: ignore[attr-defined]


async def priority_of(session: AsyncSession, kind: str, subject: str) -> int | None:
    """The job's priority now (raised by whoever waits for it); None when there is none."""
    async with unit_of_work(session, write=False):
        query = select(Job.priority).where(Job.kind == kind, Job.subject == subject)
        return (await session.execute(query)).scalar_one_or_none()


async def state_of(session: AsyncSession, kind: str, subject: str) -> str | None:
    async with unit_of_work(session, write=False):
        query = select(Job.state).where(Job.kind == kind, Job.subject == subject)
        return (await session.execute(query)).scalar_one_or_none()


async def busy(session: AsyncSession, kind: str, priority: int) -> set[str]:
    """The subjects of the jobs of `kind` queued or running at `priority` or more urgent."""
    async with unit_of_work(session, write=False):
        query = select(Job.subject).where(
            Job.kind == kind, Job.state.in_((QUEUED, RUNNING)), Job.priority <= priority
        )
        return set((await session.execute(query)).scalars())


async def lower(session: AsyncSession, job: Taken, below: int, to: int) -> None:
    """Set the job's priority back to `to` where it is more urgent than `below` (the
    work someone waited for is done; who still waits raises it again)."""
    async with unit_of_work(session):
        await session.execute(
            update(Job)
            .where(Job.kind == job.kind, Job.subject == job.subject, Job.priority < below)
            .values(priority=to)
        )
    job.priority = to


async def _end(session: AsyncSession, job: Taken, owner: str, **values: object) -> None:
    async with unit_of_work(session):
        await session.execute(
            update(Job)
            .where(Job.kind == job.kind, Job.subject == job.subject, Job.owner == owner)
            .values(owner=None, lease_until=None, **values)
        )


async def finish(session: AsyncSession, job: Taken, owner: str) -> None:
    """Done (until somebody queues it again)."""
    await _end(session, job, owner, state=DONE, finished_at=utcnow(), error=None)


async def fail(session: AsyncSession, job: Taken, owner: str, error: str) -> None:
    """It raised: queued again after a pause, or failed after `MAX_ATTEMPTS`."""
    now = utcnow()
    if job.attempts >= MAX_ATTEMPTS:
        await _end(session, job, owner, state=FAILED, finished_at=now, error=error[:2000])
    else:
        after = now + RETRY_PAUSE * job.attempts
        await _end(session, job, owner, state=QUEUED, run_after=after, error=error[:2000])


async def release(session: AsyncSession, job: Taken, owner: str) -> None:
    """Given back unfinished through no fault of its own (its worker stops): queued
    again at once, the attempt not counted."""
    await _end(session, job, owner, state=QUEUED, attempts=max(0, job.attempts - 1))


async def purge(session: AsyncSession) -> int:
    """Delete jobs finished more than `KEEP_FINISHED` ago; how many."""
    async with unit_of_work(session):
        gone = await session.execute(
            delete(Job).where(
                Job.state.in_((DONE, FAILED)), Job.finished_at < utcnow() - KEEP_FINISHED
            )
        )
    return int(gone.rowcount or 0)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class QueueSnapshot:
    """Jobs queued and running by (kind, priority), and the longest wait of a queued job
    by priority (seconds)."""

    queued: dict[tuple[str, int], int]
    running: dict[tuple[str, int], int]
    oldest: dict[int, float]


async def snapshot(session: AsyncSession) -> QueueSnapshot:
    now = utcnow()
    queued: dict[tuple[str, int], int] = {}
    running: dict[tuple[str, int], int] = {}
    oldest: dict[int, float] = {}
    async with unit_of_work(session, write=False):
        rows = await session.execute(
            select(Job.kind, Job.priority, Job.state, func.count(), func.min(Job.queued_at))
            .where(Job.state.in_((QUEUED, RUNNING)))
            .group_by(Job.kind, Job.priority, Job.state)
        )
        for kind, priority, state, count, first in rows:
            if state == RUNNING:
                running[(kind, priority)] = int(count)
                continue
            queued[(kind, priority)] = int(count)
            waited = (now - first).total_seconds()  # min() keeps the column's UTC type
            oldest[priority] = max(oldest.get(priority, 0.0), waited)
    return QueueSnapshot(queued, running, oldest)
