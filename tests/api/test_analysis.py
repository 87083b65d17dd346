"""The analysis of a finished game: a verdict per position, the losing move of a game
thrown away on purpose, a winning line from the position before it that the engine plays
to a win; secrecy (games in play, daily games of a current date, other players'), and
one analysis however many ask."""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import time_machine
from fastapi import FastAPI
from sqlalchemy import select

from app.config import Settings
from app.engine import VARIANTS, Move, deal, get_variant
from app.models import Job
from app.seeds import seed_line
from app.services.analysis.walk import LOST, UNDECIDED, WINNABLE, Decided, walk
from app.solver.result import replay
from tests.api.conftest import API, NewGame, NewPlayer, assert_error
from tests.api.daily_helpers import daily_settings, empty_daily_deals, start_daily, today
from tests.api.helpers import (
    near_won_rank_and_file,
    put_state,
    stored_game,
    stuck_rank_and_file,
)

ROOT = Path(__file__).resolve().parents[2]
# Canfield deal 1 of seeds/: after the first 24 moves of its proven line the position is
# winnable, and `w>f1` there throws it away (the search proves the position after it lost
# in a few hundred positions).
VARIANT, DEAL, GOOD_MOVES, BAD_MOVE = "canfield", 1, 24, "w>f1"


@pytest.fixture
async def settings(database_url: str, tmp_path: Path) -> AsyncIterator[Settings]:
    await empty_daily_deals(database_url)
    values = daily_settings(
        database_url,
        tmp_path,
        analysis_ply_max_positions=50_000,
        analysis_ply_max_seconds=5.0,
        analysis_max_positions=200_000,
    )
    shutil.copy(ROOT / "seeds" / f"{VARIANT}.json", values.seeds_dir / f"{VARIANT}.json")
    yield values


async def _play(
    client: httpx.AsyncClient, auth: dict[str, str], game_id: str, moves: list[Move]
) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for move in moves:
        response = await client.post(
            f"{API}/games/{game_id}/moves", json=move.to_json(), headers=auth
        )
        assert response.status_code == 200, response.text
        body = response.json()
    return body


