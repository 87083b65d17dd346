"""Two instances of the service (`python -m app.server`) on one PostgreSQL,
started together, used through both: concurrent moves on one game from both (none
lost or doubled, a retry answered by the other instance), a hint line followed through
alternating instances (every hint after the first answers without a search), the daily
deals prepared once (proofs counted in both logs), failed authentications counted
across instances, a move through one instance reaching a game's stream held by the
other (LISTEN/NOTIFY), an analysis made once and taken over when its instance dies. With
ratings on (`DIFFICULTY_GAMES`): a solvable pool of one rating filled by both instances
and dealt through both, each deal to one game only, and the daily deal of a rating one
deal on both instances, proven by one of them. PostgreSQL only (`TEST_DATABASE_URL`):
`.ci/run` runs it there.
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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from app.models import SolvableDeal
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
# What an instance logs of each proof of a daily deal (app.services.daily.deals): the subject
# is the variant, the date and, for a deal of a rating of its own, the rating.
PROOF_LINE = re.compile(
    r"daily (\S+ \d{4}-\d{2}-\d{2}(?: [a-z]+)?): (deal chosen|candidate \d+ not taken)"
)


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


def _chosen_in_logs(servers: list[Server]) -> int:
    return sum(
        1
        for server in servers
        for line in log_lines(server)
        if (found := PROOF_LINE.match(line.get("message", ""))) and found.group(2) == "deal chosen"
    )


def test_daily_deals_are_prepared_once_for_both_instances(pair: list[Server]) -> None:
    # Both queue today's and tomorrow's deals at start-up: wait until all are chosen.
    for _ in range(600):
        if _chosen_in_logs(pair) >= 2 * VARIANTS:
            break
        threading.Event().wait(0.5)
    else:
        pytest.fail("the daily deals were not all prepared")
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
    # The watched games' versions are read once a minute: only NOTIFY is in time.
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

    # A long one asked through `one`, killed while it runs: once its job's lease runs
    # out, `other` takes it again and finishes it.
    long_game = _thrown_away(one, auth, "rank-and-file", 13664049407)
    asked_one = httpx.post(f"{one.base_url}{API}/games/{long_game}/analysis", headers=auth)
    assert asked_one.status_code == 202, asked_one.text
    time.sleep(1.0)
    running = httpx.get(f"{one.base_url}{API}/games/{long_game}/analysis", headers=auth).json()
    assert running["state"] != "done", "too short to be cut off: choose a longer game"
    one.kill()
    body = _analysis_done(other, auth, long_game)
    assert len(body["plies"]) == body["move_count"] + 1


# --- ratings: the solvable pools and the daily deals per rating ---------------------

RATED_VARIANT = "rank-and-file"
# A solvable pool's proof, as an instance logs it (app.services.background.solvable_pools).
SOLVABLE_LINE = re.compile(r"solvable (\S+): candidate (\d+) proven")


def rated_env(tmp_path: Path, **changes: str) -> dict[str, str]:
    """Ratings on, with the real rater on a few simulated games a deal (tests/conftest.py
    turns them off for every other test), no public deals, one secret."""
    empty_seeds = tmp_path / "no-seeds"
    empty_seeds.mkdir(exist_ok=True)
    return {
        "SECRET_KEY": "two-instances-one-secret",
        "SEEDS_DIR": str(empty_seeds),
        "DIFFICULTY_GAMES": "4",
        "DAILY_PREPARE_AHEAD": "false",
        "SOLVABLE_PREPARE_AHEAD": "false",
        "LOG_LEVEL": "DEBUG",
        **changes,
    }


async def _pool_rows(url: str, variant: str) -> list[SolvableDeal]:
    engine = create_async_engine(url)
    try:
        async with AsyncSession(engine) as session:
            query = select(SolvableDeal).where(SolvableDeal.variant == variant)
            return list((await session.execute(query)).scalars())
    finally:
        await engine.dispose()


def test_a_rated_pool_filled_by_both_instances_deals_each_deal_once(
    make_server: MakeServer, tmp_path: Path, probe_database_url: str
) -> None:
    """Both instances work the pools' jobs (two unused deals per variant and rating);
    games of one rating asked for through each in turn get distinct proven deals of that
    rating, each candidate proven once. A claim made per process instead of in the
    database would deal a deal twice here: each instance would take the pool's first
    deal of the rating."""
    # Short proofs: the nine variants' pools are filled at once, in one worker each.
    env = rated_env(
        tmp_path, SOLVABLE_PREPARE_AHEAD="true", SOLVABLE_POOL_SIZE="2", DAILY_MAX_SECONDS="0.3"
    )
    pair = [make_server(**env), make_server(**env)]
    start_together(pair)
    auth = register(pair[0])
    level, wanted = "hard", 4  # twice the pool: two are proven after the first claims
    body = {"variant": RATED_VARIANT, "solvable": True, "difficulty": level}
    dealt: list[tuple[int, str]] = []  # (instance, game id)
    deadline = time.monotonic() + 120  # about 20 s here; a loaded machine is slower
    while len(dealt) < wanted:
        index = len(dealt) % 2
        answer = httpx.post(f"{pair[index].base_url}{API}/games", json=body, headers=auth)
        if answer.status_code == 503:  # the pool of the rating is being filled
            assert answer.json()["error"]["code"] == "no_solvable_deals", answer.text
            assert int(answer.headers["Retry-After"]) >= 1
            assert time.monotonic() < deadline, f"no {level} deal in time"
            time.sleep(0.2)
            continue
        assert answer.status_code == 201, answer.text
        game = answer.json()
        assert (game["source"], game["difficulty"], game["deal"]) == ("solvable", level, None)
        dealt.append((index, game["id"]))

    deals: dict[str, int] = {}
    for index, game_id in dealt:
        other = pair[1 - index]  # each game read and resigned through the other instance
        shown = httpx.get(f"{other.base_url}{API}/games/{game_id}", headers=auth).json()
        assert shown["difficulty"] == level and shown["deal"] is None
        resigned = httpx.post(f"{other.base_url}{API}/games/{game_id}/resign", headers=auth)
        assert resigned.status_code == 200, resigned.text
        assert resigned.json()["difficulty"] == level and resigned.json()["deal"] is not None
        deals[game_id] = resigned.json()["deal"]
    assert len(set(deals.values())) == wanted, deals  # never the same deal twice

    # Each deal is a proven one of the rating in the pool, dealt to its game alone.
    rows = asyncio.run(_pool_rows(probe_database_url, RATED_VARIANT))
    by_deal = {int(row.deal): row for row in rows}
    for game_id, number in deals.items():
        row = by_deal[number]
        assert (row.difficulty, row.game_id) == (level, game_id)
        assert row.dealt_at is not None and row.line
    # The pool was filled by both instances, each candidate proven by one of them.
    proven: list[set[int]] = []
    for server in pair:
        seqs = set()
        for line in log_lines(server):
            found = SOLVABLE_LINE.match(line.get("message", ""))
            if found and found.group(1) == RATED_VARIANT:
                seqs.add(int(found.group(2)))
        proven.append(seqs)
    assert proven[0] or proven[1], proven
    assert not proven[0] & proven[1], proven
    assert {row.seq for row in rows} <= proven[0] | proven[1]

    # Claims made at once through both instances take different deals too: as many games
    # as the pool of a rating holds unused deals (the pool only grows meanwhile) all get one.
    other_level = "easy"
    while True:
        rows = asyncio.run(_pool_rows(probe_database_url, RATED_VARIANT))
        ready = [r for r in rows if r.difficulty == other_level and r.dealt_at is None]
        if len(ready) >= 2:
            break
        assert time.monotonic() < deadline, f"no two {other_level} deals in time"
        time.sleep(0.2)
    at_once = min(len(ready), 6)
    answers = asyncio.run(_create_at_once(pair, auth, other_level, at_once))
    assert [a.status_code for a in answers] == [201] * at_once, [a.text for a in answers]
    rows = asyncio.run(_pool_rows(probe_database_url, RATED_VARIANT))
    claimed = {r.game_id: r for r in rows if r.game_id in {a.json()["id"] for a in answers}}
    assert len(claimed) == at_once  # one deal each, no deal to two games
    assert {r.difficulty for r in claimed.values()} == {other_level}
    assert len({r.deal for r in claimed.values()}) == at_once


async def _create_at_once(
    pair: list[Server], auth: dict[str, str], level: str, count: int
) -> list[httpx.Response]:
    body = {"variant": RATED_VARIANT, "solvable": True, "difficulty": level}
    async with httpx.AsyncClient(timeout=30) as client:
        return await asyncio.gather(
            *[
                client.post(f"{pair[i % 2].base_url}{API}/games", json=body, headers=auth)
                for i in range(count)
            ]
        )


def _daily_game(
    server: Server, auth: dict[str, str], day: str, difficulty: str | None
) -> dict[str, Any]:
    """The player's daily game (of the deal of `difficulty`), waiting while it is proven."""
    params = {"difficulty": difficulty} if difficulty else {}
    url = f"{server.base_url}{API}/daily/{RATED_VARIANT}/{day}/game"
    for _ in range(10):
        answer = httpx.post(url, params=params, headers=auth, timeout=60)
        if answer.status_code != 503:
            break
        assert answer.json()["error"]["code"] == "daily_not_ready", answer.text
    assert answer.status_code in (200, 201), answer.text
    game: dict[str, Any] = answer.json()
    return game


