"""Two instances of the service (`python -m app.server`) on one PostgreSQL,
started together, used through both: concurrent moves on one game from both (none
lost or doubled, a retry answered by the other instance), a hint line followed through
alternating instances (every hint after the first answers without a search), the daily
deals prepared once (proofs counted in both logs), failed authentications counted
across instances, a move through one instance reaching a game's stream held by the
other (LISTEN/NOTIFY). PostgreSQL only (`TEST_DATABASE_URL`): `.ci/run` runs it there.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import make_url

from tests.api.concurrency_helpers import API, Tally, check_log, play
from tests.api.daily_helpers import empty_daily_deals
from tests.api.sse_helpers import EventReader
from tests.probes.conftest import MakeServer
from tests.probes.server import Server

URL = os.environ.get("TEST_DATABASE_URL", "")
pytestmark = pytest.mark.skipif(
    not URL or make_url(URL).get_backend_name() != "postgresql",
    reason="several instances share a PostgreSQL (TEST_DATABASE_URL)",
)

VARIANTS = 9  # every variant has a daily deal
# What an instance logs of each proof of a daily deal (app.services.daily).
PROOF_LINE = re.compile(r"daily (\S+ \d{4}-\d{2}-\d{2}): (deal chosen|candidate \d+ not proven)")


def start_together(servers: list[Server]) -> None:
    """Started at once: both migrate (taking turns) and prepare at the same time."""
    failures: list[BaseException] = []

    def start(server: Server) -> None:
        try:
            server.start(timeout=120)
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)

    threads = [threading.Thread(target=start, args=(s,)) for s in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


@pytest.fixture
def pair(make_server: MakeServer, tmp_path: Path, probe_database_url: str) -> list[Server]:
    asyncio.run(empty_daily_deals(probe_database_url))  # every deal proven afresh here
    empty_seeds = tmp_path / "no-seeds"
    empty_seeds.mkdir()
    env = {
        "SECRET_KEY": "two-instances-one-secret",  # every instance of a deployment
        "SEEDS_DIR": str(empty_seeds),  # no deal is known before its first search
        "DAILY_PREPARE_AHEAD": "true",
        "SOLVABLE_PREPARE_AHEAD": "false",
        "AUTH_FAILURES_PER_MINUTE": "6",
        "LOG_LEVEL": "DEBUG",
    }
    servers = [make_server(**env), make_server(**env)]
    start_together(servers)
    return servers


def register(server: Server) -> dict[str, str]:
    answer = httpx.post(f"{server.base_url}{API}/players", json={"name": "two"})
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def log_lines(server: Server) -> list[dict[str, Any]]:
    lines = []
    for text in server.log_path.read_text().splitlines():
        try:
            lines.append(json.loads(text))
        except json.JSONDecodeError:
            continue
    return lines


async def test_moves_from_both_instances_on_one_game_none_lost_or_doubled(
    pair: list[Server],
) -> None:
    auth = register(pair[0])
    created = httpx.post(
        f"{pair[1].base_url}{API}/games", json={"variant": "rank-and-file", "deal": 5}, headers=auth
    )
    game_id = created.json()["id"]

    async def client(index: int) -> Tally:
        server = pair[index % 2]
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as c:
            return await play(c, auth, game_id, index=index, rounds=4)

    total = Tally()
    for tally in await asyncio.gather(*[client(i) for i in range(16)]):
        total.add(tally)
    # A retry with the same Idempotency-Key sent to the other instance plays once.
    key = {**auth, "Idempotency-Key": "sent-to-both"}
    first = httpx.post(
        f"{pair[0].base_url}{API}/games/{game_id}/moves", json={"action": "draw"}, headers=key
    )
    again = httpx.post(
        f"{pair[1].base_url}{API}/games/{game_id}/moves", json={"action": "draw"}, headers=key
    )
    assert first.status_code == again.status_code == 200
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json()["version"] == first.json()["version"]
    items = httpx.get(f"{pair[1].base_url}{API}/games/{game_id}/moves", headers=auth).json()
    acks = total.acks + [type(total.acks[0])(game_id, first.json()["version"], {"action": "draw"})]
    assert check_log(items["items"], acks) == 0
    assert items["total"] == len(acks)
    assert total.conflicts > 0 and len(total.acks) > 16


def test_a_hint_line_followed_through_alternating_instances_searches_once(
    pair: list[Server],
) -> None:
    auth = register(pair[0])
    body = {"variant": "rank-and-file", "deal": 1, "settings": {"auto_finish": False}}
    game_id = httpx.post(f"{pair[0].base_url}{API}/games", json=body, headers=auth).json()["id"]
    searched = []
    for turn in range(40):
        ask, move_on = pair[turn % 2], pair[(turn + 1) % 2]
        hint = httpx.post(f"{ask.base_url}{API}/games/{game_id}/hint", headers=auth, timeout=30)
        assert hint.status_code == 200, hint.text
        assert hint.json()["result"] == "solved"
        searched.append(hint.json()["positions"])
        played = httpx.post(
            f"{move_on.base_url}{API}/games/{game_id}/moves", json=hint.json()["move"], headers=auth
        )
        assert played.status_code == 200, played.text
    assert searched[0] > 0 and searched[1:] == [0] * 39, searched


def test_daily_deals_are_prepared_once_for_both_instances(pair: list[Server]) -> None:
    # Both prepare today's and tomorrow's deals at start-up: wait until both are done.
    for server in pair:
        for _ in range(600):
            if any("prepared in" in line.get("message", "") for line in log_lines(server)):
                break
            threading.Event().wait(0.5)
        else:
            pytest.fail(f"{server.base_url} did not finish preparing its daily deals")
    chosen: Counter[str] = Counter()
    proved_by: dict[str, set[int]] = {}
    for index, server in enumerate(pair):
        for line in log_lines(server):
            found = PROOF_LINE.match(line.get("message", ""))
            if found:
                subject, what = found.group(1), found.group(2)
                proved_by.setdefault(subject, set()).add(index)
                if what == "deal chosen":
                    chosen[subject] += 1
    assert len(chosen) == 2 * VARIANTS  # today's and tomorrow's, each variant
    assert set(chosen.values()) == {1}  # each chosen once
    assert all(len(by) == 1 for by in proved_by.values()), proved_by  # by one instance
    # Both instances answer the same deal, from the one proof.
    auth = register(pair[0])
    games = [httpx.post(f"{s.base_url}{API}/daily/rainbow/today/game", headers=auth) for s in pair]
    assert [g.status_code for g in games] == [201, 200]
    assert games[0].json()["id"] == games[1].json()["id"]


def test_failed_authentications_are_counted_across_instances(pair: list[Server]) -> None:
    auth = register(pair[0])
    wrong = {"Authorization": "Bearer not-a-token"}
    for i in range(6):  # AUTH_FAILURES_PER_MINUTE, half on each instance
        answer = httpx.get(f"{pair[i % 2].base_url}{API}/players/me", headers=wrong)
        assert answer.status_code == 401, answer.text
    for server in pair:
        answer = httpx.get(f"{server.base_url}{API}/players/me", headers=wrong)
        assert answer.status_code == 429, answer.text
        assert answer.json()["error"]["code"] == "too_many_auth_failures"
        # A right token from the address is answered whatever its count.
        answer = httpx.get(f"{server.base_url}{API}/players/me", headers=auth)
        assert answer.status_code == 200, answer.text


@pytest.fixture
def streaming_pair(make_server: MakeServer) -> list[Server]:
    # A stream reads its game's version once a minute: only NOTIFY is in time.
    env = {"SECRET_KEY": "two-instances-one-secret", "STREAM_RESYNC_SECONDS": "60"}
    servers = [make_server(**env), make_server(**env)]
    start_together(servers)
    return servers


async def test_a_move_through_one_instance_reaches_a_stream_on_the_other_within_a_second(
    streaming_pair: list[Server],
) -> None:
    one, other = streaming_pair
    auth = register(one)
    body = {"variant": "rank-and-file", "deal": 5}
    game = httpx.post(f"{one.base_url}{API}/games", json=body, headers=auth).json()
    # The browser's way in, a stream token, given by one instance and taken by the other.
    token = httpx.post(f"{one.base_url}{API}/games/{game['id']}/stream-token", headers=auth)
    assert token.status_code == 200, token.text
    url = f"{other.base_url}{API}/games/{game['id']}/events"
    async with (
        httpx.AsyncClient(base_url=one.base_url, timeout=10) as mover,
        httpx.AsyncClient(timeout=10) as listener,
        listener.stream("GET", url, params={"token": token.json()["token"]}) as response,
    ):
        reader = EventReader(response)
        first = await reader.next(5.0)
        assert first is not None and first.event == "state"
        for _ in range(5):
            moved = await mover.post(
                f"{API}/games/{game['id']}/moves", json={"action": "draw"}, headers=auth
            )
            assert moved.status_code == 200, moved.text
            started = time.monotonic()
            change = await reader.next(5.0)
            assert time.monotonic() - started < 1.0
            assert change is not None and change.id == str(moved.json()["version"])
            assert change.data["events"] == moved.json()["events"]
            assert (
                change.data["state"]
                == httpx.get(f"{one.base_url}{API}/games/{game['id']}", headers=auth).json()
            )


def _thrown_away(server: Server, auth: dict[str, str], variant: str, deal: int) -> str:
    """A game of random moves (a draw a quarter of the time), resigned: most end lost
    somewhere along a long line, which takes an analysis some seconds."""
    rng = random.Random(deal)
    url = f"{server.base_url}{API}/games"
    body = {"variant": variant, "deal": deal, "settings": {"auto_finish": False}}
    state = httpx.post(url, json=body, headers=auth).json()
    game_id = state["id"]
    with httpx.Client(base_url=server.base_url, headers=auth, timeout=30) as client:
        for _ in range(300):
            if state["status"] != "playing":
                break
            stock = [m for m in state["legal_moves"] if m["action"] != "move"]
            move = stock[0] if stock and rng.random() < 0.25 else rng.choice(state["legal_moves"])
            state = client.post(f"{API}/games/{game_id}/moves", json=move).json()
        if state["status"] == "playing":
            client.post(f"{API}/games/{game_id}/resign")
    return game_id


def _analysis_done(server: Server, auth: dict[str, str], game_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        answer = httpx.get(f"{server.base_url}{API}/games/{game_id}/analysis", headers=auth)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        if body["state"] == "done":
            return body
        time.sleep(0.5)
    raise AssertionError("the analysis did not end")


async def test_an_analysis_is_made_once_and_taken_over_when_its_instance_dies(
    make_server: MakeServer,
) -> None:
    env = {"SECRET_KEY": "two-instances-one-secret"}
    one, other = make_server(**env), make_server(**env)
    start_together([one, other])
    auth = register(one)
    # Asked through both at once: one analysis, the same answer from both.
    game = httpx.post(
        f"{one.base_url}{API}/games", json={"variant": "canfield", "deal": 1}, headers=auth
    ).json()
    httpx.post(f"{one.base_url}{API}/games/{game['id']}/resign", headers=auth)
    async with httpx.AsyncClient(timeout=30) as client:
        asked = await asyncio.gather(
            *[
                client.post(f"{s.base_url}{API}/games/{game['id']}/analysis", headers=auth)
                for s in (one, other)
            ]
        )
    assert {a.status_code for a in asked} <= {200, 202}
    assert len({a.json()["created_at"] for a in asked}) == 1
    done = _analysis_done(other, auth, game["id"])
    assert _analysis_done(one, auth, game["id"]) == done
    assert [p["verdict"] for p in done["plies"]] == ["winnable"]

    # A long one asked through `one`, killed while it runs: once its claim expires, a
    # request through `other` takes it over and finishes it.
    long_game = _thrown_away(one, auth, "rank-and-file", 13664049407)
    asked_one = httpx.post(f"{one.base_url}{API}/games/{long_game}/analysis", headers=auth)
    assert asked_one.status_code == 202, asked_one.text
    time.sleep(1.0)
    running = httpx.get(f"{one.base_url}{API}/games/{long_game}/analysis", headers=auth).json()
    assert running["state"] != "done", "too short to be cut off: choose a longer game"
    one.kill()
    body = _analysis_done(other, auth, long_game)
    assert len(body["plies"]) == body["move_count"] + 1
