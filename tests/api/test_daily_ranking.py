"""The daily ranking cannot be won without playing: a ranked game is started while its
date is current, never undone, hinted or finished, and won before the date ends, when
the deal's number is published. Past dates are practice. (app.services.daily.ranking)"""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
import time_machine
from fastapi import FastAPI

from app.services.daily.ranking import day_end
from tests.api.conftest import API, NewPlayer
from tests.api.daily_helpers import (  # noqa: F401 (settings, small_solver: fixtures)
    VARIANT,
    day,
    on_date,
    settings,
    small_solver,
    start_daily,
    stored_deal_number,
    today,
    win_with_line,
)
from tests.api.helpers import put_state, stuck_rank_and_file

pytestmark = pytest.mark.usefixtures("small_solver")


async def _results(client: httpx.AsyncClient, when: str, headers: dict[str, str]) -> httpx.Response:
    return await client.get(f"{API}/daily/{VARIANT}/{when}/results", headers=headers)


async def _draw(client: httpx.AsyncClient, game_id: str, headers: dict[str, str]) -> httpx.Response:
    return await client.post(
        f"{API}/games/{game_id}/moves", json={"action": "draw"}, headers=headers
    )


async def test_todays_game_is_ranked_and_its_clean_win_ranks(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str]
) -> None:
    when = day(1)
    with on_date(when):
        started = (await start_daily(client, auth, when)).json()
        assert started["ranked"] is True
        won = await win_with_line(app, auth, started["id"], VARIANT, when)
        assert won["ranked"] is True and won["deal"] is None
        assert won["unranked_reason"] is None
    results = (await _results(client, when, auth)).json()
    assert results["total"] == 1 and results["me"]["rank"] == 1
    assert results["me"]["ranked"] is True and results["me"]["unranked_reason"] is None


