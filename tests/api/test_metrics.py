"""GET /metrics: the Prometheus text format, outside the public API; request counts by
route template and status (never an id), the solver's pool, the database pool and the
open streams; the token when METRICS_TOKEN is set."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from app.config import Settings
from app.main import create_app
from app.metrics import UNMATCHED, Metrics
from app.services.background.cpu_pool import PLAYER, WorkPool
from tests.api.conftest import API, NewGame, assert_error, running
from tests.api.daily_helpers import empty_daily_deals
from tests.api.helpers import get_with_sqlite_gone, near_won_rank_and_file, put_state
from tests.api.sse_helpers import EventReader, StreamingASGITransport

Labels = frozenset[tuple[str, str]]
TOKEN = "metrics-secret-0123456789"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # Hints searched in a thread, with a small budget: no process start-up per test.
    return settings.model_copy(
        update={"solver_kind": "thread", "hint_max_positions": 5_000, "hint_max_seconds": 1.0}
    )


async def scrape(client: httpx.AsyncClient, **headers: str) -> dict[str, dict[Labels, float]]:
    """Every sample of GET /metrics: name -> labels -> value."""
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    samples: dict[str, dict[Labels, float]] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            labels = frozenset(sample.labels.items())
            samples.setdefault(sample.name, {})[labels] = sample.value
    return samples


def value(samples: dict[str, dict[Labels, float]], name: str, **labels: str) -> float:
    return samples.get(name, {}).get(frozenset(labels.items()), 0.0)


def requests(
    samples: dict[str, dict[Labels, float]], method: str, route: str, status: int
) -> float:
    return value(
        samples, "solitaire_http_requests_total", method=method, route=route, status=str(status)
    )


async def test_requests_are_counted_by_route_template_and_status_never_by_id(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game()
    url = f"{API}/games/{game['id']}"
    for _ in range(2):
        assert (await client.get(url, headers=auth)).status_code == 200
    drew = await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
    assert drew.status_code == 200, drew.text
    missing = await client.get(f"{API}/games/no-such-game-4242", headers=auth)
    assert_error(missing, 404, "game_not_found")
    assert_error(await client.get(f"{API}/nowhere/{game['id']}"), 404, "not_found")
    # Refused by the body limit before any route ran: still counted under its route.
    big = await client.post(f"{API}/games", content=b"x" * 70_000, headers=auth)
    assert_error(big, 413, "payload_too_large")
    assert_error(await client.delete(f"{API}/players"), 405, "method_not_allowed")

    samples = await scrape(client)
    template = f"{API}/games/{{game_id}}"
    assert requests(samples, "GET", template, 200) == 2
    assert requests(samples, "GET", template, 404) == 1
    assert requests(samples, "POST", f"{template}/moves", 200) == 1
    assert requests(samples, "POST", f"{API}/games", 201) == 1
    assert requests(samples, "POST", f"{API}/games", 413) == 1
    assert requests(samples, "POST", f"{API}/players", 201) == 1
    assert requests(samples, "DELETE", f"{API}/players", 405) == 1
    assert requests(samples, "GET", UNMATCHED, 404) == 1
    durations = "solitaire_http_request_duration_seconds_count"
    assert value(samples, durations, method="GET", route=template, status="200") == 2
    # No id in any label: only templates.
    every_label = {v for series in samples.values() for labels in series for _k, v in labels}
    assert not [v for v in every_label if game["id"] in v or "4242" in v]
    routes = {
        v for series in samples.values() for labels in series for k, v in labels if k == "route"
    }
    assert all(r == UNMATCHED or r.startswith("/") for r in routes), routes
    # The database pool, read when scraped.
    assert value(samples, "solitaire_db_pool_size") >= 1
    assert value(samples, "solitaire_db_pool_checked_out") >= 0
    # The scrape itself shows up in the next one.
    assert requests(await scrape(client), "GET", "/metrics", 200) == 1


async def test_a_crash_is_counted_as_a_500_of_its_route(app: FastAPI) -> None:
    @app.get("/boom/{thing}")
    async def boom(thing: str) -> None:
        raise RuntimeError("crashed")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        assert_error(await client.get("/boom/7"), 500, "internal_error")
        assert requests(await scrape(client), "GET", "/boom/{thing}", 500) == 1


async def test_metrics_stay_out_of_the_public_api_and_its_document(
    client: httpx.AsyncClient,
) -> None:
    assert_error(await client.get(f"{API}/metrics"), 404, "not_found")
    document = (await client.get("/openapi.json")).json()
    assert not [path for path in document["paths"] if "metrics" in path]


async def test_with_a_token_set_metrics_need_it(settings: Settings, app: FastAPI) -> None:
    guarded = create_app(settings.model_copy(update={"metrics_token": SecretStr(TOKEN)}))
    async with running(guarded):
        # Two apps in one process: each has its own registry.
        assert guarded.state.services.metrics.registry is not app.state.services.metrics.registry
        transport = httpx.ASGITransport(app=guarded)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            for headers in (
                {},
                {"Authorization": "Bearer wrong"},
                {"Authorization": f"Bearer {TOKEN}x"},
                {"Authorization": f"Basic {TOKEN}"},
                {"Authorization": TOKEN},
            ):
                refused = await c.get("/metrics", headers=headers)
                assert_error(refused, 401, "unauthorized")
                assert refused.headers["WWW-Authenticate"] == "Bearer"
            samples = await scrape(c, Authorization=f"Bearer {TOKEN}")
            assert requests(samples, "GET", "/metrics", 401) == 5
            # The public API is not guarded by it.
            assert (await c.get(f"{API}/variants")).status_code == 200


def test_an_empty_token_setting_is_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METRICS_TOKEN", "")
    assert Settings().metrics_token is None
    monkeypatch.setenv("METRICS_TOKEN", TOKEN)
    token = Settings().metrics_token
    assert token is not None and token.get_secret_value() == TOKEN
    assert TOKEN not in repr(Settings())


async def test_a_hint_moves_the_solver_metrics(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game()
    await put_state(app, game["id"], near_won_rank_and_file())
    before = await scrape(client)
    assert value(before, "solitaire_solver_searches_total", kind="hint", result="solved") == 0
    assert value(before, "solitaire_solver_queue_depth", kind="hint") == 0
    assert value(before, "solitaire_work_waiting", kind="analysis", priority="analysis") == 0
    assert value(before, "solitaire_work_running", kind="rating") == 0
    assert value(before, "solitaire_work_oldest_wait_seconds", priority="refill") == 0
    # The job queue, read from the database: empty here, every series at 0.
    assert value(before, "solitaire_jobs_queued", kind="analysis", priority="analysis") == 0
    assert value(before, "solitaire_jobs_oldest_wait_seconds", priority="ahead") == 0
    # Every game's pool, as last counted (nothing proven here: none).
    assert (
        value(before, "solitaire_solvable_pool_unused", variant="rainbow", difficulty="unrated")
        == 0
    )
    assert value(before, "solitaire_solver_workers", lane="player") == 1
    hint = await client.post(f"{API}/games/{game['id']}/hint", headers=auth)
    assert hint.status_code == 200, hint.text
    assert hint.json()["result"] == "solved"
    after = await scrape(client)
    assert value(after, "solitaire_solver_searches_total", kind="hint", result="solved") == 1
    assert value(after, "solitaire_solver_wait_seconds_count", kind="hint") == 1
    assert value(after, "solitaire_solver_run_seconds_count", kind="hint") == 1
    assert value(after, "solitaire_solver_searches_total", kind="finish", result="solved") == 0
    assert value(after, "solitaire_solver_workers_busy", lane="player") == 0
    # Answered from what the search found: no second search.
    assert (await client.post(f"{API}/games/{game['id']}/hint", headers=auth)).status_code == 200
    again = await scrape(client)
    assert value(again, "solitaire_solver_searches_total", kind="hint", result="solved") == 1


async def test_the_pool_reports_its_line_and_each_wait(tmp_path: Path) -> None:
    settings = Settings(
        database_url="sqlite+aiosqlite://",
        data_dir=tmp_path,
        solver_workers=1,
        solver_hint_workers=0,
        daily_workers=1,
        solver_kind="thread",
    )
    metrics = Metrics()
    work = WorkPool(settings, observer=metrics)
    try:
        assert await work._acquire(PLAYER) == "player"
        assert await work._acquire(PLAYER) == "background"  # borrowed
        waiting = asyncio.create_task(work._run(PLAYER, "finish", lambda: None))
        await asyncio.sleep(0.05)
        now = work.snapshot()
        assert now.waiting == {
            "hint": 0,
            "finish": 1,
            "daily": 0,
            "solvable": 0,
            "analysis": 0,
            "rating": 0,
        }
        assert now.queued == {("finish", "player"): 1}
        assert now.oldest["player"] >= 0.04
        assert now.busy == {"player": 1, "hint": 0, "background": 1}
        assert now.workers == {"player": 1, "hint": 0, "background": 1}
        work._release("player")
        await waiting  # it answered None, as a proof that proved nothing: unknown
        assert work.snapshot().waiting["finish"] == 0
    finally:
        work.close()
    registry = metrics.registry
    wait = registry.get_sample_value("solitaire_solver_wait_seconds_sum", {"kind": "finish"})
    assert wait is not None and wait >= 0.04
    ran = {"kind": "finish", "result": "unknown"}
    assert registry.get_sample_value("solitaire_solver_searches_total", ran) == 1


@pytest.fixture
async def streamer(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = StreamingASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


async def test_an_open_stream_shows_in_the_gauge_and_is_timed_to_its_opening(
    client: httpx.AsyncClient, streamer: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game()
    template = f"{API}/games/{{game_id}}/events"
    assert value(await scrape(client), "solitaire_streams_open") == 0
    async with streamer.stream("GET", f"{API}/games/{game['id']}/events", headers=auth) as response:
        assert response.status_code == 200
        assert (await EventReader(response).next()) is not None
        samples = await scrape(client)
        assert value(samples, "solitaire_streams_open") == 1
        assert value(samples, "solitaire_streams_max") >= 1
        # Counted and timed as it opened, while it is still open.
        assert requests(samples, "GET", template, 200) == 1
        opened = value(
            samples,
            "solitaire_http_request_duration_seconds_sum",
            method="GET",
            route=template,
            status="200",
        )
        assert 0 < opened < 1
    for _ in range(100):  # the stream's end is seen by the app a moment later
        samples = await scrape(client)
        if value(samples, "solitaire_streams_open") == 0:
            break
        await asyncio.sleep(0.02)
    assert value(samples, "solitaire_streams_open") == 0
    assert requests(samples, "GET", template, 200) == 1  # once, not again as it ended


async def test_the_job_queue_is_read_from_the_database_at_each_scrape(
    settings: Settings, database_url: str, tmp_path: Path
) -> None:
    """A web instance without background work queues an analysis and the daily deal a
    request waits for; a worker would take them: the queue shows them, by priority."""
    await empty_daily_deals(database_url)  # today's deal proven by another test is kept
    web = settings.model_copy(update={"background_work": False, "daily_wait_seconds": 0.5})
    application = create_app(web)
    async with running(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            token = (await client.post(f"{API}/players", json={})).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            game = (
                await client.post(f"{API}/games", json={"variant": "canfield"}, headers=auth)
            ).json()
            await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
            asked = await client.post(f"{API}/games/{game['id']}/analysis", headers=auth)
            assert asked.status_code == 202 and asked.json()["state"] == "pending"
            daily = await client.post(f"{API}/daily/rainbow/today/game", headers=auth)
            assert_error(daily, 503, "daily_not_ready")
            await asyncio.sleep(0.05)
            samples = await scrape(client)
    assert value(samples, "solitaire_jobs_queued", kind="analysis", priority="analysis") == 1
    assert value(samples, "solitaire_jobs_queued", kind="daily", priority="daily") == 1
    assert value(samples, "solitaire_jobs_running", kind="daily", priority="daily") == 0
    assert value(samples, "solitaire_jobs_oldest_wait_seconds", priority="analysis") > 0


async def test_metrics_are_answered_with_the_database_away(tmp_path: Path) -> None:
    """The job queue's series need the database; without it the rest is answered."""
    app = create_app(
        Settings(
            database_url=f"sqlite+aiosqlite:///{tmp_path}/m.sqlite3",
            data_dir=tmp_path,
            background_work=False,
        )
    )
    async with running(app):
        response = await get_with_sqlite_gone(app, tmp_path / "m.sqlite3", "/metrics")
    assert response.status_code == 200
    assert (
        "solitaire_solver_workers " in response.text or "solitaire_solver_workers{" in response.text
    )
    assert "solitaire_jobs_queued" not in response.text


