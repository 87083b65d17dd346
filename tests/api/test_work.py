"""One pool for all CPU work (`services.background.cpu_pool.WorkPool`): players' searches before
background proofs, proofs never on the players' lane, and searches beyond the workers
and the queue refused at once (429)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.config import Settings
from app.engine import deal, get_variant
from app.services.background.cpu_pool import DAILY, PLAYER, REFILL, WorkPool
from app.services.background.undecided_memory import Undecided, key
from app.solver import replay
from app.solver.worker import SearchInProgress, SolverBusy


def pool(tmp_path: Path, **changes: object) -> WorkPool:
    values: dict[str, object] = {
        "database_url": "sqlite+aiosqlite://",
        "data_dir": tmp_path,
        "solver_workers": 1,
        "daily_workers": 1,
        "solver_queue": 2,
        "solver_kind": "thread",
        **changes,
    }
    return WorkPool(Settings(**values))  # type: ignore[arg-type]


async def test_a_freed_worker_goes_to_a_players_search_before_any_proof(tmp_path: Path) -> None:
    work = pool(tmp_path)
    assert await work._acquire(PLAYER) == "player"
    assert await work._acquire(PLAYER) == "background"  # borrowed: the lane was idle
    waiting = {
        name: asyncio.create_task(work._acquire(priority))
        for name, priority in (("solvable", REFILL), ("daily", DAILY), ("search", PLAYER))
    }
    await asyncio.sleep(0)
    assert not any(task.done() for task in waiting.values())
    work._release("background")
    await asyncio.sleep(0)
    assert waiting["search"].done() and waiting["search"].result() == "background"
    work._release("player")  # no search waits, and proofs never take the players' lane
    await asyncio.sleep(0)
    assert not waiting["daily"].done() and not waiting["solvable"].done()
    work._release("background")
    await asyncio.sleep(0)
    assert waiting["daily"].done() and not waiting["solvable"].done()
    work._release("background")
    await asyncio.sleep(0)
    assert waiting["solvable"].result() == "background"
    work._release("background")
    assert work._busy == {"player": 0, "hint": 0, "background": 0}


async def test_without_background_processes_a_search_keeps_to_its_own_lane(
    tmp_path: Path,
) -> None:
    work = pool(tmp_path, daily_workers=0)  # the background lane is one thread
    assert await work._acquire(PLAYER) == "player"
    second = asyncio.create_task(work._acquire(PLAYER))
    await asyncio.sleep(0)
    assert not second.done()  # the idle background thread is not borrowed
    assert await work._acquire(DAILY) == "background"
    work._release("player")
    assert await second == "player"


async def test_searches_beyond_workers_and_queue_are_refused_at_once(tmp_path: Path) -> None:
    work = pool(tmp_path, daily_workers=0, solver_queue=1)
    opening = deal(get_variant("rank-and-file"), 129).to_bytes()  # won after 8.5M positions
    # Hints: two run at once (the players' worker and the hint lane's); finishes would
    # leave the bound's last place to hints (test_finishes_leave_hints_their_place).
    running = [
        asyncio.create_task(work.search(opening, max_positions=10**9, max_seconds=1.0, hint=True))
        for _ in range(2)
    ]
    await asyncio.sleep(0.05)
    assert work.searches == 2
    with pytest.raises(SolverBusy) as busy:
        await work.search(opening, max_positions=10, max_seconds=1.0)
    assert busy.value.retry_after >= 1
    results = await asyncio.gather(*running)
    assert [r.result for r in results] == ["unknown", "unknown"]
    assert work.searches == 0
    work.close()


async def test_a_proof_runs_on_the_background_lane(tmp_path: Path) -> None:
    work = pool(tmp_path, daily_workers=0, daily_max_positions=100_000)
    proof = await work.prove("rank-and-file", 1, DAILY, kind="daily")
    assert proof is not None and proof.deal == 1 and proof.line
    assert work._busy == {"player": 0, "hint": 0, "background": 0}
    assert set(work._executors) == {"background"}
    work.close()


async def test_a_search_in_a_worker_process_finds_a_line_that_wins(tmp_path: Path) -> None:
    start = deal(get_variant("rank-and-file"), 1)  # won in a few hundred positions
    work = pool(tmp_path, daily_workers=0, solver_kind="process")
    try:
        result = await work.search(start.to_bytes(), max_positions=100_000, max_seconds=30)
    finally:
        work.close()
    assert result.result == "solved"
    assert replay(start, result.moves).is_won


async def test_a_hint_runs_beside_a_finish_on_the_hint_lane(tmp_path: Path) -> None:
    """A finish never takes the hint lane; a hint takes it when the players' lane is busy,
    and a waiting hint comes before a waiting finish."""
    work = pool(tmp_path, daily_workers=0)
    assert await work._acquire(PLAYER) == "player"  # a finish
    finish = asyncio.create_task(work._acquire(PLAYER))
    await asyncio.sleep(0)
    assert not finish.done()  # the hint lane is free, but not for a finish
    assert await work._acquire(PLAYER, hint=True) == "hint"
    hint = asyncio.create_task(work._acquire(PLAYER, hint=True))
    await asyncio.sleep(0)
    work._release("player")
    await asyncio.sleep(0)
    assert hint.done() and hint.result() == "player" and not finish.done()  # hints first
    work._release("hint")
    await asyncio.sleep(0)
    assert not finish.done()
    work._release("player")
    assert await finish == "player"
    work._release("player")
    assert work._busy == {"player": 0, "hint": 0, "background": 0}


async def test_finishes_leave_hints_their_place_and_one_search_per_player(
    tmp_path: Path,
) -> None:
    work = pool(tmp_path, daily_workers=0, solver_queue=2)  # places: 1 + 2, one for hints
    opening = deal(get_variant("rank-and-file"), 129).to_bytes()  # won after 8.5M positions

    def search(owner: str, hint: bool = False) -> asyncio.Task[object]:
        return asyncio.create_task(
            work.search(opening, 10**9, 0.5 if hint else 1.0, owner=owner, hint=hint)
        )

    finishes = [search("ann"), search("bob")]
    await asyncio.sleep(0.05)
    with pytest.raises(SolverBusy):
        await work.search(opening, 10, 1.0, owner="cat")  # a third finish: no place left
    with pytest.raises(SearchInProgress) as running:
        await work.search(opening, 10, 0.1, owner="ann", hint=True)  # ann's finish runs
    assert 1 <= running.value.retry_after <= 1
    hint = search("cat", hint=True)
    results = await asyncio.gather(hint, *finishes)
    assert [r.result for r in results] == ["unknown"] * 3  # type: ignore[attr-defined]
    assert work.searches == 0 and not work._owners
    work.close()


def test_unknowns_are_remembered_for_their_ttl_and_within_their_bound() -> None:
    now = [0.0]
    memory = Undecided(ttl_seconds=10, max_entries=2, clock=lambda: now[0])
    first, second, third = (key(bytes([n]), "finish", 1_000, 20.0) for n in range(3))
    assert first != key(bytes([0]), "hint", 1_000, 20.0)  # the kind and budget count
    memory.remember(first)
    now[0] = 5
    memory.remember(second)
    assert memory.recalls(first) and memory.recalls(second)
    now[0] = 8
    memory.remember(third)  # past the bound: the oldest goes
    assert not memory.recalls(first) and memory.recalls(third) and len(memory) == 2
    now[0] = 15
    assert not memory.recalls(second) and memory.recalls(third)  # second's TTL is over
    off = Undecided(ttl_seconds=0, max_entries=2)
    off.remember(first)
    assert not off.recalls(first)
