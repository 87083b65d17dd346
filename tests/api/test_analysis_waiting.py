"""An analysis waiting for a worker says so (`pending`, with its `place`), and says
`running` only once a worker works it: in the job queue (no worker takes it: background
work off here) and in the solver pool's line (its job taken, its first search waiting
behind other background work)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from app.config import Settings
from app.main import create_app
from app.models import GameAnalysis, Job
from app.services.background import cpu_pool, jobs
from app.services.background.cpu_pool import AHEAD, ANALYSIS
from tests.api.conftest import API, empty_tables
from tests.api.daily_helpers import daily_settings, empty_daily_deals, lifespan

OWNER = "test-worker"


def _settings(database_url: str, tmp_path: Path, **changes: Any) -> Settings:
    return daily_settings(
        database_url,
        tmp_path,
        solvable_prepare_ahead=False,  # nothing else on the background lane
        analysis_ply_max_positions=5_000,
        analysis_ply_max_seconds=2.0,
        analysis_max_positions=50_000,
        **changes,
    )


@pytest.fixture
async def client_of() -> AsyncIterator[Any]:
    clients: list[httpx.AsyncClient] = []

    def make(app: FastAPI) -> httpx.AsyncClient:
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


async def _resigned_game(client: httpx.AsyncClient) -> tuple[dict[str, str], str]:
    """A new player's game of a deal nobody proved, resigned at once: its one position
    (the deal) is searched by the analysis."""
    token = (await client.post(f"{API}/players")).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    created = await client.post(
        f"{API}/games", json={"variant": "rank-and-file", "deal": 3}, headers=auth
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    await client.post(f"{API}/games/{game_id}/resign", headers=auth)
    return auth, game_id


async def _analysis(client: httpx.AsyncClient, auth: dict[str, str], game_id: str) -> Any:
    response = await client.get(f"{API}/games/{game_id}/analysis", headers=auth)
    assert response.status_code == 200, response.text
    return response.json()


async def test_an_analysis_no_worker_took_is_pending_with_its_place(
    database_url: str, tmp_path: Path, client_of: Any
) -> None:
    await empty_daily_deals(database_url)
    await empty_tables(database_url)
    app = create_app(_settings(database_url, tmp_path, background_work=False))
    async with lifespan(app):
        client = client_of(app)
        first_auth, first = await _resigned_game(client)
        second_auth, second = await _resigned_game(client)
        asked = await client.post(f"{API}/games/{first}/analysis", headers=first_auth)
        assert asked.status_code == 202, asked.text
        assert asked.json()["state"] == "pending" and asked.json()["place"] == 0
        asked = await client.post(f"{API}/games/{second}/analysis", headers=second_auth)
        assert asked.json()["state"] == "pending" and asked.json()["place"] == 1
        assert (await _analysis(client, second_auth, second))["place"] == 1

        # A worker takes the first: still ahead of the second while it runs.
        async with app.state.services.database.sessionmaker() as session:
            job = await jobs.take(session, OWNER, timedelta(seconds=30), [ANALYSIS])
        assert job is not None and job.subject.startswith(first)
        assert (await _analysis(client, second_auth, second))["place"] == 1
        await app.state.services.analyses.run_job(job)
        async with app.state.services.database.sessionmaker() as session:
            await jobs.finish(session, job, OWNER)
        done = await _analysis(client, first_auth, first)
        assert done["state"] == "done" and done["place"] is None
        # Next in line now.
        waiting = await _analysis(client, second_auth, second)
        assert waiting["state"] == "pending" and waiting["place"] == 0


async def test_an_analysis_taken_waits_pending_until_its_search_runs(
    database_url: str, tmp_path: Path, client_of: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its job taken at once, its first search waits behind a unit of background work
    that holds the one background worker: `pending`, nothing searched; once the search
    runs, `running`; then `done`."""
    lane_free, search_free = threading.Event(), threading.Event()
    searching = threading.Event()
    solve = cpu_pool.solve_bytes

    def hold() -> None:  # a unit of background work that proves nothing
        lane_free.wait(60)

    def gated_solve(*args: Any) -> Any:
        searching.set()
        search_free.wait(60)
        return solve(*args)

    monkeypatch.setattr(cpu_pool, "solve_bytes", gated_solve)
    await empty_daily_deals(database_url)
    await empty_tables(database_url)
    app = create_app(_settings(database_url, tmp_path, daily_workers=0))
    async with lifespan(app):
        client = client_of(app)
        pool = app.state.services.work
        holder = asyncio.create_task(pool._run(AHEAD, "daily", hold))
        try:
            while pool.snapshot().busy["background"] == 0:
                await asyncio.sleep(0.01)
            auth, game_id = await _resigned_game(client)
            asked = await client.post(f"{API}/games/{game_id}/analysis", headers=auth)
            assert asked.status_code == 202, asked.text
            # The runner takes its job at once; its search waits for the worker.
            deadline = time.monotonic() + 30
            while pool.snapshot().waiting["analysis"] == 0:
                assert time.monotonic() < deadline, "the analysis never queued its search"
                await asyncio.sleep(0.01)
            waiting = await _analysis(client, auth, game_id)
            assert waiting["state"] == "pending", waiting
            assert waiting["place"] == 0 and waiting["positions"] == 0

            lane_free.set()
            await asyncio.to_thread(searching.wait, 30)
            deadline = time.monotonic() + 30
            while (body := await _analysis(client, auth, game_id))["state"] == "pending":
                assert time.monotonic() < deadline, "the analysis never said it runs"
                await asyncio.sleep(0.02)
            assert body["state"] == "running" and body["place"] is None
        finally:
            lane_free.set()
            search_free.set()
            await holder
        deadline = time.monotonic() + 60
        while (body := await _analysis(client, auth, game_id))["state"] != "done":
            assert time.monotonic() < deadline, "the analysis did not end"
            await asyncio.sleep(0.05)
        assert body["place"] is None and len(body["plies"]) == 1