async def _done(client: httpx.AsyncClient, auth: dict[str, str], game_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        response = await client.get(f"{API}/games/{game_id}/analysis", headers=auth)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        if body["state"] == "done":
            return body
        await asyncio.sleep(0.1)
    raise AssertionError("the analysis did not end")


async def test_the_losing_move_of_a_game_thrown_away_is_found(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    line = seed_line(ROOT / "seeds", VARIANT, DEAL)
    assert line is not None
    game = await new_game(variant=VARIANT, deal=DEAL, settings={"auto_finish": False})
    gid = game["id"]
    await _play(client, auth, gid, line[:GOOD_MOVES])
    assert_error(
        await client.get(f"{API}/games/{gid}/analysis", headers=auth), 404, "analysis_not_found"
    )
    # In play: nothing is told yet.
    assert_error(
        await client.post(f"{API}/games/{gid}/analysis", headers=auth), 409, "game_not_over"
    )
    bad = Move.parse(BAD_MOVE)
    state = await _play(client, auth, gid, [bad])
    # Play on a little after the mistake (every later position is lost too), then resign.
    more = [Move.from_json(m) for m in state["legal_moves"][:1]]
    await _play(client, auth, gid, more)
    resigned = await client.post(f"{API}/games/{gid}/resign", headers=auth)
    assert resigned.json()["status"] == "resigned"
    moves = GOOD_MOVES + 1 + len(more)

    asked = await client.post(f"{API}/games/{gid}/analysis", headers=auth)
    assert asked.status_code in (200, 202), asked.text
    assert asked.headers["Location"] == f"{API}/games/{gid}/analysis"
    assert asked.json()["state"] in ("pending", "running", "done")
    body = await _done(client, auth, gid)

    assert body["move_count"] == moves
    assert [p["ply"] for p in body["plies"]] == list(range(moves + 1))
    verdicts = [p["verdict"] for p in body["plies"]]
    assert verdicts == [WINNABLE] * (GOOD_MOVES + 1) + [LOST] * (moves - GOOD_MOVES)
    assert body["losing_ply"] == GOOD_MOVES + 1
    assert body["losing_move"] == bad.to_json()
    assert body["positions"] > 0  # the lost positions were searched (the line was known)
    # The winning line from the position before the losing move wins, move by move.
    before = replay(deal(get_variant(VARIANT), DEAL), line[:GOOD_MOVES])
    won = replay(before, [Move.from_json(m) for m in body["winning_line"]])
    assert won.is_won

    # Asked again: the same analysis, done (200), never run twice.
    again = await client.post(f"{API}/games/{gid}/analysis", headers=auth)
    assert again.status_code == 200 and again.json() == body


async def test_a_won_game_is_winnable_everywhere(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=7)
    await put_state(app, game["id"], near_won_rank_and_file())
    move = {"action": "move", "from": "tableau-1", "to": "foundation-0"}
    played = await client.post(f"{API}/games/{game['id']}/moves", json=move, headers=auth)
    assert played.json()["status"] == "won"
    await client.post(f"{API}/games/{game['id']}/analysis", headers=auth)
    body = await _done(client, auth, game["id"])
    assert [p["verdict"] for p in body["plies"]] == [WINNABLE, WINNABLE]
    assert body["losing_ply"] is None and body["winning_line"] is None
    assert body["positions"] == 0


async def test_secrecy_other_players_and_daily_games(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame, new_player: NewPlayer
) -> None:
    game = await new_game(deal=3)
    await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
    other = await new_player("bob")
    for method in ("POST", "GET"):
        response = await client.request(method, f"{API}/games/{game['id']}/analysis", headers=other)
        assert_error(response, 404, "game_not_found")

    # Today's daily game, resigned: its deal is everyone's until the date is over.
    daily = (await start_daily(client, auth, "today")).json()
    await client.post(f"{API}/games/{daily['id']}/resign", headers=auth)
    refused = await client.post(f"{API}/games/{daily['id']}/analysis", headers=auth)
    assert_error(refused, 409, "daily_not_over")
    tomorrow = datetime.combine(today() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
    with time_machine.travel(tomorrow + timedelta(minutes=1), tick=True):
        asked = await client.post(f"{API}/games/{daily['id']}/analysis", headers=auth)
        assert asked.status_code in (200, 202), asked.text
        body = await _done(client, auth, daily["id"])
    # A daily deal is proven winnable, and nothing was played: winnable throughout.
    assert [p["verdict"] for p in body["plies"]] == [WINNABLE]


async def test_two_requests_make_one_analysis(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(variant=VARIANT, deal=DEAL)
    await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
    first, second = await asyncio.gather(
        client.post(f"{API}/games/{game['id']}/analysis", headers=auth),
        client.post(f"{API}/games/{game['id']}/analysis", headers=auth),
    )
    assert {first.status_code, second.status_code} <= {200, 202}
    assert first.json()["created_at"] == second.json()["created_at"]
    body = await _done(client, auth, game["id"])
    assert [p["verdict"] for p in body["plies"]] == [WINNABLE]
    assert body["positions"] == 0  # the deal's proven line is known
    async with app.state.services.database.sessionmaker() as session:
        queued = await session.execute(
            select(Job.state, Job.attempts).where(Job.kind == "analysis")
        )
        assert queued.all() == [("done", 1)]  # one job, run once


class _Ply:
    """A stand-in position for the walk: its ply, never won."""

    is_won = False

    def __init__(self, ply: int) -> None:
        self.ply = ply


def _decider(
    truth: str, hard: set[int], asked: list[tuple[int, int]]
) -> Callable[[Any, int], Awaitable[Decided]]:
    """Decides ply k as `truth[k]` (w, l), costing 10 positions; a ply in `hard` only
    with a budget of 100 or more (else undecided)."""
    verdicts = {"w": WINNABLE, "l": LOST}

    async def decide(position: Any, budget: int) -> Decided:
        asked.append((position.ply, budget))
        if position.ply in hard and budget < 100:
            return Decided(UNDECIDED, None, budget)
        verdict = verdicts[truth[position.ply]]
        return Decided(verdict, () if verdict == WINNABLE else None, 10)

    return decide


async def test_the_walk_goes_back_from_the_end_to_the_first_winnable_position() -> None:
    asked: list[tuple[int, int]] = []
    decide = _decider("wwwllll", set(), asked)
    positions: Any = [_Ply(k) for k in range(7)]
    verdicts = await walk(positions, decide, ply_budget=100, total_budget=1000)
    assert [ply for ply, _budget in asked] == [6, 5, 4, 3, 2]
    assert verdicts.plies == [WINNABLE] * 3 + [LOST] * 4
    assert verdicts.losing_ply == 3 and verdicts.winning_line == []
    assert verdicts.positions == 50


async def test_the_walk_halves_the_gap_with_the_whole_budget() -> None:
    # Plies 1 to 8 need the whole budget: the first pass (1 position each) decides only
    # the last and the deal; the second finds the boundary (ply 5) in three searches.
    asked: list[tuple[int, int]] = []
    decide = _decider("wwwwwlllll", set(range(1, 9)), asked)
    positions: Any = [_Ply(k) for k in range(10)]
    verdicts = await walk(positions, decide, ply_budget=100, total_budget=10_000)
    assert asked[:10] == [(k, 1) for k in range(9, -1, -1)]
    assert asked[10:] == [(4, 100), (6, 100), (5, 100)]
    assert verdicts.plies == [WINNABLE] * 5 + [LOST] * 5
    assert verdicts.losing_ply == 5
    # Out of budget before the gap closes: the boundary stays undecided.
    asked.clear()
    verdicts = await walk(positions, decide, ply_budget=100, total_budget=40)
    # The line from the last position proven winnable (where a player can take it up).
    assert verdicts.losing_ply is None and verdicts.winning_line == []
    assert verdicts.plies[0] == WINNABLE and verdicts.plies[-1] == LOST
    assert UNDECIDED in verdicts.plies


@pytest.mark.parametrize("variant", list(VARIANTS))
async def test_every_game_is_analysed(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame, variant: str
) -> None:
    """A few random moves, resigned: the verdicts are winnable, then undecided, then lost
    (never otherwise), and a losing move found comes with a line the engine wins by."""
    game = await new_game(variant=variant, deal=2, settings={"auto_finish": False})
    rng = random.Random(variant)
    state = game
    played: list[Move] = []
    for _ in range(12):
        if state["status"] != "playing" or not state["legal_moves"]:
            break
        move = Move.from_json(rng.choice(state["legal_moves"]))
        state = await _play(client, auth, game["id"], [move])
        played.append(move)
    if state["status"] == "playing":
        await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
    await client.post(f"{API}/games/{game['id']}/analysis", headers=auth)
    body = await _done(client, auth, game["id"])
    verdicts = "".join(p["verdict"][0] for p in body["plies"])
    assert len(verdicts) == len(played) + 1
    assert re.fullmatch("w*u*l*", verdicts), verdicts
    if body["losing_ply"]:
        assert verdicts[body["losing_ply"] - 1 : body["losing_ply"] + 1] == "wl"
        assert body["losing_move"] == played[body["losing_ply"] - 1].to_json()
        before = replay(deal(get_variant(variant), 2), played[: body["losing_ply"] - 1])
        assert replay(before, [Move.from_json(m) for m in body["winning_line"]]).is_won
        assert body["winning_line_ply"] == body["losing_ply"] - 1
    elif body["winning_line"] is not None:
        # No losing move found: the line starts at the last position proven winnable.
        start = body["winning_line_ply"]
        assert verdicts[start] == "w" and verdicts[start + 1 : start + 2] != "w"
        before = replay(deal(get_variant(variant), 2), played[:start])
        assert replay(before, [Move.from_json(m) for m in body["winning_line"]]).is_won
    else:
        assert body["winning_line_ply"] is None


async def test_a_stuck_game_is_analysed_and_marked_assisted(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=9)
    await client.post(f"{API}/games/{game['id']}/moves", json={"action": "draw"}, headers=auth)
    await put_state(app, game["id"], stuck_rank_and_file())
    asked = await client.post(f"{API}/games/{game['id']}/analysis", headers=auth)
    assert asked.status_code in (200, 202), asked.text
    # A stuck game still takes an undo: what the analysis tells helps it.
    state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    assert state["assisted"] is True and state["status"] == "stuck"
    body = await _done(client, auth, game["id"])
    # Ply 1 is the stuck position put in place (lost); ply 0 the deal after no move.
    assert body["move_count"] == 1 and body["plies"][1]["verdict"] == LOST
    assert (await stored_game(app, game["id"])).assisted is True
