"""Background work done once by several instances on one database (claims).

Two `DailyDeals` (and two `SolvableDeals`) on one database stand for two instances:
each deal is proven by one of them only, counted at the prover; a claim left by an
instance that died is taken over when it expires.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

from app.config import Settings
from app.services import claims
from app.services.daily import DailyDeals, stored_deal, utc_today
from app.services.solvable import SolvableDeals
from app.services.work import WorkPool
from app.solver.plan import solve
from tests.api.conftest import empty_tables
from tests.api.daily_helpers import daily_settings, empty_daily_deals

# Every call of the prover, by (variant, deal number): the tests count proofs here.
PROOFS: Counter[tuple[str, int]] = Counter()
_LOCK = threading.Lock()


def counting_solve(state: Any, **budget: Any) -> Any:
    """The solver, counting its calls (the prover these tests configure)."""
    with _LOCK:
        PROOFS[(state.variant.name, state_deal(state))] += 1
    return solve(state, **budget)


def state_deal(state: Any) -> int:
    # The deal is not part of a position: the tests know a deal by its opening.
    return hash(state.to_bytes())


@pytest.fixture
async def sessionmaker(database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    await empty_tables(database_url)
    await empty_daily_deals(database_url)
    engine = create_async_engine(database_url)
    try:
        yield async_sessionmaker(engine, expire_on_commit=False)
    finally:
        await engine.dispose()


@pytest.fixture
def counted(database_url: str, tmp_path: Path) -> Settings:
    PROOFS.clear()
    return daily_settings(
        database_url,
        tmp_path,
        daily_prover=f"{__name__}:counting_solve",
        daily_max_positions=2_000,  # many candidates fail: several proofs per deal
    )


async def test_a_claim_goes_to_one_owner_until_it_is_done_or_expires(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    minute = timedelta(minutes=1)
    async with sessionmaker() as session:
        assert await claims.claim(session, "daily", "x|1", "a", minute)
        assert not await claims.claim(session, "daily", "x|1", "b", minute)
        assert await claims.claim(session, "daily", "x|1", "a", minute)  # its own: renewed
        assert (await claims.holder(session, "daily", "x|1") or ("",))[0] == "a"
        await claims.finish(session, "daily", "x|1", "a")
        assert not await claims.claim(session, "daily", "x|1", "b", minute)  # done for good
        assert not await claims.claim(session, "daily", "x|1", "a", minute)
        assert await claims.holder(session, "daily", "x|1") is None
        # Another kind or subject is another piece of work.
        assert await claims.claim(session, "solvable", "x|1", "b", minute)
        # Expired unfinished: its owner died; the next to ask takes it over.
        assert await claims.claim(session, "daily", "x|2", "a", timedelta(seconds=-1))
        assert await claims.claim(session, "daily", "x|2", "b", minute)
        assert not await claims.claim(session, "daily", "x|2", "a", minute)
        # Given back unfinished: another may take it at once.
        await claims.release(session, "daily", "x|2", "b")
        assert await claims.claim(session, "daily", "x|2", "a", minute)


async def test_two_instances_prove_each_daily_deal_once(
    sessionmaker: async_sessionmaker[AsyncSession], counted: Settings
) -> None:
    provers = [WorkPool(counted), WorkPool(counted)]
    instances = [DailyDeals(counted, sessionmaker, "same-secret", p) for p in provers]
    today = utc_today()
    try:
        for variant in ("rank-and-file", "rainbow", "emperor"):
            chosen = await asyncio.gather(*(d._choose(variant, today) for d in instances))
            assert chosen[0] == chosen[1]
            async with sessionmaker() as session:
                row = await stored_deal(session, variant, today)
            assert row is not None
            # The candidates tried up to the one chosen, each proven once in all.
            tried = [v for v, _ in PROOFS if v == variant]
            assert len(tried) == row.attempt + 1
            assert all(n == 1 for (v, _), n in PROOFS.items() if v == variant)
    finally:
        for prover in provers:
            prover.close()


async def test_a_daily_claim_left_by_a_dead_instance_is_taken_over(
    sessionmaker: async_sessionmaker[AsyncSession], counted: Settings
) -> None:
    today = utc_today()
    async with sessionmaker() as session:
        await claims.claim(
            session, claims.DAILY, f"rainbow|{today.isoformat()}", "dead", timedelta(seconds=1)
        )
    prover = WorkPool(counted)
    try:
        daily = DailyDeals(counted, sessionmaker, "same-secret", prover)
        number = await asyncio.wait_for(daily._choose("rainbow", today), timeout=60)
        async with sessionmaker() as session:
            row = await stored_deal(session, "rainbow", today)
            assert row is not None and int(row.deal) == number
            assert (
                await claims.holder(session, claims.DAILY, f"rainbow|{today.isoformat()}") is None
            )
    finally:
        prover.close()


async def test_two_instances_fill_a_solvable_pool_proving_each_candidate_once(
    sessionmaker: async_sessionmaker[AsyncSession], counted: Settings
) -> None:
    provers = [WorkPool(counted), WorkPool(counted)]
    pools = [SolvableDeals(counted, sessionmaker, "same-secret", p) for p in provers]
    try:
        await asyncio.gather(*(pool.fill("rank-and-file", 3) for pool in pools))
        unused, _ = await pools[0]._pool_state("rank-and-file")
        assert sum(unused.values()) >= 3  # unrated here: one pool of the variant
        assert PROOFS and all(n == 1 for n in PROOFS.values())
    finally:
        for prover in provers:
            prover.close()


async def test_a_claim_held_is_renewed_while_its_work_waits_and_runs(
    sessionmaker: async_sessionmaker[AsyncSession],
) -> None:
    ttl = timedelta(seconds=0.6)
    async with sessionmaker() as session:
        assert await claims.claim(session, "solvable", "x|9", "a", ttl)
    async with claims.kept(sessionmaker, "solvable", "x|9", "a", ttl):
        await asyncio.sleep(1.5)  # past its first expiry: renewed meanwhile
        async with sessionmaker() as session:
            assert not await claims.claim(session, "solvable", "x|9", "b", ttl)
    await asyncio.sleep(0.8)  # no longer kept: it expires, and may be taken over
    async with sessionmaker() as session:
        assert await claims.claim(session, "solvable", "x|9", "b", ttl)
        assert not await claims.renew(session, "solvable", "x|9", "a", ttl)  # a lost it


# --- shutdown: a cancelled task ends, whatever it was doing ------------------------
# The app's shutdown cancels each background task once and waits for them all
# (`SolvableDeals.close`): a cancel swallowed on the way leaves a task that goes on and
# holds the shutdown for its minute-long wait (a CI run failed so, on PostgreSQL).


async def ends_cancelled(task: asyncio.Task[None]) -> bool:
    task.cancel()
    await asyncio.wait([task], timeout=5)
    return task.cancelled()


async def test_work_cancelled_while_its_claims_renewal_stops_is_cancelled(
    sessionmaker: async_sessionmaker[AsyncSession], monkeypatch: pytest.MonkeyPatch
) -> None:
    renewing = asyncio.Event()

    async def slow_renew(*args: object) -> bool:
        renewing.set()
        try:
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(0.5)  # a renewal in flight takes a moment to let go
        return True

    monkeypatch.setattr(claims, "renew", slow_renew)
    went_on = asyncio.Event()

    async def work() -> None:
        async with claims.kept(sessionmaker, "solvable", "x|9", "a", timedelta(seconds=0.03)):
            await renewing.wait()
        went_on.set()  # the work was done: what follows it must not run once cancelled
        await asyncio.sleep(60)

    task = asyncio.create_task(work())
    await renewing.wait()
    await asyncio.sleep(0.1)  # the block is over: `kept` waits for the renewal to stop
    assert not task.done()
    assert await ends_cancelled(task)
    assert not went_on.is_set()


@pytest.mark.parametrize("turns", range(6))
async def test_a_pool_cancelled_as_it_is_woken_is_cancelled(
    counted: Settings, sessionmaker: async_sessionmaker[AsyncSession], turns: int
) -> None:
    # Woken (a deal was claimed) and cancelled a few turns of the event loop apart: on
    # Python 3.11, asyncio.wait_for returned the wake-up and dropped the cancel.
    pools = SolvableDeals(counted, sessionmaker, "same-secret", WorkPool(counted))
    filled = asyncio.Event()

    async def full(variant: str, target: int) -> None:
        filled.set()

    pools.fill = full  # type: ignore[method-assign]
    task = asyncio.create_task(pools._keep_filled("rank-and-file"))
    await filled.wait()
    await asyncio.sleep(0)  # now waiting to be woken
    pools.claimed("rank-and-file")
    for _ in range(turns):
        await asyncio.sleep(0)
    assert await ends_cancelled(task)