async def test_an_analysis_whose_job_failed_has_no_place_until_asked_again(
    database_url: str, tmp_path: Path, client_of: Any
) -> None:
    await empty_daily_deals(database_url)
    await empty_tables(database_url)
    app = create_app(_settings(database_url, tmp_path, background_work=False))
    async with lifespan(app):
        client = client_of(app)
        auth, game_id = await _resigned_game(client)
        await client.post(f"{API}/games/{game_id}/analysis", headers=auth)
        async with app.state.services.database.sessionmaker() as session, session.begin():
            await session.execute(
                update(Job).where(Job.kind == "analysis").values(state=jobs.FAILED)
            )
        failed = await _analysis(client, auth, game_id)
        assert failed["state"] == "pending" and failed["place"] is None
        asked = await client.post(f"{API}/games/{game_id}/analysis", headers=auth)
        assert asked.status_code == 202, asked.text
        assert asked.json()["state"] == "pending" and asked.json()["place"] == 0


async def test_an_analysis_taken_again_waits_again_from_the_start(
    database_url: str, tmp_path: Path, client_of: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its worker died mid-way (the row says running, with progress): the worker that
    takes it again starts over, pending until its first search runs."""
    await empty_daily_deals(database_url)
    await empty_tables(database_url)
    app = create_app(_settings(database_url, tmp_path, background_work=False))
    async with lifespan(app):
        client = client_of(app)
        auth, game_id = await _resigned_game(client)
        await client.post(f"{API}/games/{game_id}/analysis", headers=auth)
        async with app.state.services.database.sessionmaker() as session, session.begin():
            await session.execute(
                update(GameAnalysis).values(state="running", decided=1, positions=99)
            )
        seen: list[Any] = []
        analyses = app.state.services.analyses
        learn = analyses._learn_deal

        async def looking(game: Any) -> None:  # after the start, before any search
            seen.append(await _analysis(client, auth, game_id))
            await learn(game)

        monkeypatch.setattr(analyses, "_learn_deal", looking)
        async with app.state.services.database.sessionmaker() as session:
            job = await jobs.take(session, OWNER, timedelta(seconds=30), [ANALYSIS])
        assert job is not None
        await analyses.run_job(job)
        (started,) = seen
        assert started["state"] == "pending" and started["place"] == 0
        assert (started["decided"], started["positions"]) == (0, 0)
        assert (await _analysis(client, auth, game_id))["state"] == "done"