def _table(state: dict[str, Any]) -> dict[str, Any]:
    """What a player sees of a game's deal and position (no id, time or version)."""
    keys = ("variant", "difficulty", "status", "redeals_left", "base_rank", "piles")
    return {key: state[key] for key in keys} | {"legal_moves": state["legal_moves"]}


async def test_the_daily_deal_of_a_rating_is_one_deal_on_both_instances(
    make_server: MakeServer, tmp_path: Path, probe_database_url: str
) -> None:
    """Two players, one on each instance, ask at once for the date's deal of a rating:
    the same deal (the same table, and the same cards turned up by the same moves),
    proven by one instance; each rating's deal is another deal."""
    await empty_daily_deals(probe_database_url)
    day = datetime.now(UTC).date()
    env = rated_env(tmp_path, DAILY_FIRST_DATE=(day - timedelta(days=30)).isoformat())
    pair = [make_server(**env), make_server(**env)]
    start_together(pair)
    players = [register(server) for server in pair]
    levels = ("easy", "hard", "expert")  # `medium` is seldom measured with four games
    tables: dict[str, dict[str, Any]] = {}
    ids: dict[str, list[str]] = {}
    for level in levels:
        games = await asyncio.gather(
            *[
                asyncio.to_thread(_daily_game, server, auth, day.isoformat(), level)
                for server, auth in zip(pair, players, strict=True)
            ]
        )
        assert [g["difficulty"] for g in games] == [level, level]
        assert [g["source"] for g in games] == ["daily", "daily"]
        assert games[0]["id"] != games[1]["id"] and games[0]["deal"] is None
        assert _table(games[0]) == _table(games[1])
        tables[level], ids[level] = _table(games[0]), [g["id"] for g in games]
        info = [
            httpx.get(
                f"{s.base_url}{API}/daily/{RATED_VARIANT}/{day}", params={"difficulty": level}
            ).json()
            for s in pair
        ]
        assert info[0] == info[1] and info[0]["players"] == 2 and info[0]["deal"] is None
    # Each rating's deal is another deal.
    for i, one in enumerate(levels):
        for other in levels[i + 1 :]:
            assert tables[one]["piles"] != tables[other]["piles"], (one, other)
    # The date's first deal (no rating asked) is its rating's deal, on both instances.
    firsts = [
        _daily_game(s, auth, day.isoformat(), None) for s, auth in zip(pair, players, strict=True)
    ]
    assert _table(firsts[0]) == _table(firsts[1])
    if firsts[0]["difficulty"] in levels:
        assert [g["id"] for g in firsts] == ids[firsts[0]["difficulty"]]

    # The same moves on the two games of the hard deal turn up the same cards.
    rng = random.Random(7)
    hard_games = ids["hard"]
    for _ in range(40):
        states = [
            httpx.get(f"{s.base_url}{API}/games/{g}", headers=auth).json()
            for s, g, auth in zip(pair, hard_games, players, strict=True)
        ]
        assert _table(states[0]) == _table(states[1])
        if states[0]["status"] != "playing":
            break
        move = rng.choice(states[0]["legal_moves"])
        for server, game_id, auth in zip(pair, hard_games, players, strict=True):
            moved = httpx.post(
                f"{server.base_url}{API}/games/{game_id}/moves", json=move, headers=auth
            )
            assert moved.status_code == 200, moved.text

    # Each of the date's deals was proven (its candidates tried) by one instance only.
    proved_by: dict[str, set[int]] = {}
    for index, server in enumerate(pair):
        for line in log_lines(server):
            found = PROOF_LINE.match(line.get("message", ""))
            if found:
                proved_by.setdefault(found.group(1), set()).add(index)
    assert proved_by and all(len(by) == 1 for by in proved_by.values()), proved_by


