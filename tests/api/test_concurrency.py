"""Concurrent writes on one game: never two moves on the same version, no gap in the log,
and the log holds exactly the acknowledged moves."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.config import Settings
from app.db import Database
from app.main import create_app
from tests.api.concurrency_helpers import Tally, check_log, play
from tests.api.conftest import API, NewGame, assert_error, running

N = 8


async def _log_seqs(client: httpx.AsyncClient, auth: dict[str, str], gid: str) -> list[int]:
    log = (await client.get(f"{API}/games/{gid}/moves", headers=auth)).json()
    return [entry["seq"] for entry in log["items"]]


async def test_concurrent_moves_are_serialised(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    gid = game["id"]
    responses = await asyncio.gather(
        *[
            client.post(f"{API}/games/{gid}/moves", json={"action": "draw"}, headers=auth)
            for _ in range(N)
        ]
    )
    assert [r.status_code for r in responses] == [200] * N
    # Each answer shows a different version: no two moves were applied on one version.
    assert sorted(r.json()["version"] for r in responses) == list(range(1, N + 1))
    state = (await client.get(f"{API}/games/{gid}", headers=auth)).json()
    assert state["version"] == N and state["move_count"] == N
    assert len(state["piles"][0]["cards"]) == 64 - N
    assert await _log_seqs(client, auth, gid) == list(range(1, N + 1))


async def test_concurrent_moves_on_one_version_one_wins(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    gid = game["id"]
    responses = await asyncio.gather(
        *[
            client.post(
                f"{API}/games/{gid}/moves",
                json={"action": "draw", "expected_version": 0},
                headers=auth,
            )
            for _ in range(N)
        ]
    )
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * (N - 1)
    for response in responses:
        if response.status_code == 409:
            assert_error(response, 409, "version_conflict")
    assert await _log_seqs(client, auth, gid) == [1]


async def test_concurrent_moves_and_undos_keep_the_log_whole(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    gid = game["id"]
    requests = []
    for i in range(12):
        if i % 3 == 2:
            requests.append(client.post(f"{API}/games/{gid}/undo", headers=auth))
        else:
            requests.append(
                client.post(f"{API}/games/{gid}/moves", json={"action": "draw"}, headers=auth)
            )
    responses = await asyncio.gather(*requests)
    assert all(r.status_code in (200, 409) for r in responses), [r.text for r in responses]
    ok = [r for r in responses if r.status_code == 200]
    state = (await client.get(f"{API}/games/{gid}", headers=auth)).json()
    assert state["version"] == len(ok)
    seqs = await _log_seqs(client, auth, gid)
    assert seqs == list(range(1, state["move_count"] + 1))
    assert len(state["piles"][0]["cards"]) == 64 - state["move_count"]


CLIENTS = 24


async def test_many_clients_history_equals_acknowledged_moves(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    """24 clients on one game, half with expected_version, a third retrying with an
    Idempotency-Key: the log is exactly the acknowledged moves, each at its version."""
    gid = (await new_game(deal=5))["id"]
    tallies = await asyncio.gather(
        *[play(client, auth, gid, index=i, rounds=4) for i in range(CLIENTS)]
    )
    total = Tally()
    for tally in tallies:
        total.add(tally)
    items = (await client.get(f"{API}/games/{gid}/moves", headers=auth)).json()["items"]
    assert check_log(items, total.acks) == 0
    state = (await client.get(f"{API}/games/{gid}", headers=auth)).json()
    assert state["version"] == state["move_count"] == len(items) == len(total.acks)
    print(
        f"{CLIENTS} clients: {len(total.acks)} acknowledged = {len(items)} logged, "
        f"{total.conflicts} conflicts, {total.refused} refused, {total.replays} replays"
    )
    # The run did race: some moves were refused on a stale version, some retried.
    assert total.conflicts > 0 and total.replays > 0 and len(total.acks) > CLIENTS


@pytest.mark.parametrize(("mode", "level"), [(None, 2), ("FULL", 2), ("NORMAL", 1)])
async def test_sqlite_commits_reach_the_disk_before_the_answer_by_default(
    tmp_path: Path, mode: str | None, level: int
) -> None:
    """FULL (the default): a commit is synced before it returns, so an acknowledged move
    survives a power loss, not only the server's crash (WAL with NORMAL does not)."""
    values: dict[str, object] = {
        "database_url": f"sqlite+aiosqlite:///{tmp_path}/durable.sqlite3",
        "data_dir": tmp_path,
    }
    if mode is not None:
        values["sqlite_synchronous"] = mode
    settings = Settings(**values)  # type: ignore[arg-type]
    database = Database(settings.database_url, settings)
    try:
        async with database.sessionmaker() as session:
            assert (await session.execute(text("PRAGMA synchronous"))).scalar_one() == level
            assert (await session.execute(text("PRAGMA journal_mode"))).scalar_one() == "wal"
    finally:
        await database.dispose()


async def test_a_move_after_another_process_moved_is_played_on_the_row_as_it_is(
    client: httpx.AsyncClient, settings: Settings, auth: dict[str, str], new_game: NewGame
) -> None:
    """Each process keeps a copy of the games it wrote; another process (a second
    instance, a second worker on one SQLite file) moving meanwhile makes that copy stale.
    The next move here must be played on the row as the other left it, and a version
    refused or accepted as the row says, not as the copy does."""
    game = await new_game(deal=3)
    url = f"{API}/games/{game['id']}"
    second = create_app(settings.model_copy())
    async with running(second):
        transport = httpx.ASGITransport(app=second)
        async with httpx.AsyncClient(transport=transport, base_url="http://other") as other:
            for turn in range(6):
                here = (await client.get(url, headers=auth)).json()
                mover = client if turn % 2 else other  # this process, then the other
                played = await mover.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
                assert played.status_code == 200, played.text
                assert played.json()["version"] == here["version"] + 1
                # The draw was played on the row: one card fewer in the stock each time.
                stock = played.json()["piles"][0]["cards"]
                assert len(stock) == len(here["piles"][0]["cards"]) - 1
            # A version the row has, but not this process's copy: accepted.
            now = (await other.get(url, headers=auth)).json()["version"]
            body = {"action": "draw", "expected_version": now}
            assert (await client.post(f"{url}/moves", json=body, headers=auth)).status_code == 200
            # A version the copy has, but the row no longer: refused.
            await other.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
            stale = {"action": "draw", "expected_version": now + 1}
            assert_error(
                await client.post(f"{url}/moves", json=stale, headers=auth), 409, "version_conflict"
            )
            # The row's version, newer than this process's copy (the other moved last):
            # accepted, for moves, undo and settings alike.
            for method, path, body in (
                ("POST", "/moves", {"action": "draw"}),
                ("POST", "/undo", {}),
                ("PATCH", "", {"settings": {"auto_finish": False}}),
            ):
                # This process's copy is fresh, then the other moves.
                assert (
                    await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
                ).status_code == 200
                await other.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
                row = (await other.get(url, headers=auth)).json()["version"]
                answer = await client.request(
                    method, f"{url}{path}", json={**body, "expected_version": row}, headers=auth
                )
                assert answer.status_code == 200, (path, answer.text)
    log = (await client.get(f"{url}/moves", headers=auth)).json()
    assert [m["seq"] for m in log["items"]] == list(range(1, 1 + len(log["items"])))
    assert len(log["items"]) == 14
