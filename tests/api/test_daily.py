"""Daily deals: one proven deal per variant and date, one game per player and date,
results. Deals are proven by the real solver with a small budget."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.config import Settings
from app.engine import VARIANTS, State, deal, get_variant
from app.main import create_app
from app.models import DailyDeal, Game
from app.services.background import jobs
from app.services.background.proving import prove
from app.services.daily import deals as daily_service
from app.services.daily.deals import candidate, day_end
from app.solver.result import SolveResult
from tests.api.conftest import API, NewPlayer, assert_error
from tests.api.daily_helpers import (
    SECRET,
    VARIANT,
    daily_settings,
    day,
    empty_daily_deals,
    layout,
    lifespan,
    on_date,
    start_daily,
    stored_deal_number,
    today,
    win_with_line,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def settings(database_url: str, tmp_path: Path) -> AsyncIterator[Settings]:
    await empty_daily_deals(database_url)
    yield daily_settings(database_url, tmp_path)


async def test_info_has_counts_no_cards_and_is_revalidated_until_settled(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.get(f"{API}/daily/dress-parade/today")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body == {
        "variant": VARIANT,
        "date": day(0),
        "players": 0,
        "wins": 0,
        "deal": None,
        "deal_str": None,
        "ends_at": day_end(today()).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "difficulty": None,  # not proven yet (and these tests do not rate deals)
    }
    # Today's players and wins change all day: a cache must ask again, by the ETag.
    assert response.headers["Cache-Control"] == "no-cache"
    tag = response.headers["ETag"]
    same = await client.get(f"{API}/daily/{VARIANT}/today", headers={"If-None-Match": tag})
    assert same.status_code == 304 and same.headers["ETag"] == tag
    # A past date whose deal nobody asked for has none yet: the first game of it (practice)
    # proves one, and the answer then shows its number. Revalidated until then.
    past = await client.get(f"{API}/daily/{VARIANT}/{day(3)}")
    assert past.status_code == 200 and past.json()["date"] == day(3)
    assert past.json()["deal"] is None
    assert past.headers["Cache-Control"] == "no-cache"
    assert (await start_daily(client, auth, day(3))).status_code == 201
    # Its deal shown, a past date no longer changes: cached for a day.
    settled = await client.get(f"{API}/daily/{VARIANT}/{day(3)}")
    assert settled.json()["deal"] is not None and settled.json()["players"] == 0
    assert settled.headers["Cache-Control"] == "public, max-age=86400, immutable"


async def test_todays_etag_changes_with_its_players(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    first = await client.get(f"{API}/daily/{VARIANT}/today")
    assert (await start_daily(client, auth, "today")).status_code == 201
    headers = {"If-None-Match": first.headers["ETag"]}
    again = await client.get(f"{API}/daily/{VARIANT}/today", headers=headers)
    assert again.status_code == 200 and again.json()["players"] == 1
    assert again.headers["ETag"] != first.headers["ETag"]


async def test_future_dates_are_refused(
    client: httpx.AsyncClient, auth: dict[str, str], app: FastAPI
) -> None:
    tomorrow = (today() + timedelta(days=1)).isoformat()
    for method, path in (
        ("GET", f"{API}/daily/{VARIANT}/{tomorrow}"),
        ("POST", f"{API}/daily/{VARIANT}/{tomorrow}/game"),
        ("GET", f"{API}/daily/{VARIANT}/{tomorrow}/results"),
        ("GET", f"{API}/daily/{VARIANT}/2999-01-01"),
    ):
        response = await client.request(method, path, headers=auth)
        assert_error(response, 404, "daily_not_available")
    async with app.state.services.database.sessionmaker() as session:
        assert (await session.execute(select(func.count(DailyDeal.id)))).scalar_one() == 0


@pytest.mark.parametrize("bad", ["2024-13-01", "2024-02-30", "2024-1-01", "yesterday", "x" * 10])
async def test_malformed_dates_are_422(
    client: httpx.AsyncClient, auth: dict[str, str], bad: str
) -> None:
    assert_error(await client.get(f"{API}/daily/{VARIANT}/{bad}"), 422, "validation_error")
    assert_error(await start_daily(client, auth, bad), 422, "validation_error")
    assert_error(await client.get(f"{API}/daily/{VARIANT}/{bad}/results"), 422, "validation_error")


async def test_unknown_variant_and_no_token(client: httpx.AsyncClient) -> None:
    assert_error(await client.get(f"{API}/daily/klondike/today"), 404, "variant_not_found")
    assert_error(await client.post(f"{API}/daily/{VARIANT}/today/game"), 401, "unauthorized")
    wrong = {"Authorization": "Bearer nope"}
    response = await client.get(f"{API}/daily/{VARIANT}/today/results", headers=wrong)
    assert_error(response, 401, "unauthorized")


async def test_two_players_get_the_same_layout_and_one_game_each(
    client: httpx.AsyncClient, new_player: NewPlayer
) -> None:
    ada, bob = await new_player("ada"), await new_player("bob")
    first = await start_daily(client, ada, "today")
    assert first.status_code == 201, first.text
    state = first.json()
    assert first.headers["Location"] == f"{API}/games/{state['id']}"
    assert state["source"] == "daily" and state["deal"] is None
    assert state["variant"] == VARIANT and state["status"] == "playing"
    other = await start_daily(client, bob, day(0), "dress-parade")
    assert other.status_code == 201
    assert other.json()["id"] != state["id"]
    assert layout(other.json()) == layout(state)
    again = await start_daily(client, ada, day(0))
    assert again.status_code == 200
    assert again.json()["id"] == state["id"]
    assert again.headers["Location"] == first.headers["Location"]
    # The whole state and its ETag, as when it was created (declared for the 200 too).
    assert again.headers["ETag"] == first.headers["ETag"]
    assert layout(again.json()) == layout(state)
    # It is an ordinary game of the player's: listed, readable, playable.
    listed = (await client.get(f"{API}/games", headers=ada)).json()["items"]
    assert [g["id"] for g in listed] == [state["id"]]
    assert listed[0]["deal"] is None
    info = (await client.get(f"{API}/daily/{VARIANT}/today")).json()
    assert (info["players"], info["wins"], info["deal"]) == (2, 0, None)


async def test_different_dates_give_different_deals(
    client: httpx.AsyncClient, auth: dict[str, str], app: FastAPI
) -> None:
    layouts, numbers = [], set()
    for days_ago in (0, 1, 2):
        response = await start_daily(client, auth, day(days_ago))
        assert response.status_code == 201, response.text
        layouts.append(layout(response.json()))
        numbers.add(await stored_deal_number(app, VARIANT, day(days_ago)))
    assert len(numbers) == 3
    assert layouts[0] != layouts[1] != layouts[2] != layouts[0]


async def test_the_deal_is_the_first_proven_candidate_outside_the_public_list(
    client: httpx.AsyncClient, auth: dict[str, str], app: FastAPI, settings: Settings
) -> None:
    when = day(1)
    # Pretend the first two candidates of that day are in the public list.
    public = [candidate(SECRET, VARIANT, today() - timedelta(days=1), a) for a in (0, 1)]
    (settings.seeds_dir / f"{VARIANT}.json").write_text(
        json.dumps({"variant": VARIANT, "deals": [{"deal": n, "line": []} for n in public]})
    )
    response = await start_daily(client, auth, when)
    assert response.status_code == 201, response.text
    async with app.state.services.database.sessionmaker() as session:
        row = (await session.execute(select(DailyDeal))).scalar_one()
    assert row.attempt >= 2 and int(row.deal) not in public
    assert int(row.deal) == candidate(SECRET, VARIANT, row.day, row.attempt)
    # Proven: the stored line wins from the deal (the engine replays it).
    assert prove("app.solver.plan:solve", VARIANT, int(row.deal), 10**6, 60) is not None
    # The date is over: its number is revealed, and it deals the layout the player got.
    info = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    assert info["deal"] == int(row.deal)
    assert deal(get_variant(VARIANT), int(row.deal)).public()["piles"] == layout(response.json())


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_daily_layout_is_no_committed_seed(settings: Settings, variant: str) -> None:
    seeds = ROOT / "seeds" / f"{variant}.json"
    if not seeds.exists():
        pytest.skip(f"no {seeds.name} yet")
    listed = [int(e["deal"]) for e in json.loads(seeds.read_text())["deals"]]
    changed = settings.model_copy(update={"seeds_dir": ROOT / "seeds"})
    async with lifespan(create_app(changed)) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            token = (await client.post(f"{API}/players", json={})).json()["token"]
            response = await start_daily(
                client, {"Authorization": f"Bearer {token}"}, "today", variant
            )
    assert response.status_code == 201, response.text
    mine = layout(response.json())
    v = get_variant(variant)
    assert all(deal(v, n).public()["piles"] != mine for n in listed)


async def test_concurrent_first_calls_create_one_game(
    client: httpx.AsyncClient, auth: dict[str, str], app: FastAPI
) -> None:
    # Twice: while the deal is being chosen, and once it is stored (racing inserts).
    for when in (day(0), day(1)):
        if when == day(1):
            await start_daily(client, await _other_player(client), when)
        responses = await asyncio.gather(*(start_daily(client, auth, when) for _ in range(6)))
        assert sorted(r.status_code for r in responses) == [200] * 5 + [201]
        assert len({r.json()["id"] for r in responses}) == 1
    async with app.state.services.database.sessionmaker() as session:
        count = (await session.execute(select(func.count(DailyDeal.id)))).scalar_one()
        games = (
            await session.execute(select(func.count(Game.id)).where(Game.daily_date.is_not(None)))
        ).scalar_one()
    assert count == 2 and games == 3


async def _other_player(client: httpx.AsyncClient) -> dict[str, str]:
    token = (await client.post(f"{API}/players", json={"name": "eve"})).json()["token"]
    return {"Authorization": f"Bearer {token}"}


async def test_the_choice_survives_a_restart_with_another_secret(
    client: httpx.AsyncClient, auth: dict[str, str], settings: Settings
) -> None:
    first = await start_daily(client, auth, day(2))
    assert first.status_code == 201
    number = (await client.get(f"{API}/daily/{VARIANT}/{day(2)}")).json()["deal"]
    assert isinstance(number, int)
    restarted = create_app(settings.model_copy(update={"secret_key": "another secret"}))
    async with lifespan(restarted):
        transport = httpx.ASGITransport(app=restarted)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as other:
            info = (await other.get(f"{API}/daily/{VARIANT}/{day(2)}")).json()
            token = (await other.post(f"{API}/players", json={})).json()["token"]
            second = await start_daily(other, {"Authorization": f"Bearer {token}"}, day(2))
            fresh = await start_daily(other, {"Authorization": f"Bearer {token}"}, day(3))
    assert info["deal"] == number
    assert second.status_code == 201 and layout(second.json()) == layout(first.json())
    # A date nobody chose yet does follow the new secret.
    async with restarted.state.services.database.sessionmaker() as session:
        row = (
            await session.execute(select(DailyDeal).where(DailyDeal.day == today() - timedelta(3)))
        ).scalar_one()
    assert fresh.status_code == 201
    assert int(row.deal) == candidate("another secret", VARIANT, row.day, row.attempt)


async def test_not_ready_answers_503_with_retry_after(settings: Settings) -> None:
    # No time to wait: the request gives up at once while the proof goes on.
    app = create_app(settings.model_copy(update={"daily_wait_seconds": 0.0}))
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            token = (await client.post(f"{API}/players", json={})).json()["token"]
            headers = {"Authorization": f"Bearer {token}"}
            response = await start_daily(client, headers, day(5))
            assert_error(response, 503, "daily_not_ready")
            assert int(response.headers["Retry-After"]) >= 1
            # A retry once the proof is stored gets the game.
            for _ in range(1200):
                retry = await start_daily(client, headers, day(5))
                if retry.status_code != 503:
                    break
                await asyncio.sleep(0.1)
    assert retry.status_code == 201, retry.text


async def test_results_rank_by_moves_then_time(
    client: httpx.AsyncClient, new_player: NewPlayer, app: FastAPI
) -> None:
    when = day(1)
    ada, bob, cy, dan = [await new_player(n) for n in ("ada", "bob", "cy", "dan")]
    # Played on its date (yesterday's, as it was then).
    with on_date(when):
        games = {}
        for name, headers in (("ada", ada), ("bob", bob), ("cy", cy), ("dan", dan)):
            response = await start_daily(client, headers, when)
            assert response.status_code == 201
            games[name] = response.json()["id"]
        # cy plays the whole line by hand (auto-finish off) with a detour: more moves than the
        # others (auto-finish alone saves none when the last stock card is the last to go up).
        patch = {"settings": {"auto_finish": False}}
        assert (await client.patch(f"{API}/games/{games['cy']}", json=patch, headers=cy)).is_success
        cy_won = await win_with_line(app, cy, games["cy"], VARIANT, when, detour=True)
        # bob and ada play the same line with auto-finish: same moves; bob, started
        # later, wins sooner after his start, so he ranks first.
        await asyncio.sleep(0.05)
        bob_won = await win_with_line(app, bob, games["bob"], VARIANT, when)
        ada_won = await win_with_line(app, ada, games["ada"], VARIANT, when)
        assert ada_won["move_count"] == bob_won["move_count"] < cy_won["move_count"]
        # Won while the date is current: the number stays secret until it is over.
        assert ada_won["deal"] is None
    # The date is over: the won game shows the number.
    ada_now = (await client.get(f"{API}/games/{games['ada']}", headers=ada)).json()
    assert ada_now["deal"] == await stored_deal_number(app, VARIANT, when)

    url = f"{API}/daily/{VARIANT}/{when}/results"
    everyone = (await client.get(url)).json()
    assert everyone["total"] == 3 and everyone["me"] is None
    assert [(e["rank"], e["name"]) for e in everyone["items"]] == [
        (1, "bob"),
        (2, "ada"),
        (3, "cy"),
    ]
    assert [e["moves"] for e in everyone["items"]] == [bob_won["move_count"]] * 2 + [
        cy_won["move_count"]
    ]
    assert all(e["time_ms"] >= 0 for e in everyone["items"])
    assert everyone["items"][0]["time_ms"] < everyone["items"][1]["time_ms"]

    page = (await client.get(url, params={"limit": 2})).json()
    assert [e["name"] for e in page["items"]] == ["bob", "ada"] and page["next_offset"] == 2
    last = (await client.get(url, params={"limit": 2, "offset": 2}, headers=ada)).json()
    assert [(e["rank"], e["name"]) for e in last["items"]] == [(3, "cy")]
    assert last["next_offset"] is None
    assert last["me"]["rank"] == 2 and last["me"]["game_id"] == games["ada"]
    assert last["me"]["moves"] == ada_won["move_count"] and last["me"]["status"] == "won"
    mine = (await client.get(url, headers=dan)).json()["me"]
    assert mine == {
        "game_id": games["dan"],
        "status": "playing",
        "moves": 0,
        "assisted": False,
        "ranked": False,  # its date is over: it can no longer be ranked
        "unranked_reason": "late",
        "rank": None,
        "time_ms": None,
    }
    info = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    assert (info["players"], info["wins"]) == (4, 3)
    assert_error(await client.get(url, params={"limit": 0}), 422, "validation_error")


def lying_prover(
    state: State, max_positions: int, max_seconds: float, **core: object
) -> SolveResult:
    """Claims every deal solved with an empty line (selected by the daily_prover setting)."""
    return SolveResult("solved", [], 1, 0)


async def test_a_claimed_proof_is_replayed_before_it_counts(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The job is tried `MAX_ATTEMPTS` times before it fails: at once, not after the pauses
    # (10 s, then 20 s) a real failure waits between its attempts.
    monkeypatch.setattr(jobs, "RETRY_PAUSE", timedelta(0))
    prover = "tests.api.test_daily:lying_prover"
    app = create_app(settings.model_copy(update={"daily_prover": prover, "daily_max_attempts": 3}))
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            token = (await client.post(f"{API}/players", json={})).json()["token"]
            response = await start_daily(client, {"Authorization": f"Bearer {token}"}, day(6))
        async with app.state.services.database.sessionmaker() as session:
            stored = (await session.execute(select(func.count(DailyDeal.id)))).scalar_one()
    assert_error(response, 503, "daily_not_ready")
    assert stored == 0


async def test_today_and_tomorrow_are_prepared_in_the_background(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One quickly proven variant stands for all of them.
    monkeypatch.setattr(daily_service, "VARIANTS", {"canfield": get_variant("canfield")})
    app = create_app(settings.model_copy(update={"daily_prepare_ahead": True}))
    async with lifespan(app):
        for _ in range(600):
            async with app.state.services.database.sessionmaker() as session:
                days = set((await session.execute(select(DailyDeal.day))).scalars())
            if len(days) == 2:
                break
            await asyncio.sleep(0.1)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            tomorrow = (today() + timedelta(days=1)).isoformat()
            assert_error(
                await client.get(f"{API}/daily/canfield/{tomorrow}"), 404, "daily_not_available"
            )
    assert days == {today(), today() + timedelta(days=1)}


async def test_daily_results_document_the_token_as_optional(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    operation = document["paths"]["/api/v1/daily/{variant}/{date}/results"]["get"]
    # The document's default, "a token or none": generated clients may call it without
    # one (an operation-level list reads as "required" to openapi-python-client).
    assert "security" not in operation
    assert {} in document["security"] and {"HTTPBearer": []} in document["security"]
    answer = await client.get(f"{API}/daily/rank-and-file/today/results")
    assert answer.status_code == 200, answer.text


async def test_dates_before_the_first_daily_deal_are_refused(settings: Settings) -> None:
    first = today() - timedelta(days=10)
    app = create_app(settings.model_copy(update={"daily_first_date": first}))
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            token = (await client.post(f"{API}/players", json={})).json()["token"]
            headers = {"Authorization": f"Bearer {token}"}
            for when in (day(11), "1900-01-01"):
                for method, path in (
                    ("GET", f"{API}/daily/{VARIANT}/{when}"),
                    ("POST", f"{API}/daily/{VARIANT}/{when}/game"),
                    ("GET", f"{API}/daily/{VARIANT}/{when}/results"),
                ):
                    response = await client.request(method, path, headers=headers)
                    assert_error(response, 404, "daily_not_available")
            assert (await client.get(f"{API}/daily/{VARIANT}/{day(10)}")).status_code == 200
        async with app.state.services.database.sessionmaker() as session:
            assert (await session.execute(select(func.count(DailyDeal.id)))).scalar_one() == 0


def sleepy_prover(
    state: State, max_positions: int, max_seconds: float, **core: object
) -> SolveResult:
    """Takes a while and proves nothing (selected by the daily_prover setting)."""
    time.sleep(0.3)
    return SolveResult("unknown", [], 1, 300)


async def _timed(request: Awaitable[httpx.Response]) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    response = await request
    return response, time.perf_counter() - started


async def test_many_past_dates_at_once_are_bounded_and_hold_no_connection(
    settings: Settings,
) -> None:
    changed = settings.model_copy(
        update={
            "daily_prover": "tests.api.test_daily:sleepy_prover",
            "daily_max_attempts": 5,
            "daily_wait_seconds": 5.0,
            "daily_max_pending": 4,
        }
    )
    app = create_app(changed)
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            token = (await client.post(f"{API}/players", json={})).json()["token"]
            headers = {"Authorization": f"Bearer {token}"}
            game = (
                await client.post(
                    f"{API}/games", json={"deal": 5, "variant": VARIANT}, headers=headers
                )
            ).json()

            async def plain() -> float:
                response, took = await _timed(
                    client.get(f"{API}/games/{game['id']}", headers=headers)
                )
                assert response.status_code == 200
                return took

            alone = sorted([await plain() for _ in range(5)])[2]
            storm = [
                asyncio.create_task(_timed(start_daily(client, headers, day(n))))
                for n in range(1, 61)
            ]
            during = await plain()  # sent with the storm
            for _ in range(500):
                if sum(t.done() for t in storm) >= 56:
                    break
                await asyncio.sleep(0.02)
            # The refused have answered; the others wait for their preparations.
            waiting = sum(not t.done() for t in storm)
            checked_out = []
            for _ in range(10):
                checked_out.append(app.state.services.database.engine.pool.checkedout())
                await asyncio.sleep(0.02)
            meanwhile = await plain()
            answers = await asyncio.gather(*storm)
    # No 5xx but 503: refused beyond the bound, or given up after the wait.
    for response, _ in answers:
        assert_error(response, 503, "daily_not_ready")
        assert int(response.headers["Retry-After"]) >= 1
    # Beyond the four preparations, refused at once (well before the wait a joined
    # preparation takes: a loaded machine may take a second or more for 60 requests);
    # nobody waiting holds a connection. The four preparations each touch the database
    # briefly (claim, renewal, release), so on a loaded machine they may overlap at
    # several samples (CI runs saw [2, 1, 0, 0, 0] and, with other work beside it,
    # [4, 3, 3, 1, 1]); a waiting request holding one would hold it at every sample, so
    # some sample shows at most one.
    at_once = changed.daily_wait_seconds / 2
    assert sum(took < at_once for _, took in answers) >= 56
    assert waiting <= 4 and min(checked_out) <= 1, (waiting, checked_out)
    assert during < 2.0, (during, alone)
    assert meanwhile < max(0.5, 5 * alone), (meanwhile, alone)
