"""Practice games: a copy of an analysed game at a position of its line (`POST
/games/{id}/analysis/practice`) and a game record played again are practice: never ranked,
not counted in the statistics, and shown as such; a copy tells no more than its game."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import time_machine
from fastapi import FastAPI
from sqlalchemy import update

from app.engine import Move
from app.models import GameAnalysis
from app.seeds import seed_line
from tests.api.conftest import API, NewGame, NewPlayer, assert_error
from tests.api.daily_helpers import start_daily, today
from tests.api.helpers import put_state, stuck_rank_and_file
from tests.api.test_analysis import (  # noqa: F401 (settings: a fixture)
    BAD_MOVE,
    DEAL,
    GOOD_MOVES,
    ROOT,
    VARIANT,
    _done,
    _play,
    settings,
)


def _practice(gid: str) -> str:
    return f"{API}/games/{gid}/analysis/practice"


async def _stats(client: httpx.AsyncClient, auth: dict[str, str], variant: str) -> dict[str, Any]:
    body = (await client.get(f"{API}/players/me/stats", headers=auth)).json()
    found: dict[str, Any] = {v["variant"]: v for v in body["variants"]}[variant]
    return found


async def _moves(client: httpx.AsyncClient, auth: dict[str, str], gid: str) -> list[str]:
    log = (await client.get(f"{API}/games/{gid}/moves", headers=auth)).json()
    return [entry["text"] for entry in log["items"]]


async def test_a_copy_before_the_losing_move_is_practice_and_wins_by_the_line(
    client: httpx.AsyncClient,
    app: FastAPI,
    auth: dict[str, str],
    new_game: NewGame,
    new_player: NewPlayer,
) -> None:
    line = seed_line(ROOT / "seeds", VARIANT, DEAL)
    assert line is not None
    game = await new_game(variant=VARIANT, deal=DEAL, settings={"auto_finish": False})
    gid = game["id"]
    await _play(client, auth, gid, [*line[:GOOD_MOVES], Move.parse(BAD_MOVE)])
    assert_error(await client.post(_practice(gid), headers=auth), 409, "game_not_over")
    await client.post(f"{API}/games/{gid}/resign", headers=auth)
    assert_error(await client.post(_practice(gid), headers=auth), 404, "analysis_not_found")
    await client.post(f"{API}/games/{gid}/analysis", headers=auth)
    analysis = await _done(client, auth, gid)
    assert analysis["losing_ply"] == GOOD_MOVES + 1

    # Not done yet (as it is while it runs): refused.
    async with app.state.services.database.sessionmaker() as session:
        await session.execute(
            update(GameAnalysis).where(GameAnalysis.game_id == gid).values(state="running")
        )
        await session.commit()
    assert_error(await client.post(_practice(gid), headers=auth), 409, "analysis_not_done")
    async with app.state.services.database.sessionmaker() as session:
        await session.execute(
            update(GameAnalysis).where(GameAnalysis.game_id == gid).values(state="done")
        )
        await session.commit()

    # Another player's game is no game of theirs.
    other = await new_player("bob")
    assert_error(await client.post(_practice(gid), headers=other), 404, "game_not_found")
    before = await _stats(client, auth, VARIANT)
    assert before["played"] == 1 and before["won"] == 0

    made = await client.post(_practice(gid), headers=auth)
    assert made.status_code == 201, made.text
    copy = made.json()
    assert made.headers["Location"] == f"{API}/games/{copy['id']}"
    assert made.headers["ETag"] == f'"{copy["id"]}.{copy["version"]}"'
    assert copy["id"] != gid and copy["source"] == "practice" and copy["practice"] is True
    assert copy["ranked"] is False and copy["status"] == "playing"
    assert copy["move_count"] == GOOD_MOVES and copy["deal"] == DEAL  # by number: public
    assert copy["settings"] == {"auto_play": True, "auto_finish": False}  # the game's own
    assert await _moves(client, auth, copy["id"]) == (await _moves(client, auth, gid))[:GOOD_MOVES]
    shown = (await client.get(f"{API}/games/{copy['id']}", headers=auth)).json()
    assert shown["practice"] is True
    assert (await client.get(f"{API}/games/{gid}", headers=auth)).json()["practice"] is False
    won = await _play(
        client, auth, copy["id"], [Move.from_json(m) for m in analysis["winning_line"]]
    )
    assert won["status"] == "won" and won["practice"] is True and won["ranked"] is False
    # Neither played nor won, in the statistics.
    assert await _stats(client, auth, VARIANT) == before
    record = await client.get(f"{API}/games/{copy['id']}/record", headers=auth)
    assert record.status_code == 200 and '[Deal "1"]' in record.json()["record"]

    # Any position of the line, with settings of its own.
    body = {"ply": GOOD_MOVES + 1, "settings": {"auto_finish": True}}
    last = (await client.post(_practice(gid), json=body, headers=auth)).json()
    assert last["move_count"] == GOOD_MOVES + 1 and last["settings"]["auto_finish"] is True
    deal = (await client.post(_practice(gid), json={"ply": 0}, headers=auth)).json()
    assert deal["move_count"] == 0 and deal["practice"] is True
    far = await client.post(_practice(gid), json={"ply": GOOD_MOVES + 2}, headers=auth)
    assert assert_error(far, 422, "validation_error")["errors"][0]["code"] == "ply_out_of_range"
    negative = await client.post(_practice(gid), json={"ply": -1}, headers=auth)
    assert_error(negative, 422, "validation_error")
    assert (await _stats(client, auth, VARIANT))["played"] == 1


async def test_a_game_resigned_while_winnable_is_copied_where_it_was_left(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    """No move lost it: the analysis gives a winning line from the position the game was
    left in, and a copy without `ply` starts there and wins by it."""
    line = seed_line(ROOT / "seeds", VARIANT, DEAL)
    assert line is not None
    game = await new_game(variant=VARIANT, deal=DEAL, settings={"auto_finish": False})
    gid = game["id"]
    await _play(client, auth, gid, line[:GOOD_MOVES])
    await client.post(f"{API}/games/{gid}/resign", headers=auth)
    await client.post(f"{API}/games/{gid}/analysis", headers=auth)
    analysis = await _done(client, auth, gid)
    assert {p["verdict"] for p in analysis["plies"]} == {"winnable"}
    assert analysis["losing_ply"] is None and analysis["losing_move"] is None
    assert analysis["winning_line_ply"] == GOOD_MOVES and analysis["winning_line"]
    made = await client.post(
        _practice(gid), json={"settings": {"auto_finish": False}}, headers=auth
    )
    assert made.status_code == 201, made.text
    copy = made.json()
    assert copy["move_count"] == GOOD_MOVES and copy["practice"] is True
    won = await _play(
        client, auth, copy["id"], [Move.from_json(m) for m in analysis["winning_line"]]
    )
    assert won["status"] == "won"


async def test_a_won_game_has_no_losing_move_to_copy_before(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    line = seed_line(ROOT / "seeds", VARIANT, DEAL)
    assert line is not None
    game = await new_game(variant=VARIANT, deal=DEAL)  # the auto-finish on
    gid = game["id"]
    state = game
    for move in line:
        state = await _play(client, auth, gid, [move])
        if state["status"] == "won":
            break
    assert state["status"] == "won"
    await client.post(f"{API}/games/{gid}/analysis", headers=auth)
    won_analysis = await _done(client, auth, gid)
    assert won_analysis["winning_line"] is None and won_analysis["winning_line_ply"] is None
    refused = await client.post(_practice(gid), headers=auth)
    assert assert_error(refused, 422, "validation_error")["errors"][0]["code"] == "ply_required"
    made = await client.post(_practice(gid), json={"ply": 0}, headers=auth)
    assert made.status_code == 201 and made.json()["move_count"] == 0
    # The whole line: won again, by the same auto-finish.
    whole = await client.post(_practice(gid), json={"ply": state["move_count"]}, headers=auth)
    assert whole.status_code == 201, whole.text
    assert whole.json()["status"] == "won" and whole.json()["piles"] == state["piles"]


async def test_a_copy_of_a_stuck_random_game_keeps_its_deal_secret(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game()  # the server chooses the deal
    gid = game["id"]
    await client.post(f"{API}/games/{gid}/moves", json={"action": "draw"}, headers=auth)
    await put_state(app, gid, stuck_rank_and_file())
    await client.post(f"{API}/games/{gid}/analysis", headers=auth)
    await _done(client, auth, gid)
    # The deal itself (no record to cut: the deal is secret while the game can be undone).
    assert_error(
        await client.get(f"{API}/games/{gid}/record", headers=auth), 409, "record_not_available"
    )
    made = await client.post(_practice(gid), json={"ply": 0}, headers=auth)
    assert made.status_code == 201, made.text
    copy = made.json()
    assert copy["deal"] is None and copy["practice"] is True and copy["source"] == "practice"
    record = await client.get(f"{API}/games/{copy['id']}/record", headers=auth)
    assert_error(record, 409, "record_not_available")
    # Resigned, the copy still shows no more.
    resigned = (await client.post(f"{API}/games/{copy['id']}/resign", headers=auth)).json()
    assert resigned["status"] == "resigned" and resigned["deal"] is None
    listed = (await client.get(f"{API}/games", headers=auth)).json()["items"]
    assert {item["id"]: item["deal"] for item in listed}[copy["id"]] is None
    assert (await _stats(client, auth, "rank-and-file"))["played"] == 1


async def test_a_daily_game_is_copied_once_its_date_is_over(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    daily = (await start_daily(client, auth, "today")).json()
    await client.post(f"{API}/games/{daily['id']}/resign", headers=auth)
    assert_error(await client.post(_practice(daily["id"]), headers=auth), 409, "daily_not_over")
    tomorrow = datetime.combine(today() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
    with time_machine.travel(tomorrow + timedelta(minutes=1), tick=True):
        await client.post(f"{API}/games/{daily['id']}/analysis", headers=auth)
        await _done(client, auth, daily["id"])
        made = await client.post(_practice(daily["id"]), json={"ply": 0}, headers=auth)
        assert made.status_code == 201, made.text
        copy = made.json()
        # Published once its date is over: the copy shows it too.
        assert copy["deal"] is not None and copy["practice"] is True
        assert copy["ranked"] is False and copy["source"] == "practice"
        stats = await _stats(client, auth, daily["variant"])
        assert stats["played"] == 1 and stats["daily_played"] == 1


async def test_a_record_played_again_is_practice(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    await client.post(f"{API}/games/{game['id']}/moves", json={"action": "draw"}, headers=auth)
    text = (await client.get(f"{API}/games/{game['id']}/record", headers=auth)).json()["record"]
    made = await client.post(f"{API}/games", json={"record": text}, headers=auth)
    assert made.status_code == 201, made.text
    assert made.json()["practice"] is True and made.json()["ranked"] is False
    assert made.json()["source"] == "deal" and game["practice"] is False
    assert (await _stats(client, auth, "rank-and-file"))["played"] == 1