async def test_a_past_dates_game_is_practice(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    """The number of a past date's deal is public: its game is practice (`practice:
    true`), never ranked, and counts in neither the date's figures, nor the streaks, nor
    the player's played and won games (only in daily_played, every daily game)."""
    ada = await new_player("ada")
    when = day(1)
    info = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    game = (await start_daily(client, ada, when)).json()
    assert game["ranked"] is False and game["unranked_reason"] == "past_date"
    assert game["practice"] is True
    number = await stored_deal_number(app, VARIANT, when)
    assert (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()["deal"] == number
    won = await win_with_line(app, ada, game["id"], VARIANT, when)
    assert won["status"] == "won" and won["ranked"] is False
    results = (await _results(client, when, ada)).json()
    assert results["total"] == 0 and results["items"] == []
    assert results["me"]["status"] == "won" and results["me"]["rank"] is None
    after = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    assert (after["players"], after["wins"]) == (info["players"], info["wins"]) == (0, 0)
    stats = (await client.get(f"{API}/players/me/stats", headers=ada)).json()
    mine = {v["variant"]: v for v in stats["variants"]}[VARIANT]
    assert (mine["played"], mine["won"], mine["win_rate"]) == (0, 0, None)
    assert (mine["daily_played"], mine["daily_wins"], mine["longest_daily_streak"]) == (1, 0, 0)
    state = (await client.get(f"{API}/games/{game['id']}", headers=ada)).json()
    assert state["practice"] is True


async def test_undo_unranks_the_game_for_good(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    """Draws then undos showed the stock's order at move_count 0: an undo unranks."""
    ada = await new_player("ada")
    when = day(1)
    with on_date(when):
        game = (await start_daily(client, ada, when)).json()
        drawn = await _draw(client, game["id"], ada)
        assert drawn.status_code == 200 and drawn.json()["ranked"] is True
        undone = await client.post(f"{API}/games/{game['id']}/undo", headers=ada)
        assert undone.status_code == 200 and undone.json()["move_count"] == 0
        assert undone.json()["ranked"] is False
        assert undone.json()["unranked_reason"] == "undone"
        won = await win_with_line(app, ada, game["id"], VARIANT, when)
        assert won["status"] == "won" and won["ranked"] is False
        assert won["unranked_reason"] == "undone"  # the first reason stays
    results = (await _results(client, when, ada)).json()
    assert results["total"] == 0 and results["me"]["rank"] is None
    assert (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()["wins"] == 0


async def test_a_hint_unranks_the_game(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    ada = await new_player("ada")
    when = day(1)
    with on_date(when):
        game = (await start_daily(client, ada, when)).json()
        hint = await client.post(f"{API}/games/{game['id']}/hint", headers=ada)
        assert hint.status_code == 200 and hint.json()["move"] is not None
        state = (await client.get(f"{API}/games/{game['id']}", headers=ada)).json()
        assert state["ranked"] is False and state["assisted"] is True
        assert state["unranked_reason"] == "assisted"
        won = await win_with_line(app, ada, game["id"], VARIANT, when)
        assert won["ranked"] is False
    assert (await _results(client, when, ada)).json()["total"] == 0


async def test_a_game_played_past_its_date_is_no_longer_ranked(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    """At midnight the deal's number is published: a game still in play can no longer
    be ranked, and a win after that does not rank."""
    ada = await new_player("ada")
    when = day(2)
    with on_date(when):
        game = (await start_daily(client, ada, when)).json()
        assert (await _draw(client, game["id"], ada)).json()["ranked"] is True
    # The next day: the state says so before any move.
    with on_date(day(1)):
        state = (await client.get(f"{API}/games/{game['id']}", headers=ada)).json()
        assert state["ranked"] is False and state["unranked_reason"] == "late"
        assert state["deal"] == await stored_deal_number(app, VARIANT, when)
        mine = (await _results(client, when, ada)).json()["me"]
        assert mine["ranked"] is False
    # A second before midnight it was still ranked; a move after midnight unranks it
    # for good (the clock set back shows the stored flag).
    last_second = day_end(today() - timedelta(days=2)) - timedelta(seconds=1)
    with time_machine.travel(last_second):
        assert (await client.get(f"{API}/games/{game['id']}", headers=ada)).json()["ranked"]
    with on_date(day(1)):
        assert (await _draw(client, game["id"], ada)).status_code == 200
    with time_machine.travel(last_second):
        state = (await client.get(f"{API}/games/{game['id']}", headers=ada)).json()
        assert state["ranked"] is False


async def test_a_win_after_midnight_does_not_rank(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    ada = await new_player("ada")
    when = day(2)
    with on_date(when):
        game = (await start_daily(client, ada, when)).json()
    with on_date(day(1)):
        won = await win_with_line(app, ada, game["id"], VARIANT, when)
        assert won["status"] == "won" and won["ranked"] is False
        assert won["unranked_reason"] == "late"
    results = (await _results(client, when, ada)).json()
    assert results["total"] == 0 and results["me"]["rank"] is None
    info = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    assert (info["players"], info["wins"]) == (1, 0)


async def test_a_stuck_game_can_no_longer_be_ranked(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str]
) -> None:
    when = day(1)
    with on_date(when):
        game = (await start_daily(client, auth, when)).json()
        await put_state(app, game["id"], stuck_rank_and_file())
        state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
        assert state["status"] == "stuck" and state["ranked"] is False
        assert state["unranked_reason"] == "stuck"


async def test_a_resigned_game_is_not_ranked(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    when = day(1)
    with on_date(when):
        game = (await start_daily(client, auth, when)).json()
        resigned = await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
        assert resigned.status_code == 200, resigned.text
        assert resigned.json()["ranked"] is False
        assert resigned.json()["unranked_reason"] == "resigned"


async def test_ordinary_games_are_never_ranked(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    body = {"variant": VARIANT, "deal": 5}
    game = (await client.post(f"{API}/games", json=body, headers=auth)).json()
    assert game["ranked"] is False and game["unranked_reason"] is None
