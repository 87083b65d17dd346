"""A second account cannot take the daily ranking with the solver's help: a win along a
line the solver revealed for the deal that day (a finish's steps, hinted moves) is not
ranked, nor a win played faster than a person plays; a person's honest win, with clicks
and the auto-finish, still ranks. (app.services.daily.ranking, app.services.daily.revealed)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import time_machine
from fastapi import FastAPI

from app.engine import DRAW_MOVE, Move, State, deal, get_variant, resolve_click
from app.schemas import UnrankedReason
from app.services.daily import ranking
from tests.api.conftest import API, NewPlayer
from tests.api.daily_helpers import (  # noqa: F401 (settings, small_solver: fixtures)
    VARIANT,
    day,
    on_date,
    settings,
    small_solver,
    start_daily,
    stored_deal_number,
    stored_line,
    with_detour,
)

pytestmark = pytest.mark.usefixtures("small_solver")


async def _results(client: httpx.AsyncClient, when: str, headers: dict[str, str]) -> Any:
    response = await client.get(f"{API}/daily/{VARIANT}/{when}/results", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def _play(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    game_id: str,
    moves: list[dict[str, Any]],
    pace: timedelta | None,
) -> dict[str, Any]:
    """Send the moves one request each, as a script does (`pace` None: as fast as the
    server answers), or `pace` apart on the clock (it travels there: nothing waits). The
    last answer; once the game is won the rest are left out."""
    start = datetime.now(UTC)
    body: dict[str, Any] = {}
    for i, move in enumerate(moves, start=1):
        if pace is None:
            response = await client.post(f"{API}/games/{game_id}/moves", json=move, headers=headers)
        else:
            with time_machine.travel(start + i * pace, tick=False):
                response = await client.post(
                    f"{API}/games/{game_id}/moves", json=move, headers=headers
                )
        assert response.status_code == 200, response.text
        body = response.json()
        if body["status"] == "won":
            break
    return body


async def _finish(client: httpx.AsyncClient, headers: dict[str, str], game_id: str) -> Any:
    finished = await client.post(f"{API}/games/{game_id}/finish", headers=headers)
    assert finished.status_code == 200, finished.text
    body = finished.json()
    assert body["status"] == "won" and body["ranked"] is False
    assert body["unranked_reason"] == "assisted"
    return body


async def test_a_second_account_replaying_a_finish_is_not_ranked(
    client: httpx.AsyncClient, new_player: NewPlayer
) -> None:
    """The attack: A takes the daily game and asks finish; B replays A's steps in its own
    daily game as fast as the server answers. B's win is not ranked (a revealed line),
    and nobody is ranked first."""
    ada, bob = await new_player("ada"), await new_player("bob")
    when = day(1)
    with on_date(when):
        mine = (await start_daily(client, ada, when)).json()
        steps = [step["move"] for step in (await _finish(client, ada, mine["id"]))["steps"]]
        theirs = (await start_daily(client, bob, when)).json()
        assert theirs["ranked"] is True and theirs["unranked_reason"] is None
        won = await _play(client, bob, theirs["id"], steps, pace=None)
        assert won["status"] == "won" and won["assisted"] is False
        assert won["ranked"] is False and won["unranked_reason"] == "revealed_line"
        state = (await client.get(f"{API}/games/{theirs['id']}", headers=bob)).json()
        assert state["ranked"] is False and state["unranked_reason"] == "revealed_line"
    results = await _results(client, when, bob)
    assert results["total"] == 0 and results["items"] == []
    assert results["me"]["rank"] is None and results["me"]["unranked_reason"] == "revealed_line"
    info = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    assert (info["players"], info["wins"]) == (2, 0)


async def test_a_replay_at_a_persons_pace_is_still_not_ranked(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    """Slowed down to a person's pace, with a move there and back in it, the replay of a
    revealed line still does not rank."""
    ada, bob = await new_player("ada"), await new_player("bob")
    when = day(1)
    with on_date(when):
        mine = (await start_daily(client, ada, when)).json()
        steps = [step["move"] for step in (await _finish(client, ada, mine["id"]))["steps"]]
        theirs = (await start_daily(client, bob, when)).json()
        start = deal(get_variant(VARIANT), await stored_deal_number(app, VARIANT, when))
        detoured = with_detour(start, [Move.from_json(step) for step in steps])
        padded = [move.to_json() for move in detoured]
        won = await _play(client, bob, theirs["id"], padded, pace=timedelta(seconds=3))
        assert won["status"] == "won"
        assert won["ranked"] is False and won["unranked_reason"] == "revealed_line"
    assert (await _results(client, when, bob))["total"] == 0


async def test_following_anothers_hints_is_not_ranked(
    client: httpx.AsyncClient, new_player: NewPlayer
) -> None:
    """A asks a hint at every move and plays it; B plays the hinted moves at a person's
    pace: each hint revealed one move of the line, and B's win followed them."""
    ada, bob = await new_player("ada"), await new_player("bob")
    when = day(1)
    with on_date(when):
        mine = (await start_daily(client, ada, when)).json()
        hinted: list[dict[str, Any]] = []
        status = mine["status"]
        while status != "won":
            hint = await client.post(f"{API}/games/{mine['id']}/hint", headers=ada)
            assert hint.status_code == 200 and hint.json()["result"] == "solved", hint.text
            hinted.append(hint.json()["move"])
            played = await client.post(
                f"{API}/games/{mine['id']}/moves", json=hinted[-1], headers=ada
            )
            status = played.json()["status"]
        theirs = (await start_daily(client, bob, when)).json()
        won = await _play(client, bob, theirs["id"], hinted, pace=timedelta(seconds=2))
        assert won["ranked"] is False and won["unranked_reason"] == "revealed_line"


