"""The worker side of the job queue (`services.background.jobs`): takes jobs and runs them, in any
process whose background lane is on (`BACKGROUND_WORK`, the default) and in
`python -m app.worker`.

Each job runs as a task of its own; its CPU work goes to the process's `WorkPool` in
units (a candidate's proof, a position's search) queued at the job's priority, so the
pool's line, not the number of jobs, decides what runs first. Jobs a player waits for
(`ANALYSIS`, `DAILY`, `WAITING`) are taken as soon as they are queued, however many run,
and so are today's first daily deals (`TODAY`: nine short jobs a day) and the pools'
refills (`REFILL`: at most one job per game, whose units then take turns, so every game
players ask for gets its first deals of each rating early, not one game after another);
the work nobody waits for (`AHEAD`: dozens of daily deals of later days and other
ratings) at most `speculative_slots` jobs at once.

While a job runs, its lease is renewed and its priority read again every second (a
player who starts waiting for it, on any instance, raises it in the table). New jobs are
noticed at once when this process queued them (`wake`), else within `poll_seconds`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.services.background import jobs
from app.services.background.cpu_pool import AHEAD, ANALYSIS, DAILY, REFILL, TODAY, WAITING
from app.services.background.jobs import Taken

# Its lines name a job by its subject: a variant and a date, or a game id and a line;
# never a deal number.
log = logging.getLogger("app.jobs")

Handler = Callable[[Taken], Awaitable[None]]

# Jobs a player waits for run at once, up to this many in one process (each is mostly a
# ticket in the pool's line: bounded anyway by what players may ask).
MAX_RUNNING = 64
# Finished jobs are purged this often.
PURGE_SECONDS = 3600.0


class JobRunner:
    """Takes and runs jobs for one process (`owner` names it in the table)."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        owner: str,
        handlers: dict[str, Handler],
        *,
        lease_seconds: float = 30.0,
        poll_seconds: float = 1.0,
        speculative_slots: int = 1,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.owner = owner
        self.handlers = handlers
        self.lease = timedelta(seconds=lease_seconds)
        self.poll_seconds = poll_seconds
        self.speculative_slots = max(1, speculative_slots)
        self._running: dict[tuple[str, str], tuple[Taken, asyncio.Task[None]]] = {}
        self._wake = asyncio.Event()
        # Set by `close`: the loop and the leases' keepers end between two reads (a task
        # cancelled inside a database call may leave its connection, and SQLite's write
        # lock, behind).
        self._stopping = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._purged = 0.0

    def wake(self) -> None:
        """A job was queued here: look now."""
        self._wake.set()

    def raised(self, kind: str, subject: str, priority: int) -> None:
        """A job this process runs was raised to `priority` here: its next units queue
        at it at once (other processes' raises are read within a second)."""
        running = self._running.get((kind, subject))
        if running is not None and priority < running[0].priority:
            running[0].priority = priority

    def _priorities(self) -> list[int]:
        """The priorities this process takes a job of now (module docstring)."""
        busy = [job.priority for job, _task in self._running.values()]
        if len(busy) >= MAX_RUNNING:
            return []
        allowed = [ANALYSIS, DAILY, WAITING, TODAY, REFILL]
        if busy.count(AHEAD) < self.speculative_slots:
            allowed.append(AHEAD)
        return allowed

    async def take_all(self) -> None:
        """Take every job this process may run now."""
        while priorities := self._priorities():
            async with self.sessionmaker() as session:
                job = await jobs.take(session, self.owner, self.lease, priorities)
            if job is None:
                break
            if job.kind not in self.handlers:
                async with self.sessionmaker() as session:
                    await jobs.fail(session, job, self.owner, f"no handler for {job.kind}")
                continue
            task = asyncio.create_task(self._run(job), name=f"job {job.kind} {job.subject}")
            self._running[(job.kind, job.subject)] = (job, task)
            if self._stopping.is_set():
                break

    async def _run(self, job: Taken) -> None:
        done = asyncio.Event()
        keeper = asyncio.create_task(self._keep(job, done), name=f"lease {job.kind} {job.subject}")
        started = time.monotonic()
        end: Callable[..., Awaitable[None]] = jobs.finish
        reason: tuple[str, ...] = ()
        try:
            await self.handlers[job.kind](job)
            log.debug("job %s done in %.1f s", job.kind, time.monotonic() - started)
        except asyncio.CancelledError:
            end = jobs.release
            raise
        except Exception as exc:
            log.error("job %s %s failed: %s", job.kind, job.subject, exc, exc_info=exc)
            end, reason = jobs.fail, (repr(exc),)
        finally:
            # The lease's keeper first: it must not renew a job settled already.
            done.set()
            await asyncio.wait([keeper])
            await self._settle(end, job, *reason)
            self._running.pop((job.kind, job.subject), None)
            self._wake.set()  # a place is free

    async def _settle(self, end: Callable[..., Awaitable[None]], job: Taken, *args: str) -> None:
        try:
            async with self.sessionmaker() as session:
                await end(session, job, self.owner, *args)
        except SQLAlchemyError as exc:  # its lease runs out, and it is taken again
            log.warning("job %s %s: not settled (%s)", job.kind, job.subject, exc)

    async def _keep(self, job: Taken, done: asyncio.Event) -> None:
        """Renew the lease every third of it; read the priority every second; until the
        job is `done`."""
        renewed = time.monotonic()
        while not await _wait(done, 1.0):
            try:
                async with self.sessionmaker() as session:
                    priority = await jobs.priority_of(session, job.kind, job.subject)
                    if priority is not None:
                        job.priority = min(job.priority, priority)
                    if time.monotonic() - renewed >= self.lease.total_seconds() / 3:
                        renewed = time.monotonic()
                        if not await jobs.renew(session, job, self.owner, self.lease):
                            log.warning("job %s %s: lease lost", job.kind, job.subject)
            except SQLAlchemyError as exc:  # the database away for a moment: try again
                log.warning("job %s %s: not renewed (%s)", job.kind, job.subject, exc)

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                await self.take_all()
                if time.monotonic() - self._purged >= PURGE_SECONDS:
                    self._purged = time.monotonic()
                    async with self.sessionmaker() as session:
                        await jobs.purge(session)
            except SQLAlchemyError as exc:
                log.warning("jobs: could not take work (%s)", exc)
            await _wait(self._wake, self.poll_seconds)

    def start(self) -> None:
        if self._loop_task is None:
            self._loop_task = asyncio.create_task(self._loop(), name="jobs")

    async def close(self) -> None:
        """Stop taking jobs; the running ones are cancelled and given back (another
        worker, or this one after a restart, takes them again at once)."""
        self._stopping.set()
        self._wake.set()
        if self._loop_task is not None:
            await asyncio.wait([self._loop_task])
            self._loop_task = None
        tasks = [task for _job, task in self._running.values()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)


async def _wait(event: asyncio.Event, seconds: float) -> bool:
    """Wait for `event` at most `seconds`; whether it is set."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
    return event.is_set()