# Labels whose values the guide's table names, each in backquotes in the metric's row.
NAMED_LABELS = ("kind", "priority", "lane", "result")


def _guide_rows() -> dict[str, str]:
    """The rows of the table in docs/api.md, "Metrics": metric name -> its row."""
    guide = (Path(__file__).parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    section = guide.split("\n## Metrics\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if line.startswith("| `solitaire_"):
            rows[line.split("`")[1]] = line
    return rows


async def test_the_guide_names_every_metric_and_every_label_value(
    client: httpx.AsyncClient,
) -> None:
    """Every metric /metrics answers has a row in the guide's table, and its row names
    each value its `kind`, `priority`, `lane` and `result` labels take."""
    response = await client.get("/metrics")
    rows = _guide_rows()
    missing = []
    for family in text_string_to_metric_families(response.text):
        if not family.name.startswith("solitaire_") or family.name.endswith("_created"):
            continue
        name = family.name + ("_total" if family.type == "counter" else "")
        row = rows.get(name)
        if row is None:
            missing.append(name)
            continue
        missing.extend(
            f'{name}{{{label}="{sample.labels[label]}"}}'
            for sample in family.samples
            for label in NAMED_LABELS
            if label in sample.labels and f"`{sample.labels[label]}`" not in row
        )
    assert not missing, "not in the guide's table: " + ", ".join(sorted(set(missing)))