async def test_a_win_faster_than_a_person_plays_is_not_ranked(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    """No line was revealed, but every move came a few milliseconds after the one
    before: a program played it."""
    ada = await new_player("ada")
    when = day(1)
    with on_date(when):
        game = (await start_daily(client, ada, when)).json()
        line = [m.to_json() for m in await stored_line(app, VARIANT, when)]
        won = await _play(client, ada, game["id"], line, pace=timedelta(milliseconds=120))
        assert won["status"] == "won"
        assert won["ranked"] is False and won["unranked_reason"] == "too_fast"
    results = await _results(client, when, ada)
    assert results["total"] == 0 and results["me"]["unranked_reason"] == "too_fast"


def _clicks(start: State, line: list[Move]) -> list[dict[str, Any]]:
    """The line as a person plays it with clicks (auto-play): a click on the stock to
    draw, a click on a card whose click plays the line's move; the other moves dragged
    (explicit)."""
    sent, state = [], start
    for move in line:
        if move == DRAW_MOVE:
            sent.append({"action": "click", "pile": "stock"})
        elif move.src is not None and move.count == 1 and resolve_click(state, move.src) == move:
            sent.append({"action": "click", "pile": str(move.src)})
        else:
            sent.append(move.to_json())
        state, _events = state.apply(move, auto_finish=False)
    return sent


async def test_an_honest_win_at_a_persons_pace_ranks(
    client: httpx.AsyncClient, app: FastAPI, new_player: NewPlayer
) -> None:
    """A person plays the deal with clicks, a second or two a move (draws tapped faster),
    and the auto-finish ends it; another player asked a hint on the same deal, which
    revealed one move of the line played. The win ranks first."""
    ada, bob = await new_player("ada"), await new_player("bob")
    when = day(1)
    with on_date(when):
        theirs = (await start_daily(client, bob, when)).json()
        number = await stored_deal_number(app, VARIANT, when)
        line = await stored_line(app, VARIANT, when)
        sent = _clicks(deal(get_variant(VARIANT), number), line)
        assert any(m["action"] == "click" and m["pile"] != "stock" for m in sent)
        hint = await client.post(f"{API}/games/{theirs['id']}/hint", headers=bob)
        assert hint.status_code == 200 and hint.json()["move"] == line[0].to_json()
        game = (await start_daily(client, ada, when)).json()
        assert game["settings"] == {"auto_play": True, "auto_finish": True}
        start = datetime.now(UTC)
        body: dict[str, Any] = {}
        at = start
        for move in sent:
            # Draws tapped every 200 ms; a card found and clicked in 1.5 s.
            at += timedelta(milliseconds=200 if move.get("pile") == "stock" else 1500)
            with time_machine.travel(at, tick=False):
                response = await client.post(
                    f"{API}/games/{game['id']}/moves", json=move, headers=ada
                )
            assert response.status_code == 200, response.text
            body = response.json()
            if body["status"] == "won":
                break
        assert body["status"] == "won" and body["move_count"] <= len(line)
        assert body["ranked"] is True and body["unranked_reason"] is None
    results = await _results(client, when, ada)
    assert results["total"] == 1 and results["items"][0]["name"] == "ada"
    assert results["me"]["rank"] == 1 and results["me"]["unranked_reason"] is None


# --- the measures ---------------------------------------------------------------------


def test_the_pace_counts_a_players_own_moves_only() -> None:
    """Draws and redeals (a tap on the same spot) are not counted; each counted move is
    timed from the move before it, whatever that was."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ms = [timedelta(milliseconds=n) for n in (100, 200, 1100, 1200, 1300, 2800)]
    moves = [(start + t, counts) for t, counts in zip(ms, (0, 0, 1, 0, 1, 1), strict=True)]
    assert ranking.pace_ms(start, [(at, bool(c)) for at, c in moves]) == 900.0
    assert ranking.pace_ms(start, []) is None


def test_the_revealed_share_counts_distinct_layouts() -> None:
    a, b, c, d = (bytes([n]) * 16 for n in range(4))
    assert ranking.revealed_share([a, a, a, b], {a}) == 0.5  # a layout met again counts once
    assert ranking.revealed_share([a, b, c, d], {a}) == 0.25
    assert ranking.revealed_share([], {a}) == 0.0
    assert ranking.judge_win(1 / 3, None) == "revealed_line"
    assert ranking.judge_win(0.3, 249.0) == "too_fast"
    assert ranking.judge_win(0.3, 250.0) is None


def test_the_reasons_are_the_schemas() -> None:
    from typing import get_args

    assert get_args(UnrankedReason.__value__) == ranking.UNRANKED


def test_a_layout_leaves_the_stock_aside() -> None:
    start = deal(get_variant(VARIANT), 7)
    drawn, _events = start.apply(DRAW_MOVE)
    assert ranking.layout_key(drawn) == ranking.layout_key(start)
    assert drawn.to_bytes() != start.to_bytes()
