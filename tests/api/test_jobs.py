"""The one job queue (`services.background.jobs`) and its workers (`services.background.job_runner`), on the test
database (SQLite, or PostgreSQL with TEST_DATABASE_URL): one row per piece of work,
taken by one worker at a time in order of priority, then age; a job whose worker died
is taken again, then failed; two workers on one database do each piece once."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db import Database, unit_of_work
from app.models import Job
from app.services.background import jobs
from app.services.background.build import build
from app.services.background.cpu_pool import (
    AHEAD,
    ANALYSIS,
    DAILY,
    REFILL,
    TODAY,
    WAITING,
    WorkPool,
)
from app.services.background.job_runner import JobRunner
from app.services.background.jobs import Taken
from app.services.background.knowledge import SolverKnowledge
from app.services.daily.deals import stored_deal, subject_of, utc_today
from app.solver.plan import solve
from tests.api.conftest import empty_tables
from tests.api.daily_helpers import daily_settings, empty_daily_deals

LEASE = timedelta(seconds=30)
ALL = [ANALYSIS, DAILY, WAITING, TODAY, REFILL, AHEAD]

# Every call of the prover, by (variant, opening): the tests count proofs here.
PROOFS: Counter[tuple[str, int]] = Counter()
_LOCK = threading.Lock()


def counting_solve(state: Any, **budget: Any) -> Any:
    """The solver, counting its calls (the prover these tests configure)."""
    with _LOCK:
        PROOFS[(state.variant.name, hash(state.to_bytes()))] += 1
    return solve(state, **budget)


@pytest.fixture
async def sessionmaker(
    database_url: str, tmp_path: Path
) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    await empty_tables(database_url)
    await empty_daily_deals(database_url)
    # The app's own engine: writers begin IMMEDIATE on SQLite, as in the service.
    database = Database(database_url, Settings(database_url=database_url, data_dir=tmp_path))
    try:
        yield database.sessionmaker
    finally:
        await database.dispose()


async def rows(sessionmaker: async_sessionmaker[AsyncSession]) -> dict[tuple[str, str], Job]:
    async with sessionmaker() as session:
        found = (await session.execute(select(Job))).scalars()
        return {(job.kind, job.subject): job for job in found}


async def test_one_row_per_job_with_the_most_urgent_priority_asked(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    async with sessionmaker() as session:
        await jobs.enqueue(session, "solvable", "rainbow", AHEAD)
        await jobs.enqueue(session, "solvable", "rainbow", WAITING)  # a request waits
        await jobs.enqueue(session, "solvable", "rainbow", REFILL)  # kept at WAITING
    (job,) = (await rows(sessionmaker)).values()
    assert (job.state, job.priority, job.attempts) == ("queued", WAITING, 0)


async def test_jobs_are_taken_by_priority_then_age_each_by_one_worker(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    async with sessionmaker() as session:
        await jobs.enqueue(session, "daily", "a", AHEAD)
        await jobs.enqueue(session, "solvable", "b", REFILL)
        await jobs.enqueue(session, "solvable", "c", REFILL)
        await jobs.enqueue(session, "analysis", "d", ANALYSIS)

    async def take(owner: str) -> Taken | None:
        async with sessionmaker() as session:
            return await jobs.take(session, owner, LEASE, ALL)

    # Four workers at once: each job to one of them.
    taken = await asyncio.gather(*(take(f"worker-{n}") for n in range(4)))
    assert sorted(job.subject for job in taken if job) == ["a", "b", "c", "d"]
    assert await take("late") is None
    # One at a time, the order is priority, then how long each was queued.
    async with sessionmaker() as session, unit_of_work(session):
        await session.execute(delete(Job))
    async with sessionmaker() as session:
        for subject, priority in (("a", AHEAD), ("b", REFILL), ("c", REFILL), ("d", ANALYSIS)):
            await jobs.enqueue(session, "solvable", subject, priority)
    order = [(await take("one")) for _ in range(4)]
    assert [job.subject for job in order if job] == ["d", "b", "c", "a"]
    # Only the priorities asked for.
    async with sessionmaker() as session:
        await jobs.enqueue(session, "solvable", "e", AHEAD)
        assert await jobs.take(session, "one", LEASE, [ANALYSIS, DAILY]) is None


async def test_a_finished_job_is_queued_again_when_asked_and_not_before(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    async with sessionmaker() as session:
        await jobs.enqueue(session, "solvable", "rainbow", WAITING)
        job = await jobs.take(session, "w", LEASE, ALL)
        assert job is not None
        await jobs.finish(session, job, "w")
        assert await jobs.take(session, "w", LEASE, ALL) is None
        await jobs.enqueue(session, "solvable", "rainbow", AHEAD)  # a deal was dealt
    (row,) = (await rows(sessionmaker)).values()
    assert (row.state, row.priority, row.attempts) == ("queued", AHEAD, 0)


async def test_a_job_whose_worker_died_is_taken_again_then_failed(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    dead = timedelta(seconds=-1)  # a lease that has run out already: its worker is gone
    async with sessionmaker() as session:
        await jobs.enqueue(session, "analysis", "g|1.1", ANALYSIS)
        for attempt in range(1, jobs.MAX_ATTEMPTS + 1):
            job = await jobs.take(session, f"worker-{attempt}", dead, ALL)
            assert job is not None and job.attempts == attempt
        assert await jobs.take(session, "next", LEASE, ALL) is None
    (row,) = (await rows(sessionmaker)).values()
    assert row.state == "failed" and "stopped 3 times" in (row.error or "")
    # A live lease is not taken over.
    async with sessionmaker() as session:
        await jobs.enqueue(session, "analysis", "g|1.2", ANALYSIS)
        assert await jobs.take(session, "alive", LEASE, ALL) is not None
        assert await jobs.take(session, "other", LEASE, ALL) is None


async def test_a_job_that_raised_waits_before_it_is_tried_again(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    async with sessionmaker() as session:
        await jobs.enqueue(session, "daily", "x", DAILY)
        job = await jobs.take(session, "w", LEASE, ALL)
        assert job is not None
        await jobs.fail(session, job, "w", "RuntimeError('no deal')")
        assert await jobs.take(session, "w", LEASE, ALL) is None  # after RETRY_PAUSE
        # Somebody needs it now: asked again, it is taken at once.
        await jobs.enqueue(session, "daily", "x", DAILY)
    (row,) = (await rows(sessionmaker)).values()
    assert row.state == "queued" and row.error == "RuntimeError('no deal')"


def _runner(
    sessionmaker: async_sessionmaker[AsyncSession], handlers: dict[str, Any], **options: Any
) -> JobRunner:
    return JobRunner(sessionmaker, jobs.new_owner(), handlers, poll_seconds=0.05, **options)


async def test_a_runner_gives_back_what_it_ran_when_it_stops_and_another_finishes_it(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    started = asyncio.Event()
    done: list[str] = []

    async def stuck(job: Taken) -> None:
        started.set()
        await asyncio.sleep(3600)

    async def quick(job: Taken) -> None:
        done.append(job.subject)

    first = _runner(sessionmaker, {"analysis": stuck})
    async with sessionmaker() as session:
        await jobs.enqueue(session, "analysis", "g|2.3", ANALYSIS)
    first.start()
    await asyncio.wait_for(started.wait(), 10)
    await first.close()  # the process stops mid-job
    (row,) = (await rows(sessionmaker)).values()
    assert (row.state, row.attempts, row.owner) == ("queued", 0, None)
    second = _runner(sessionmaker, {"analysis": quick})
    second.start()
    try:
        for _ in range(200):
            if done:
                break
            await asyncio.sleep(0.05)
    finally:
        await second.close()
    assert done == ["g|2.3"]
    (row,) = (await rows(sessionmaker)).values()
    assert (row.state, row.attempts) == ("done", 1)


async def test_work_nobody_waits_for_takes_a_bounded_share_and_never_holds_back_a_players(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    """One job nobody waits for (`AHEAD`) at a time; refills (one per game) and a job a
    player waits for are taken at once beside it; a running job's priority rises when a
    player starts waiting for it on another process (read from the table)."""
    release = asyncio.Event()
    running: list[Taken] = []

    async def hold(job: Taken) -> None:
        running.append(job)
        await release.wait()

    runner = _runner(sessionmaker, {"solvable": hold, "analysis": hold, "daily": hold})
    async with sessionmaker() as session:
        for subject in ("a", "b"):
            await jobs.enqueue(session, "daily", subject, AHEAD)
        for variant in ("c", "d"):
            await jobs.enqueue(session, "solvable", variant, REFILL)
    runner.start()
    try:
        await asyncio.sleep(0.5)
        assert sorted(job.subject for job in running) == ["a", "c", "d"]
        async with sessionmaker() as session:
            await jobs.enqueue(session, "analysis", "g|9.9", ANALYSIS)
            await jobs.enqueue(session, "daily", "a", DAILY)  # another instance's player
        await asyncio.sleep(1.6)
        assert [job.priority for job in running if job.subject == "a"] == [DAILY]
        # "a" is waited for now: its place among the work nobody waits for went to "b".
        assert sorted(job.subject for job in running) == ["a", "b", "c", "d", "g|9.9"]
    finally:
        release.set()
        await asyncio.sleep(0.3)
        await runner.close()


def knowledge(sessionmaker: async_sessionmaker[AsyncSession]) -> SolverKnowledge:
    return SolverKnowledge(sessionmaker, max_positions=10_000, max_lost=1_000)


@pytest.fixture
def counted(database_url: str, tmp_path: Path) -> Settings:
    PROOFS.clear()
    return daily_settings(
        database_url,
        tmp_path,
        daily_prover=f"{__name__}:counting_solve",
        daily_max_positions=2_000,  # many candidates fail: several proofs per deal
    )


async def test_two_workers_prove_each_daily_deal_once(
    sessionmaker: async_sessionmaker[AsyncSession], counted: Settings
) -> None:
    pools = [WorkPool(counted), WorkPool(counted)]
    workers = [
        build(counted, sessionmaker, "same-secret", pool, knowledge(sessionmaker)) for pool in pools
    ]
    today = utc_today()
    variants = ("rank-and-file", "rainbow", "emperor")
    try:
        for worker in workers:
            await worker.start()

        async def ask(worker: Any, variant: str) -> int:
            async with sessionmaker() as session:
                number: int = await worker.daily.deal_for(session, variant, today)
                return number

        # Asked for on both at once: one job each, proven by one of the two workers.
        chosen = await asyncio.gather(*(ask(w, v) for v in variants for w in workers))
        assert chosen[0::2] == chosen[1::2]
        for variant in variants:
            async with sessionmaker() as session:
                row = await stored_deal(session, variant, today)
            assert row is not None
            # The candidates tried up to the one chosen, each proven once in all.
            tried = [v for v, _ in PROOFS if v == variant]
            assert len(tried) == row.attempt + 1
            assert all(n == 1 for (v, _), n in PROOFS.items() if v == variant)
        found = await rows(sessionmaker)
        for variant in variants:
            job = found[("daily", subject_of(variant, today))]
            assert (job.state, job.attempts) == ("done", 1)
    finally:
        for worker in workers:
            await worker.close()
        for pool in pools:
            pool.close()


async def test_a_job_held_past_its_renewals_keeps_its_lease_and_ends_done(
    sessionmaker: async_sessionmaker[AsyncSession], caplog: pytest.LogCaptureFixture
) -> None:
    """Renewed while it runs (a 3 s lease, renewed every second: the job takes 2.5 s),
    and never renewed once settled."""
    finished = asyncio.Event()

    async def slow(job: Taken) -> None:
        await asyncio.sleep(2.5)
        finished.set()

    runner = _runner(sessionmaker, {"analysis": slow}, lease_seconds=3.0)
    async with sessionmaker() as session:
        await jobs.enqueue(session, "analysis", "g|3.3", ANALYSIS)
    with caplog.at_level(logging.WARNING, logger="app.jobs"):
        runner.start()
        try:
            await asyncio.wait_for(finished.wait(), 10)
            await asyncio.sleep(1.5)  # a renewal after the end would come by now
        finally:
            await runner.close()
    (row,) = (await rows(sessionmaker)).values()
    assert (row.state, row.attempts) == ("done", 1)
    assert not [r for r in caplog.records if r.name == "app.jobs"], caplog.text
