"""Difficulty: proven deals rated easy to expert, dealt by rating (solvable pools, daily
deals) and shown in the game's state.

Deals are proven by the real solver with the daily tests' small budgets. Most tests rate
them with a stand-in rater (`by_number`: the deal number's remainder by four), so that
every rating comes quickly and predictably; one uses the real rater with a few games.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.config import Settings
from app.engine import State
from app.main import create_app
from app.models import SolvableDeal
from app.services.background import jobs, solvable_pools
from app.services.background.cpu_pool import REFILL
from app.services.background.solvable_pools import RATING_CAP
from app.solver.difficulty import LEVELS, Difficulty
from tests.api.conftest import API, NewPlayer, assert_error, empty_tables, running
from tests.api.daily_helpers import (  # noqa: F401 (small_solver: a fixture)
    daily_settings,
    empty_daily_deals,
    lifespan,
    small_solver,
    start_daily,
    stored_daily,
    today,
    win_with_line,
)
from tests.api.helpers import put_state, stuck_rank_and_file

pytestmark = pytest.mark.usefixtures("small_solver")

VARIANT = "rank-and-file"


def by_number(state: State, number: int, positions: int, games: int) -> Difficulty:
    """A stand-in rater: every rating, a quarter of the deals each, known in advance."""
    return LEVELS[number % 4]


_rare_calls = itertools.count(1)


def rarely_expert(state: State, number: int, positions: int, games: int) -> Difficulty:
    """A stand-in rater that gives `expert` only to the 20th deal it rates (then every
    fifth), one of each other rating first, and `easy` to all the others."""
    call = next(_rare_calls)
    if call <= 3:
        return LEVELS[call - 1]
    return "expert" if call >= 20 and call % 5 == 0 else "easy"


@pytest.fixture
async def settings(database_url: str, tmp_path: Path) -> AsyncIterator[Settings]:
    await empty_daily_deals(database_url)
    yield daily_settings(
        database_url,
        tmp_path,
        difficulty_games=1,
        difficulty_rater="tests.api.test_difficulty:by_number",
    )


async def _solvable(client: httpx.AsyncClient, auth: dict[str, str], **body: Any) -> httpx.Response:
    body = {"variant": VARIANT, "solvable": True, **body}
    return await client.post(f"{API}/games", json=body, headers=auth)


async def _pool(app: FastAPI) -> list[SolvableDeal]:
    async with app.state.services.database.sessionmaker() as session:
        query = select(SolvableDeal).where(SolvableDeal.variant == VARIANT)
        return list((await session.execute(query.order_by(SolvableDeal.seq))).scalars())


async def _win(app: FastAPI, auth: dict[str, str], game_id: str, line: list[Any]) -> Any:
    from app.engine import Move
    from app.services import games
    from tests.api.daily_helpers import player_of

    player = await player_of(app, auth)
    async with app.state.services.database.sessionmaker() as session:
        return await games.apply_moves(session, player, game_id, [Move.from_json(m) for m in line])


async def test_difficulty_needs_solvable(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    for body in ({"difficulty": "hard"}, {"difficulty": "hard", "deal": 5}):
        response = await client.post(
            f"{API}/games", json={"variant": VARIANT, **body}, headers=auth
        )
        error = assert_error(response, 422, "validation_error")
        faults = [(f["field"], f["code"]) for f in error["errors"]]
        assert faults == [("difficulty", "difficulty_without_solvable")]
    response = await _solvable(client, auth, difficulty="impossible")
    assert_error(response, 422, "validation_error")


async def test_an_empty_pool_of_a_rating_answers_503(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await _solvable(client, auth, difficulty="expert")
    assert_error(response, 503, "no_solvable_deals")
    assert int(response.headers["Retry-After"]) >= 1


async def test_each_rating_is_dealt_as_asked_and_shown_from_the_start(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await app.state.services.solvable.fill(VARIANT, 1)
    pool = await _pool(app)
    # Proven, then rated, then put in the pool of their rating: one of each at least.
    assert {row.difficulty for row in pool if row.dealt_at is None} == set(LEVELS)
    for row in pool:
        assert row.difficulty == LEVELS[int(row.deal) % 4]
    for level in LEVELS:
        response = await _solvable(client, auth, difficulty=level)
        assert response.status_code == 201, response.text
        assert response.json()["difficulty"] == level  # asked for: shown at once
        game_id = response.json()["id"]
        shown = (await client.get(f"{API}/games/{game_id}", headers=auth)).json()
        assert shown["difficulty"] == level
        (row,) = [r for r in await _pool(app) if r.game_id == game_id]
        assert row.difficulty == level


async def _filled_with(database_url: str, tmp_path: Path, rater: str) -> list[SolvableDeal]:
    """The pool of a server rating with ``rater`` (of this module) after one fill of
    one deal a rating (bounded by two minutes)."""
    settings = daily_settings(
        database_url,
        tmp_path,
        difficulty_games=1,
        difficulty_rater=f"tests.api.test_difficulty:{rater}",
    )
    await empty_tables(database_url)
    app = create_app(settings)
    async with running(app):
        await asyncio.wait_for(app.state.services.solvable.fill(VARIANT, 1), 120)
        return await _pool(app)


async def test_a_rating_the_candidates_seldom_give_fills_without_the_others_growing(
    database_url: str, tmp_path: Path
) -> None:
    global _rare_calls
    _rare_calls = itertools.count(1)
    rows = await _filled_with(database_url, tmp_path, "rarely_expert")
    unused = [row.difficulty for row in rows if row.dealt_at is None]
    assert unused.count("expert") == 1
    assert unused.count("easy") == RATING_CAP  # the other 15 or so easy deals not kept
    assert unused.count("medium") == unused.count("hard") == 1


def never_expert(state: State, number: int, positions: int, games: int) -> Difficulty:
    """A stand-in rater that never gives `expert`."""
    return LEVELS[number % 3]


async def test_a_rating_no_candidate_gets_stops_the_fill_after_a_bounded_run(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(solvable_pools, "MAX_UNKEPT", 6)
    rows = await _filled_with(database_url, tmp_path, "never_expert")
    unused = [row.difficulty for row in rows if row.dealt_at is None]
    assert "expert" not in unused
    for level in ("easy", "medium", "hard"):
        assert 1 <= unused.count(level) <= RATING_CAP


async def test_a_solvable_game_shows_its_rating_once_won(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await app.state.services.solvable.fill(VARIANT, 1)
    response = await _solvable(client, auth)
    assert response.status_code == 201 and response.json()["difficulty"] is None
    game_id = response.json()["id"]
    (row,) = [r for r in await _pool(app) if r.game_id == game_id]
    won = await _win(app, auth, game_id, row.line)
    assert won.body.status == "won" and won.body.difficulty == row.difficulty
    assert (await client.get(f"{API}/games/{game_id}", headers=auth)).json()[
        "difficulty"
    ] == row.difficulty


async def test_a_solvable_game_shows_its_rating_once_resigned_or_stuck(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """Over, whether won, resigned or stuck: the rating is told then, not before."""
    await app.state.services.solvable.fill(VARIANT, 2)
    resigned = (await _solvable(client, auth)).json()
    stuck = (await _solvable(client, auth)).json()
    assert resigned["difficulty"] is None and stuck["difficulty"] is None
    rating = {row.game_id: row.difficulty for row in await _pool(app)}
    answer = await client.post(f"{API}/games/{resigned['id']}/resign", headers=auth)
    assert answer.json()["status"] == "resigned"
    assert answer.json()["difficulty"] == rating[resigned["id"]] is not None
    await put_state(app, stuck["id"], stuck_rank_and_file())
    shown = (await client.get(f"{API}/games/{stuck['id']}", headers=auth)).json()
    assert shown["status"] == "stuck" and shown["difficulty"] == rating[stuck["id"]] is not None


async def test_a_deal_by_number_has_no_rating(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.post(f"{API}/games", json={"variant": VARIANT, "deal": 7}, headers=auth)
    assert response.status_code == 201 and response.json()["difficulty"] is None


async def test_the_daily_deal_of_each_rating(
    app: FastAPI, client: httpx.AsyncClient, new_player: NewPlayer
) -> None:
    ada, bob = await new_player("ada"), await new_player("bob")
    when = today().isoformat()
    first = (await start_daily(client, ada, when)).json()
    first_row = await stored_daily(app, VARIANT, when)
    assert first_row.difficulty in LEVELS
    # A daily deal's rating is public (GET /daily says it): shown from the start.
    assert first["difficulty"] == first_row.difficulty
    numbers, ids = {}, {}
    for level in LEVELS:
        response = await client.post(
            f"{API}/daily/{VARIANT}/{when}/game", params={"difficulty": level}, headers=ada
        )
        assert response.status_code in (200, 201), response.text
        assert response.json()["difficulty"] == level and response.json()["source"] == "daily"
        slot = "" if level == first_row.difficulty else level
        row = await stored_daily(app, VARIANT, when, slot)
        assert row.difficulty == level
        numbers[level], ids[level] = row.deal, response.json()["id"]
        # The first deal's own rating is the first deal: the same game, not a second one.
        assert (response.status_code == 200) == (level == first_row.difficulty)
        info = await client.get(f"{API}/daily/{VARIANT}/{when}", params={"difficulty": level})
        assert info.status_code == 200 and info.json()["difficulty"] == level
        assert info.json()["players"] == 1
    assert len(set(numbers.values())) == len(LEVELS)  # four deals, one per rating
    assert ids[first_row.difficulty] == first["id"]
    plain = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    assert plain["difficulty"] == first_row.difficulty and plain["players"] == 1

    # The ranking per rating: bob wins the hard deal; only its results list him.
    hard = await client.post(
        f"{API}/daily/{VARIANT}/{when}/game", params={"difficulty": "hard"}, headers=bob
    )
    slot = "" if first_row.difficulty == "hard" else "hard"
    won = await win_with_line(app, bob, hard.json()["id"], VARIANT, when, slot=slot)
    assert won["difficulty"] == "hard" and won["ranked"] is True
    for level in LEVELS:
        results = await client.get(
            f"{API}/daily/{VARIANT}/{when}/results", params={"difficulty": level}, headers=bob
        )
        assert results.status_code == 200, results.text
        body = results.json()
        assert body["difficulty"] == level
        assert body["total"] == (1 if level == "hard" else 0), level
        if level == "hard":
            assert body["items"][0]["name"] == "bob" and body["me"]["rank"] == 1
        else:
            assert body["me"] is None or body["me"]["game_id"] != hard.json()["id"]
    plain_results = (await client.get(f"{API}/daily/{VARIANT}/{when}/results")).json()
    assert plain_results["total"] == (1 if first_row.difficulty == "hard" else 0)


async def test_real_ratings_are_stored_with_the_proof_and_the_game(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real rater, with two simulated games a deal: ratings are levels, stored with
    the proven deal and on the game dealt from it. (The small budget proves mostly deals
    the player wins: the fill stops after a few proofs of full ratings.)"""
    monkeypatch.setattr(solvable_pools, "MAX_UNKEPT", 4)
    from asgi_lifespan import LifespanManager

    from app.main import create_app
    from tests.api.conftest import empty_tables

    await empty_tables(database_url)
    settings = daily_settings(database_url, tmp_path, difficulty_games=2)
    app = create_app(settings)
    async with LifespanManager(app, shutdown_timeout=60):
        await app.state.services.solvable.fill(VARIANT, 1)
        rows = await _pool(app)
        assert rows and all(row.difficulty in LEVELS for row in rows)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            token = (await client.post(f"{API}/players", json={})).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            level = rows[0].difficulty
            response = await _solvable(client, auth, difficulty=level)
            assert response.status_code == 201 and response.json()["difficulty"] == level


