"""What the solver knows is in the database, shared by every instance.

Two apps on one database stand for two instances (each with its own memory): a line
found by one answers the other's hints without a search; a position proven lost is
lost for both; a proven deal (seeds, daily, solvable) is known from a game's first hint;
the table stays within its bounds.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.config import Settings
from app.engine import deal, get_variant
from app.main import create_app
from app.models import SolverLine, SolverPosition
from app.seeds import read_line
from app.services.background.knowledge import SolverKnowledge, position_key
from tests.api.conftest import API, empty_tables, running
from tests.api.daily_helpers import (  # noqa: F401  (the daily fixtures)
    daily_settings,
    settings,
    small_solver,
)

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.usefixtures("small_solver")


@pytest.fixture
async def other(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:  # noqa: F811
    """A second instance of the service on the same database."""
    second = create_app(settings.model_copy())
    async with running(second):
        transport = httpx.ASGITransport(app=second)
        async with httpx.AsyncClient(transport=transport, base_url="http://other") as c:
            yield c


async def count(app: FastAPI, *where: Any) -> int:
    async with app.state.services.database.sessionmaker() as session:
        query = select(func.count()).select_from(SolverPosition).where(*where)
        return int((await session.execute(query)).scalar_one())


async def test_hints_along_a_line_found_by_one_instance_need_no_search_on_the_other(
    client: httpx.AsyncClient, other: httpx.AsyncClient, app: FastAPI, auth: dict[str, str]
) -> None:
    created = await client.post(
        f"{API}/games",
        json={"variant": "rank-and-file", "deal": 1, "settings": {"auto_finish": False}},
        headers=auth,
    )
    url = f"{API}/games/{created.json()['id']}"
    searched = []
    for turn in range(2000):
        ask, play = (client, other) if turn % 2 == 0 else (other, client)
        hint = (await ask.post(f"{url}/hint", headers=auth)).json()
        assert hint["result"] == "solved", hint
        searched.append(hint["positions"])
        played = await play.post(f"{url}/moves", json=hint["move"], headers=auth)
        assert played.status_code == 200, played.text
        if played.json()["status"] == "won":
            break
    else:
        pytest.fail("following the hints did not win")
    assert searched[0] > 0  # the first hint searched (no seeds in these tests)
    assert searched[1:] == [0] * (len(searched) - 1)  # then every hint, on either instance
    assert await count(app, SolverPosition.line_id.is_not(None)) >= len(searched)


async def test_a_position_proven_lost_is_lost_on_every_instance(
    client: httpx.AsyncClient, other: httpx.AsyncClient, app: FastAPI, auth: dict[str, str]
) -> None:
    created = await client.post(
        f"{API}/games", json={"variant": "canfield", "deal": 3}, headers=auth
    )
    url = f"{API}/games/{created.json()['id']}"
    first = (await client.post(f"{url}/hint", headers=auth)).json()
    assert first["result"] == "unsolvable" and first["positions"] > 0
    again = (await other.post(f"{url}/hint", headers=auth)).json()
    assert again["result"] == "unsolvable" and again["positions"] == 0
    assert again["move"] is None
    finish = await other.post(f"{url}/finish", headers=auth)
    assert finish.status_code == 409 and "unsolvable" in finish.json()["error"]["message"]
    assert await count(app, SolverPosition.line_id.is_(None)) == 1


async def test_a_deal_of_seeds_is_known_from_the_first_hint(
    database_url: str, tmp_path: Path
) -> None:
    await empty_tables(database_url)  # another test's search lines would be counted below
    seeded = daily_settings(database_url, tmp_path, seeds_dir=ROOT / "seeds")
    entry = json.loads((ROOT / "seeds" / "rows-of-four.json").read_text())["deals"][0]
    application = create_app(seeded)
    async with running(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            token = (await c.post(f"{API}/players", json={})).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            body = {
                "variant": "rows-of-four",
                "deal": entry["deal"],
                "settings": {"auto_finish": False},
            }
            game = (await c.post(f"{API}/games", json=body, headers=auth)).json()
            hint = (await c.post(f"{API}/games/{game['id']}/hint", headers=auth)).json()
            assert hint["result"] == "solved" and hint["positions"] == 0
            assert hint["move"] == read_line(entry["line"])[0].to_json()
            async with application.state.services.database.sessionmaker() as session:
                sources = (await session.execute(select(SolverLine.source))).scalars().all()
            assert sources == ["seed"]


async def test_daily_and_solvable_games_know_their_proof_from_the_first_hint(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str]
) -> None:
    daily = await client.post(f"{API}/daily/rainbow/today/game", headers=auth)
    assert daily.status_code == 201, daily.text
    hint = (await client.post(f"{API}/games/{daily.json()['id']}/hint", headers=auth)).json()
    assert hint["result"] == "solved" and hint["positions"] == 0

    await app.state.services.solvable.fill("rank-and-file", 1)
    body = {"variant": "rank-and-file", "solvable": True}
    solvable = await client.post(f"{API}/games", json=body, headers=auth)
    assert solvable.status_code == 201, solvable.text
    hint = (await client.post(f"{API}/games/{solvable.json()['id']}/hint", headers=auth)).json()
    assert hint["result"] == "solved" and hint["positions"] == 0
    async with app.state.services.database.sessionmaker() as session:
        sources = (await session.execute(select(SolverLine.source))).scalars().all()
    assert sorted(sources) == ["daily", "solvable"]


async def test_a_line_that_does_not_win_from_the_deal_is_not_learned(app: FastAPI) -> None:
    knowledge: SolverKnowledge = app.state.services.knowledge
    start = deal(get_variant("rank-and-file"), 1)
    # A line of another deal: its moves are refused here, or do not win.
    wrong = read_line(
        json.loads((ROOT / "seeds" / "rank-and-file.json").read_text())["deals"][1]["line"]
    )
    await knowledge.learn_deal("rank-and-file", "seed", "1", start, wrong)
    assert await knowledge.lookup(start) is None
    assert await count(app) == 0


async def test_the_table_keeps_the_newest_lines_and_lost_positions_within_its_bounds(
    app: FastAPI,
) -> None:
    bounded = SolverKnowledge(app.state.services.database.sessionmaker, max_positions=1, max_lost=1)
    seeds = json.loads((ROOT / "seeds" / "rank-and-file.json").read_text())["deals"][:4]
    starts = []
    for entry in seeds:
        start = deal(get_variant("rank-and-file"), entry["deal"])
        starts.append(start)
        await bounded.remember_line("rank-and-file", start, read_line(entry["line"]), "seed")
    lost = [deal(get_variant("canfield"), n) for n in (3, 5, 8)]
    for state in lost:
        await bounded.remember_lost(state)
    async with app.state.services.database.sessionmaker() as session:
        lengths = (
            (await session.execute(select(SolverLine.length).order_by(SolverLine.id)))
            .scalars()
            .all()
        )
        bounded.max_positions = lengths[2] + lengths[3]  # room for the newest two lines
        await bounded.trim(session)
    fresh = SolverKnowledge(
        app.state.services.database.sessionmaker, max_positions=1, max_lost=1
    )  # no cache
    assert [await fresh.lookup(s) is not None for s in starts] == [False, False, True, True]
    assert [await fresh.lookup(s) is not None for s in lost] == [False, False, True]
    kept = sum(len(read_line(e["line"])) for e in seeds[2:])
    assert await count(app) <= kept + 1
    assert await count(app, SolverPosition.key == position_key(starts[0])) == 0
