"""Solver-assisted games: a hint or finish marks the game `assisted`; such wins count
as wins but are not ranked in the daily results nor counted in daily wins and streaks."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.engine import deal, get_variant
from tests.api.conftest import API, NewGame, NewPlayer
from tests.api.daily_helpers import (  # noqa: F401 (settings, small_solver: fixtures)
    VARIANT,
    daily_settings,
    day,
    empty_daily_deals,
    on_date,
    settings,
    small_solver,
    start_daily,
    stored_deal_number,
    stored_line,
    win_with_line,
)
from tests.api.helpers import near_won_rank_and_file, put_state, stored_game

# Daily deals prepared on demand, small solver budgets in threads (daily_helpers).
pytestmark = pytest.mark.usefixtures("small_solver")


async def _know_the_daily_line(app: FastAPI, when: str) -> None:
    """Give the solver the stored proof of the day's deal, so finish needs no search."""
    number = await stored_deal_number(app, VARIANT, when)
    start = deal(get_variant(VARIANT), number)
    await app.state.services.solver.remember(start, await stored_line(app, VARIANT, when))


async def test_a_hint_marks_the_game_assisted_and_a_move_does_not(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=7)
    assert game["assisted"] is False
    url = f"{API}/games/{game['id']}"
    await put_state(app, game["id"], near_won_rank_and_file())
    # A plain move leaves the flag alone.
    move = {"action": "move", "from": "tableau-1", "to": "foundation-0"}
    moved = await client.post(f"{url}/moves", json=move, headers=auth)
    assert moved.status_code == 200, moved.text
    assert moved.json()["assisted"] is False
    assert (await stored_game(app, game["id"])).assisted is False

    other = await new_game(deal=8)
    url = f"{API}/games/{other['id']}"
    before = (await client.get(url, headers=auth)).json()
    hint = await client.post(f"{url}/hint", headers=auth)
    assert hint.status_code == 200, hint.text
    assert hint.json()["move"] is not None
    after = await client.get(url, headers=auth)
    assert after.json()["assisted"] is True
    # Marking is a change: the version (and so the ETag) moves on, once.
    assert after.json()["version"] == before["version"] + 1
    assert after.headers["ETag"] != f'"{other["id"]}.{before["version"]}"'
    assert (await client.post(f"{url}/hint", headers=auth)).status_code == 200
    assert (await client.get(url, headers=auth)).json()["version"] == after.json()["version"]
    # The flag stays for good, whatever is played next.
    played = await client.post(f"{url}/moves", json=hint.json()["move"], headers=auth)
    assert played.status_code == 200 and played.json()["assisted"] is True


async def test_a_hint_on_a_won_game_marks_nothing(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=7)
    await put_state(app, game["id"], near_won_rank_and_file())
    move = {"action": "move", "from": "tableau-1", "to": "foundation-0"}
    won = await client.post(f"{API}/games/{game['id']}/moves", json=move, headers=auth)
    assert won.json()["status"] == "won"
    hint = await client.post(f"{API}/games/{game['id']}/hint", headers=auth)
    assert hint.status_code == 200 and hint.json()["move"] is None
    again = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    assert again["assisted"] is False and again["version"] == won.json()["version"]


async def test_a_daily_win_by_finish_is_not_ranked(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    when = day(1)
    ada, bob = await new_player("ada"), await new_player("bob")
    with on_date(when):
        ada_game = (await start_daily(client, ada, when)).json()
        bob_game = (await start_daily(client, bob, when)).json()
        await win_with_line(app, ada, ada_game["id"], VARIANT, when)
        await _know_the_daily_line(app, when)
        finished = await client.post(f"{API}/games/{bob_game['id']}/finish", headers=bob)
        assert finished.status_code == 200, finished.text
        assert finished.json()["status"] == "won" and finished.json()["assisted"] is True
        # Marked in the same transaction as the moves: one version per move, nothing more.
        assert finished.json()["version"] == finished.json()["move_count"]
    assert finished.json()["ranked"] is False

    url = f"{API}/daily/{VARIANT}/{when}/results"
    results = (await client.get(url, headers=bob)).json()
    assert results["total"] == 1
    assert [(e["rank"], e["name"]) for e in results["items"]] == [(1, "ada")]
    me = results["me"]
    assert me["game_id"] == bob_game["id"] and me["status"] == "won"
    assert me["assisted"] is True and me["rank"] is None and me["time_ms"] >= 0
    ada_me = (await client.get(url, headers=ada)).json()["me"]
    assert ada_me["assisted"] is False and ada_me["rank"] == 1
    info = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    assert (info["players"], info["wins"]) == (2, 1)


async def test_stats_daily_wins_and_streak_ignore_assisted_wins(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str]
) -> None:
    # Won unassisted two days ago and today; yesterday's won with finish.
    for days_ago in (2, 0):
        when = day(days_ago)  # before the clock goes back to it
        with on_date(when):
            game = (await start_daily(client, auth, when)).json()
            await win_with_line(app, auth, game["id"], VARIANT, when)
    when = day(1)
    with on_date(when):
        yesterday = (await start_daily(client, auth, when)).json()
        await _know_the_daily_line(app, when)
        finished = await client.post(f"{API}/games/{yesterday['id']}/finish", headers=auth)
        assert finished.status_code == 200 and finished.json()["status"] == "won"

    stats = (await client.get(f"{API}/players/me/stats", headers=auth)).json()
    mine = {v["variant"]: v for v in stats["variants"]}[VARIANT]
    assert (mine["played"], mine["won"], mine["daily_played"]) == (3, 3, 3)
    # Without yesterday's (assisted) win the run is broken: today's alone.
    assert (mine["daily_wins"], mine["daily_streak"], mine["longest_daily_streak"]) == (2, 1, 1)
