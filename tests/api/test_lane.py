"""The lane of long request work (app.services.kit.offload): bounded (one more than it holds is
503 `server_busy`, as the document declares it, with nothing changed), and what a job
raises in the lane is answered as raised (from a worker process too)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.engine import Record
from app.errors import ApiError, ServerBusy, from_engine
from app.services.kit.offload import LANE, Lane
from tests.api.conftest import API, assert_error, settings_for
from tests.probes.records import drawing_record


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return settings_for(database_url, tmp_path, lane_workers=1, lane_queue=0, lane_kind="thread")


async def test_a_record_past_the_lanes_bound_is_503_server_busy_and_makes_no_game(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    release = threading.Event()
    holding = asyncio.create_task(LANE.run(release.wait, 30))
    await asyncio.sleep(0.05)  # the one place taken
    try:
        refused = await client.post(
            f"{API}/games", json={"record": drawing_record(50)}, headers=auth
        )
        assert_error(refused, 503, "server_busy")
        assert int(refused.headers["Retry-After"]) >= 1
        documented = app.openapi()["paths"]["/api/v1/games"]["post"]["responses"]["503"]
        codes = documented["content"]["application/json"]["schema"]["allOf"][1]
        assert "server_busy" in codes["properties"]["error"]["properties"]["code"]["enum"]
        assert "Retry-After" in documented["headers"]
    finally:
        release.set()
        await holding
    listed = await client.get(f"{API}/games", headers=auth)
    assert listed.json()["items"] == []
    created = await client.post(f"{API}/games", json={"record": drawing_record(50)}, headers=auth)
    assert created.status_code == 201, created.text
    assert created.json()["move_count"] == 50


def _refuse(text: str) -> None:
    try:
        Record.parse(text)
    except Exception as exc:
        raise from_engine(exc) from exc  # type: ignore[arg-type]


async def test_an_error_raised_in_a_worker_process_is_raised_here_whole() -> None:
    lane = Lane(workers=1, queue=1, kind="process")
    try:
        with pytest.raises(ApiError) as raised:
            await lane.run(_refuse, '[Variant "canfield"]\n[Deal "1"]\n\nt0>t9')
        assert raised.value.code == "invalid_record"
        assert raised.value.fields == {"line": 4}
        assert raised.value.message.startswith("line 4:")
    finally:
        lane.close()


async def test_a_full_lane_refuses_at_once_and_a_job_gone_keeps_its_place() -> None:
    lane = Lane(workers=1, queue=0, kind="thread")
    release = threading.Event()
    first = asyncio.create_task(lane.run(release.wait, 30))
    await asyncio.sleep(0.05)
    with pytest.raises(ServerBusy):
        await lane.run(sum, [1])
    first.cancel()  # the request went away; its job still runs in the thread
    await asyncio.sleep(0.05)
    with pytest.raises(ServerBusy):
        await lane.run(sum, [1])
    release.set()
    await asyncio.sleep(0.1)
    assert await lane.run(sum, [1, 2]) == 3
    lane.close()