async def test_unrated_servers_refuse_daily_ratings(database_url: str, tmp_path: Path) -> None:
    from asgi_lifespan import LifespanManager

    from app.main import create_app

    app = create_app(daily_settings(database_url, tmp_path, difficulty_games=0))
    async with LifespanManager(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            for path in ("", "/results"):
                response = await client.get(
                    f"{API}/daily/{VARIANT}/today{path}", params={"difficulty": "easy"}
                )
                assert_error(response, 404, "daily_not_available")


_gate = threading.Event()


def gated_by_number(state: State, number: int, positions: int, games: int) -> Difficulty:
    """`by_number`, once the test opens the gate (a rating that takes a while)."""
    _gate.wait(60)
    return by_number(state, number, positions, games)


async def test_a_deal_proven_for_a_waiting_request_is_dealt_first_and_rated_after(
    database_url: str, tmp_path: Path
) -> None:
    """A request that waits on an empty pool gets its deal as soon as it is proven, not
    after its rating; the rating comes after, into the pool's row and the game, and a
    game already over shows it as a change of its own (its version goes up)."""
    _gate.clear()
    await empty_daily_deals(database_url)
    settings = daily_settings(
        database_url,
        tmp_path,
        difficulty_games=1,
        difficulty_rater="tests.api.test_difficulty:gated_by_number",
        solvable_wait_seconds=60.0,
    )
    await empty_tables(database_url)
    app = create_app(settings)
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            token = (await client.post(f"{API}/players", json={})).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            response = await _solvable(client, auth)  # the rater is shut: dealt unrated
            assert response.status_code == 201, response.text
            game_id = response.json()["id"]
            (row,) = await _pool(app)
            assert row.game_id == game_id and row.difficulty is None
            resigned = await client.post(f"{API}/games/{game_id}/resign", headers=auth)
            assert resigned.json()["difficulty"] is None
            version = resigned.json()["version"]
            _gate.set()
            started = time.perf_counter()
            while (await _pool(app))[0].difficulty is None:
                assert time.perf_counter() - started < 30, "the deal was never rated"
                await asyncio.sleep(0.05)
            rating = LEVELS[int(row.deal) % 4]
            assert (await _pool(app))[0].difficulty == rating
            shown = (await client.get(f"{API}/games/{game_id}", headers=auth)).json()
    assert shown["difficulty"] == rating and shown["version"] == version + 1


async def test_a_ratings_retry_after_counts_the_pools_filling_at_once(
    settings: Settings,
) -> None:
    """An empty rating's Retry-After: a candidate's time, times the games whose pools
    fill at once (each unit takes its turn), over that rating's share of candidates."""
    await empty_tables(settings.database_url)
    app = create_app(settings)
    async with lifespan(app):
        pools = app.state.services.solvable
        alone = await pools.retry_after(VARIANT, "expert")
        async with app.state.services.database.sessionmaker() as session:
            for variant in ("rainbow", "emperor", "canfield"):
                await jobs.enqueue(session, "solvable", variant, REFILL)
        crowded = await pools.retry_after("deauville", "expert")
        assert crowded >= 3 * alone - 1
        # Any rating: four times as many candidates will do.
        assert await pools.retry_after("deauville") * 4 <= crowded + 4
        # A rating seen often among the proofs is expected sooner.
        pools._seen["deauville"].update(easy=30, medium=2, hard=2, expert=2)
        assert await pools.retry_after("deauville", "easy") < crowded / 2


async def _store_deals(app: FastAPI, difficulty: str | None, count: int) -> None:
    """`count` unused proven deals of `difficulty` in the pool (deal numbers 1, 2, ...:
    dealt under the variant's own rules, no line is replayed)."""
    async with app.state.services.database.sessionmaker() as session, session.begin():
        for seq in range(count):
            session.add(
                SolvableDeal(
                    variant=VARIANT,
                    seq=seq,
                    deal=str(seq + 1),
                    positions=1,
                    elapsed_ms=1,
                    line=[],
                    difficulty=difficulty,
                )
            )


async def test_the_variant_tells_which_ratings_are_ready_and_when_the_others_may_be(
    database_url: str, tmp_path: Path
) -> None:
    """Deals of one rating only: that rating is ready, the others are not and have an
    estimate, which is the Retry-After their requests get; dealing the last one flips
    it."""
    settings = daily_settings(
        database_url,
        tmp_path,
        difficulty_games=1,
        difficulty_rater="tests.api.test_difficulty:by_number",
        solvable_prepare_ahead=False,
    )
    await empty_tables(database_url)
    app = create_app(settings)
    async with lifespan(app):
        await _store_deals(app, "hard", 1)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            auth = {
                "Authorization": f"Bearer {(await client.post(f'{API}/players')).json()['token']}"
            }

            async def by_rating() -> dict[str, dict[str, Any]]:
                response = await client.get(f"{API}/variants/{VARIANT}")
                assert response.status_code == 200, response.text
                listed = (await client.get(f"{API}/variants")).json()
                (same,) = [v for v in listed if v["id"] == VARIANT]
                assert same["solvable_by_rating"] == response.json()["solvable_by_rating"]
                return {r["difficulty"]: r for r in response.json()["solvable_by_rating"]}

            ratings = await by_rating()
            assert list(ratings) == list(LEVELS)
            assert ratings["hard"] == {
                "difficulty": "hard",
                "ready": 1,
                "retry_after_seconds": None,
            }
            for level in ("easy", "medium", "expert"):
                assert ratings[level]["ready"] == 0
                assert 1 <= ratings[level]["retry_after_seconds"] <= 300
                refused = await _solvable(client, auth, difficulty=level)
                assert_error(refused, 503, "no_solvable_deals")
                # The request asked for its pool: the estimate now counts it as filling.
                estimate = (await by_rating())[level]["retry_after_seconds"]
                assert int(refused.headers["Retry-After"]) == estimate

            dealt = await _solvable(client, auth, difficulty="hard")
            assert dealt.status_code == 201, dealt.text
            hard = (await by_rating())["hard"]
            assert hard["ready"] == 0 and 1 <= hard["retry_after_seconds"] <= 300
            refused = await _solvable(client, auth, difficulty="hard")
            assert_error(refused, 503, "no_solvable_deals")


async def test_a_server_that_rates_no_deals_offers_no_rating(
    database_url: str, tmp_path: Path
) -> None:
    settings = daily_settings(
        database_url, tmp_path, difficulty_games=0, solvable_prepare_ahead=False
    )
    await empty_tables(database_url)
    app = create_app(settings)
    async with lifespan(app):
        await _store_deals(app, None, 2)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            shown = (await client.get(f"{API}/variants/{VARIANT}")).json()
    assert shown["solvable_ready"] == 2 and shown["solvable_by_rating"] == []
