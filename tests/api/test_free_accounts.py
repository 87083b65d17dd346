"""Bounds a free account cannot multiply (services.kit.account_bounds): players created per client
address, and per player the games dealt, the solvable deals and practice copies taken
within an hour and the analyses pending or running at once. Each refusal is 429 with its
code and a Retry-After from when its window frees, as the API document declares it, and
writes nothing; bursts sent together are held to the bound exactly. Runs on SQLite and,
with TEST_DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from sqlalchemy import func, select, update

from app.config import Settings
from app.main import create_app
from app.models import Game, GameAnalysis, Job, Player, utcnow
from app.services.kit.account_bounds import address_group
from tests.api.conftest import API, assert_error, empty_tables
from tests.api.daily_helpers import daily_settings, lifespan

DEFAULTS = {name: field.default for name, field in Settings.model_fields.items()}
KEY = "k" * 40  # a trusted front-end's key
VARIANT = "rank-and-file"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    # No background work: an analysis asked for stays queued (the tests say when it ends).
    return daily_settings(database_url, tmp_path, background_work=False)


@asynccontextmanager
async def serving(settings: Settings, **changes: Any) -> AsyncIterator[FastAPI]:
    await empty_tables(settings.database_url)
    app = create_app(settings.model_copy(update=changes))
    async with lifespan(app):
        yield app


def client_of(app: FastAPI, address: str = "203.0.113.7") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 4321))
    return httpx.AsyncClient(transport=transport, base_url="http://test")


async def register(client: httpx.AsyncClient, **headers: str) -> httpx.Response:
    return await client.post(f"{API}/players", json={"name": "ada"}, headers=headers)


async def player(client: httpx.AsyncClient) -> dict[str, str]:
    answer = await register(client)
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']}"}


def assert_documented(app: FastAPI, method: str, path: str, answer: httpx.Response) -> None:
    """The answer's status and code are among those the document lists for the operation,
    with Retry-After declared where the answer carries it."""
    operation = app.openapi()["paths"][f"{API}{path}"][method]
    documented = operation["responses"][str(answer.status_code)]
    narrowed = documented["content"]["application/json"]["schema"]["allOf"][1]
    codes = narrowed["properties"]["error"]["properties"]["code"]["enum"]
    assert answer.json()["error"]["code"] in codes, (path, codes)
    if "Retry-After" in answer.headers:
        assert "Retry-After" in documented["headers"]


async def count(app: FastAPI, model: Any, *where: Any) -> int:
    async with app.state.services.database.sessionmaker() as session:
        query = select(func.count()).select_from(model).where(*where)
        return int((await session.execute(query)).scalar_one())


# --- players per address ------------------------------------------------------------------


async def test_players_from_one_address_are_bounded_at_the_default(settings: Settings) -> None:
    bound = DEFAULTS["players_per_address_per_hour"]
    async with (
        serving(settings, players_per_address_per_hour=bound) as app,
        client_of(app) as client,
        client_of(app, "198.51.100.9") as other,
    ):
        for _ in range(bound):
            assert (await register(client)).status_code == 201
        refused = await register(client)
        assert_error(refused, 429, "too_many_players")
        assert 1 <= int(refused.headers["Retry-After"]) <= 3600
        assert_documented(app, "post", "/players", refused)
        assert await count(app, Player) == bound  # the refused one wrote nothing
        again = await register(client)  # refused from memory, no sooner free
        assert_error(again, 429, "too_many_players")
        assert int(again.headers["Retry-After"]) <= int(refused.headers["Retry-After"])
        # Another address is not affected, and neither are the players made.
        assert (await register(other)).status_code == 201


async def test_players_sent_at_once_are_each_counted(settings: Settings) -> None:
    bound = 4
    async with (
        serving(settings, players_per_address_per_hour=bound) as app,
        client_of(app) as client,
    ):
        answers = await asyncio.gather(*(register(client) for _ in range(3 * bound)))
        assert Counter(a.status_code for a in answers) == {201: bound, 429: 2 * bound}
        assert await count(app, Player) == bound


async def test_players_are_counted_by_every_instance_together(settings: Settings) -> None:
    async with serving(settings, players_per_address_per_hour=2) as app:
        second = create_app(settings.model_copy(update={"players_per_address_per_hour": 2}))
        async with lifespan(second), client_of(app) as one, client_of(second) as two:
            assert (await register(one)).status_code == 201
            assert (await register(two)).status_code == 201
            assert_error(await register(one), 429, "too_many_players")
            assert_error(await register(two), 429, "too_many_players")


async def test_an_ipv6_host_counts_by_its_64(settings: Settings) -> None:
    assert address_group("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert address_group("::ffff:192.0.2.1") == "192.0.2.1"
    assert address_group("192.0.2.1") == "192.0.2.1"
    async with (
        serving(settings, players_per_address_per_hour=1) as app,
        client_of(app, "2001:db8:1:2::1") as first,
        client_of(app, "2001:db8:1:2:ffff::9") as same,
        client_of(app, "2001:db8:1:3::1") as next_64,
    ):
        assert (await register(first)).status_code == 201
        assert_error(await register(same), 429, "too_many_players")
        assert (await register(next_64)).status_code == 201


async def test_a_trusted_client_key_lifts_the_address_bound(settings: Settings) -> None:
    async with (
        serving(
            settings,
            players_per_address_per_hour=1,
            trusted_client_keys=SecretStr(f"{'x' * 32}, {KEY}"),
        ) as app,
        client_of(app) as client,
    ):
        assert (await register(client)).status_code == 201
        assert_error(await register(client), 429, "too_many_players")
        for _ in range(3):
            trusted = await register(client, **{"X-Client-Key": KEY})
            assert trusted.status_code == 201, trusted.text
        wrong = await register(client, **{"X-Client-Key": KEY[:-1] + "j"})
        assert_error(wrong, 403, "invalid_client_key")
        assert_documented(app, "post", "/players", wrong)
        assert await count(app, Player) == 4


def test_trusted_keys_are_long() -> None:
    def keys(value: str) -> list[str]:  # as TRUSTED_CLIENT_KEYS gives them
        return Settings.model_validate({"trusted_client_keys": value}).trusted_client_key_list

    with pytest.raises(ValueError, match="32 characters"):
        keys(f"{KEY},short")
    assert keys("") == []
    assert keys(f" {KEY} ,") == [KEY]


async def test_wrong_client_keys_count_as_wrong_tokens(settings: Settings) -> None:
    async with (
        serving(settings, trusted_client_keys=SecretStr(KEY), auth_failures_per_minute=2) as app,
        client_of(app) as client,
    ):
        for _ in range(2):
            wrong = await register(client, **{"X-Client-Key": "guess"})
            assert_error(wrong, 403, "invalid_client_key")
        limited = await register(client, **{"X-Client-Key": "guess"})
        assert_error(limited, 429, "too_many_auth_failures")
        assert_documented(app, "post", "/players", limited)
        assert (await register(client, **{"X-Client-Key": KEY})).status_code == 201


# --- games per player ---------------------------------------------------------------------


async def new_game(client: httpx.AsyncClient, headers: dict[str, str], **body: Any) -> Any:
    return await client.post(f"{API}/games", json={"variant": VARIANT, **body}, headers=headers)


async def test_games_per_hour_are_bounded_and_free_an_hour_after_the_oldest(
    settings: Settings,
) -> None:
    async with serving(settings, games_per_player_per_hour=3) as app, client_of(app) as client:
        ada, bob = await player(client), await player(client)
        made = [(await new_game(client, ada, deal=n)).json()["id"] for n in (1, 2, 3)]
        refused = await new_game(client, ada, deal=4)
        assert_error(refused, 429, "too_many_games")
        assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
        assert_documented(app, "post", "/games", refused)
        assert await count(app, Game) == 3
        # A record played again is a game too; another player is not affected.
        record = (await client.get(f"{API}/games/{made[1]}/record", headers=ada)).json()
        assert_error(
            await client.post(f"{API}/games", json={"record": record["record"]}, headers=ada),
            429,
            "too_many_games",
        )
        assert (await new_game(client, bob)).status_code == 201
        # The oldest dealt 50 minutes ago: free again in 10 minutes.
        async with app.state.services.database.sessionmaker() as session:
            await session.execute(
                update(Game)
                .where(Game.id == made[0])
                .values(created_at=utcnow() - timedelta(minutes=50))
            )
            await session.commit()
        later = await new_game(client, ada)
        assert 595 <= int(later.headers["Retry-After"]) <= 600
        async with app.state.services.database.sessionmaker() as session:
            await session.execute(
                update(Game)
                .where(Game.id == made[0])
                .values(created_at=utcnow() - timedelta(minutes=61))
            )
            await session.commit()
        assert (await new_game(client, ada)).status_code == 201


async def test_games_sent_at_once_are_each_counted(settings: Settings) -> None:
    bound = 3
    async with serving(settings, games_per_player_per_hour=bound) as app, client_of(app) as client:
        ada = await player(client)
        answers = await asyncio.gather(*(new_game(client, ada) for _ in range(4 * bound)))
        assert Counter(a.status_code for a in answers) == {201: bound, 429: 3 * bound}
        assert await count(app, Game) == bound


async def test_a_daily_game_past_the_bound_is_refused_before_its_deal_is_proven(
    settings: Settings,
) -> None:
    async with serving(settings, games_per_player_per_hour=1) as app, client_of(app) as client:
        ada = await player(client)
        assert (await new_game(client, ada)).status_code == 201
        path = f"/daily/{VARIANT}/today/game"
        refused = await client.post(f"{API}{path}", headers=ada)
        assert_error(refused, 429, "too_many_games")
        assert_documented(app, "post", "/daily/{variant}/{date}/game", refused)
        assert await count(app, Job) == 0  # nothing queued to prove


async def test_a_daily_game_asked_twice_at_once_at_the_bound_is_answered_twice(
    settings: Settings,
) -> None:
    """The player's last game of the hour: the twin request finds the game its twin
    made, as it does below the bound, rather than 429."""
    async with (
        serving(settings, games_per_player_per_hour=1, background_work=True) as app,
        client_of(app) as client,
    ):
        ada = await player(client)
        url = f"{API}/daily/{VARIANT}/today/game"
        answers = await asyncio.gather(*(client.post(url, headers=ada) for _ in range(2)))
        assert sorted(a.status_code for a in answers) == [200, 201], answers[0].text
        assert answers[0].json()["id"] == answers[1].json()["id"]


async def test_solvable_deals_per_variant_are_bounded(settings: Settings) -> None:
    async with serving(settings, solvable_per_player_per_hour=2) as app:
        await app.state.services.solvable.fill(VARIANT, 3)
        async with client_of(app) as client:
            ada = await player(client)
            answers = await asyncio.gather(
                *(new_game(client, ada, solvable=True) for _ in range(3))
            )
            assert sorted(a.status_code for a in answers) == [201, 201, 429]
            refused = next(a for a in answers if a.status_code == 429)
            assert_error(refused, 429, "too_many_solvable_deals")
            assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
            assert_documented(app, "post", "/games", refused)
            # The third deal is still in the pool (another player takes it), and the
            # player's other games are not refused.
            bob = await player(client)
            assert (await new_game(client, bob, solvable=True)).status_code == 201
            assert (await new_game(client, ada, deal=3)).status_code == 201


# --- analyses and practice copies -----------------------------------------------------------


async def resigned_game(client: httpx.AsyncClient, headers: dict[str, str]) -> str:
    game = (await new_game(client, headers, deal=5)).json()
    moved = await client.post(
        f"{API}/games/{game['id']}/moves", json={"action": "draw"}, headers=headers
    )
    assert moved.status_code == 200, moved.text
    resigned = await client.post(f"{API}/games/{game['id']}/resign", headers=headers)
    assert resigned.status_code == 200, resigned.text
    return str(game["id"])


def analyse(client: httpx.AsyncClient, headers: dict[str, str], gid: str) -> Any:
    return client.post(f"{API}/games/{gid}/analysis", headers=headers)


async def test_one_analysis_at_a_time_per_player(settings: Settings) -> None:
    # The default bound: one at a time.
    async with serving(settings) as app, client_of(app) as client:
        ada, bob = await player(client), await player(client)
        first, second = await resigned_game(client, ada), await resigned_game(client, ada)
        assert (await analyse(client, ada, first)).status_code == 202
        refused = await analyse(client, ada, second)
        assert_error(refused, 429, "too_many_analyses")
        assert int(refused.headers["Retry-After"]) >= 1
        assert_documented(app, "post", "/games/{game_id}/analysis", refused)
        assert await count(app, GameAnalysis, GameAnalysis.game_id == second) == 0
        # The same analysis asked again is no new one; another player's is not counted.
        assert (await analyse(client, ada, first)).status_code == 202
        assert (await analyse(client, bob, await resigned_game(client, bob))).status_code == 202
        # Once the first is done (or given up), the next is taken.
        async with app.state.services.database.sessionmaker() as session:
            await session.execute(
                update(Job).where(Job.subject.startswith(first)).values(state="failed")
            )
            await session.commit()
        assert (await analyse(client, ada, second)).status_code == 202


async def test_a_refused_analysis_leaves_a_stuck_game_unmarked(settings: Settings) -> None:
    async with serving(settings) as app, client_of(app) as client:
        ada = await player(client)
        assert (await analyse(client, ada, await resigned_game(client, ada))).status_code == 202
        game = (await new_game(client, ada, deal=5)).json()
        async with app.state.services.database.sessionmaker() as session:
            await session.execute(update(Game).where(Game.id == game["id"]).values(status="stuck"))
            await session.commit()
        assert_error(await analyse(client, ada, game["id"]), 429, "too_many_analyses")
        state = (await client.get(f"{API}/games/{game['id']}", headers=ada)).json()
        assert state["assisted"] is False and state["version"] == game["version"]


async def test_practice_copies_per_hour_are_bounded(settings: Settings) -> None:
    async with (
        serving(settings, practice_per_player_per_hour=2, games_per_player_per_hour=2) as app,
        client_of(app) as client,
    ):
        ada = await player(client)
        gid = await resigned_game(client, ada)
        assert (await analyse(client, ada, gid)).status_code == 202
        async with app.state.services.database.sessionmaker() as session:  # as the analysis ends
            await session.execute(
                update(GameAnalysis)
                .where(GameAnalysis.game_id == gid)
                .values(state="done", plies=["undecided", "undecided"], losing_ply=None)
            )
            await session.commit()
        url = f"{API}/games/{gid}/analysis/practice"
        # Copies are not games of the games' bound (2, one dealt): both are made.
        for _ in range(2):
            made = await client.post(url, json={"ply": 0}, headers=ada)
            assert made.status_code == 201, made.text
        refused = await client.post(url, json={"ply": 0}, headers=ada)
        assert_error(refused, 429, "too_many_practice_copies")
        assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
        assert_documented(app, "post", "/games/{game_id}/analysis/practice", refused)
        assert await count(app, Game, Game.source == "practice") == 2
        assert (await new_game(client, ada)).status_code == 201


async def test_analyses_asked_at_once_are_each_counted(settings: Settings) -> None:
    async with serving(settings, analyses_per_player=2) as app, client_of(app) as client:
        ada = await player(client)
        games = [await resigned_game(client, ada) for _ in range(5)]
        # Each game twice: the same analysis asked again is never refused.
        answers = await asyncio.gather(*(analyse(client, ada, gid) for gid in games + games))
        by_game = [{answers[n].status_code, answers[n + 5].status_code} for n in range(5)]
        assert sorted(sorted(codes) for codes in by_game) == [[202], [202], [429], [429], [429]]
        assert await count(app, Job, Job.kind == "analysis") == 2