# --- web instances and a worker tier ------------------------------------------------


async def _unused_per_variant(url: str) -> Counter[str]:
    engine = create_async_engine(url)
    try:
        async with AsyncSession(engine) as session:
            query = select(SolvableDeal.variant).where(SolvableDeal.dealt_at.is_(None))
            return Counter((await session.execute(query)).scalars())
    finally:
        await engine.dispose()


def test_two_web_instances_and_a_worker_share_one_queue(
    make_server: MakeServer, tmp_path: Path, probe_database_url: str
) -> None:
    """Web instances with `BACKGROUND_WORK=false` queue the work and a worker
    (`python -m app.worker`) does it: a solvable deal asked through a web instance on an
    empty pool, today's daily deals proven once (by the worker), the pools filled, an
    analysis finished; a worker killed mid-analysis loses nothing: a new one takes the
    job again once its lease runs out and finishes it."""
    asyncio.run(empty_daily_deals(probe_database_url))  # every deal proven afresh here
    empty_seeds = tmp_path / "no-seeds"
    empty_seeds.mkdir()
    common = {
        "SECRET_KEY": "two-instances-one-secret",
        "SEEDS_DIR": str(empty_seeds),
        "DAILY_PREPARE_AHEAD": "true",
        "DAILY_DAYS_AHEAD": "0",
        "SOLVABLE_PREPARE_AHEAD": "true",
        "SOLVABLE_POOL_SIZE": "1",
        "SOLVABLE_WAIT_SECONDS": "60",
        "JOB_LEASE_SECONDS": "6",
        "LOG_LEVEL": "DEBUG",
    }
    web = [make_server(BACKGROUND_WORK="false", **common) for _ in range(2)]
    start_together(web)
    # Nothing works the queue yet: a solvable request waits, then is served by the worker.
    auth = register(web[0])
    body = {"variant": "rows-of-four", "solvable": True}

    async def ask() -> httpx.Response:
        async with httpx.AsyncClient(timeout=90) as client:
            return await client.post(f"{web[1].base_url}{API}/games", json=body, headers=auth)

    async def ask_then_start_a_worker() -> tuple[httpx.Response, Server]:
        asked = asyncio.create_task(ask())
        await asyncio.sleep(1.0)
        assert not asked.done(), "answered with no worker running"
        worker = make_server(worker=True, **common)
        await asyncio.to_thread(worker.start, 60)
        return await asked, worker

    solvable, worker = asyncio.run(ask_then_start_a_worker())
    assert solvable.status_code == 201, solvable.text
    assert solvable.json()["source"] == "solvable"

    # Today's daily deals: proven by the worker alone, each once; read through both.
    for _ in range(600):
        if _chosen_in_logs([worker]) >= VARIANTS:
            break
        threading.Event().wait(0.5)
    else:
        pytest.fail("the worker did not prove today's daily deals")
    assert _chosen_in_logs(web) == 0
    games = [httpx.post(f"{s.base_url}{API}/daily/emperor/today/game", headers=auth) for s in web]
    assert [g.status_code for g in games] == [201, 200]
    assert games[0].json()["id"] == games[1].json()["id"]

    # The pools fill (one unused deal per game).
    deadline = time.monotonic() + 240
    while len(asyncio.run(_unused_per_variant(probe_database_url))) < VARIANTS:
        assert time.monotonic() < deadline, "the pools were not filled"
        time.sleep(0.5)

    # An analysis asked through a web instance; the worker killed while it runs.
    long_game = _thrown_away(web[0], auth, "rank-and-file", 13664049407)
    asked = httpx.post(f"{web[0].base_url}{API}/games/{long_game}/analysis", headers=auth)
    assert asked.status_code == 202, asked.text
    for _ in range(200):
        now = httpx.get(f"{web[1].base_url}{API}/games/{long_game}/analysis", headers=auth)
        if now.json()["state"] == "running":
            break
        time.sleep(0.1)
    assert now.json()["state"] == "running", now.text
    worker.kill()
    again = make_server(worker=True, **common)
    again.start(timeout=60)
    done = _analysis_done(web[1], auth, long_game)
    assert len(done["plies"]) == done["move_count"] + 1
