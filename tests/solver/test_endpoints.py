"""POST /games/{id}/hint and /finish over the ASGI app (fixtures of tests/api)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.services import solver as solver_service
from tests.api.conftest import API, assert_error


@pytest.fixture(autouse=True)
def thread_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    # Threads in tests: no process start-up; the interface is the same.
    monkeypatch.setenv("SOLVER_KIND", "thread")


async def test_hints_followed_move_by_move_win(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any
) -> None:
    game = await new_game(deal=1, settings={"auto_finish": False})
    url = f"{API}/games/{game['id']}"
    first = True
    for _ in range(1000):
        hint = await client.post(f"{url}/hint", headers=auth)
        assert hint.status_code == 200, hint.text
        body = hint.json()
        assert body["result"] == "solved"
        if not first:
            assert body["positions"] == 0  # the line is kept: no new search
        first = False
        played = await client.post(f"{url}/moves", json=body["move"], headers=auth)
        assert played.status_code == 200, played.text
        if played.json()["status"] == "won":
            break
    else:
        pytest.fail("following the hints did not win")
    done = await client.post(f"{url}/hint", headers=auth)
    assert done.json()["move"] is None


async def test_finish_on_a_proven_deal_wins(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any
) -> None:
    game = await new_game(deal=2)
    finished = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
    assert finished.status_code == 200, finished.text
    assert finished.json()["status"] == "won"
    log = await client.get(f"{API}/games/{game['id']}/moves", headers=auth)
    assert log.status_code == 200
    assert log.json()  # every move of the line was logged as usual


async def test_a_line_longer_than_a_finish_plays_is_409_and_changes_no_move(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: Any,
    monkeypatch: pytest.MonkeyPatch,
    app: FastAPI,
) -> None:
    monkeypatch.setattr(app.state.settings, "finish_max_moves", 3)
    game = await new_game(deal=2)  # won by a line of more than three moves
    url = f"{API}/games/{game['id']}"
    answer = await client.post(f"{url}/finish", headers=auth)
    error = assert_error(answer, 409, "no_win_found")
    assert "moves long" in error["message"] and "FINISH_MAX_MOVES" in error["message"]
    state = (await client.get(url, headers=auth)).json()
    assert state["move_count"] == 0 and state["piles"] == game["piles"]  # no move played
    assert state["assisted"] is True  # the player learnt that a win exists
    hint = (await client.post(f"{url}/hint", headers=auth)).json()
    assert hint["result"] == "solved" and hint["move"] is not None  # hints follow the line
    monkeypatch.setattr(app.state.settings, "finish_max_moves", 10_000)
    finished = await client.post(f"{url}/finish", headers=auth)
    assert finished.status_code == 200 and finished.json()["status"] == "won"


async def test_finish_without_a_win_is_409(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: Any,
    monkeypatch: pytest.MonkeyPatch,
    app: FastAPI,
) -> None:
    monkeypatch.setattr(app.state.settings, "finish_max_positions", 20)
    game = await new_game(deal=9)
    answer = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
    assert_error(answer, 409, "no_win_found")


async def test_saturated_pool_answers_429(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: Any,
    monkeypatch: pytest.MonkeyPatch,
    app: FastAPI,
) -> None:
    monkeypatch.setattr(app.state.settings, "solver_queue", 0)
    # Deal 129 is won only after 8,487,405 positions (at a budget of 10,000,000): the
    # search runs until its deadline, whatever the core's speed (25,000 positions took
    # 52 ms, over before the second request came). Deal 9 served here until the beam won
    # it in time.
    monkeypatch.setattr(app.state.settings, "hint_max_positions", 5_000_000)
    monkeypatch.setattr(app.state.settings, "hint_max_seconds", 0.5)
    game = await new_game(deal=129)
    url = f"{API}/games/{game['id']}/hint"
    answers = await asyncio.gather(client.post(url, headers=auth), client.post(url, headers=auth))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 429], [a.text for a in answers]
    busy = next(a for a in answers if a.status_code == 429)
    assert_error(busy, 429, "solver_busy")
    assert int(busy.headers["Retry-After"]) >= 1
    hint = next(a for a in answers if a.status_code == 200).json()
    assert hint["result"] == "unknown"
    assert hint["move"] is not None  # a heuristic suggestion, marked by the result


async def test_hint_on_someone_elses_game_is_404(
    client: httpx.AsyncClient, new_game: Any, new_player: Any
) -> None:
    game = await new_game(deal=1)
    other = await new_player("bob")
    answer = await client.post(f"{API}/games/{game['id']}/hint", headers=other)
    assert_error(answer, 404, "game_not_found")


@pytest.fixture
def move_during_search(
    client: httpx.AsyncClient, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """Every search first lets another client play a draw on the game (a move made
    while the search runs); returns the ids of the games searched."""
    searched: list[str] = []
    original = solver_service.SolverService.search

    async def search(self: Any, state: Any, positions: int, seconds: float) -> Any:
        game_id = searched[-1] if searched else ""
        if game_id and len(searched) == 1:
            played = await client.post(
                f"{API}/games/{game_id}/moves", json={"action": "draw"}, headers=auth
            )
            assert played.status_code == 200, played.text
        searched.append(game_id)
        return await original(self, state, positions, seconds)

    monkeypatch.setattr(solver_service.SolverService, "search", search)
    return searched


async def test_hint_with_a_move_during_its_search_answers(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any, move_during_search: list[str]
) -> None:
    game = await new_game(deal=9)
    move_during_search.append(game["id"])
    hint = await client.post(f"{API}/games/{game['id']}/hint", headers=auth)
    assert hint.status_code == 200, hint.text  # not a 409 from a stale copy of the game
    state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    assert state["assisted"] is True
    assert state["move_count"] == 1  # the other client's draw stays


async def test_finish_with_a_move_during_its_search_plays_from_the_new_position(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any, move_during_search: list[str]
) -> None:
    game = await new_game(deal=2)
    move_during_search.append(game["id"])
    finished = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
    assert finished.status_code == 200, finished.text
    assert finished.json()["status"] == "won"
    assert len(move_during_search) == 3  # searched again from the moved position
    log = (await client.get(f"{API}/games/{game['id']}/moves", headers=auth)).json()
    assert log["items"][0]["move"] == {"action": "draw"}  # the other client's move first
    assert [entry["seq"] for entry in log["items"]] == list(range(1, len(log["items"]) + 1))


async def test_finish_on_a_lost_position_marks_the_game_assisted(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any
) -> None:
    game = await new_game(variant="canfield", deal=3)  # proven lost in a few dozen positions
    answer = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
    error = assert_error(answer, 409, "no_win_found")
    assert "unsolvable" in error["message"]
    state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    assert state["assisted"] is True


async def test_a_line_proven_lost_stays_lost_until_taken_back_past_the_proof(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any
) -> None:
    """Every position after one proven lost descends from it: later hints and finish say
    so without a search (and without a write); an undo back past the proven position
    leaves a new line ahead, searched again."""
    game = await new_game(variant="canfield", deal=5)  # proven lost in a few dozen positions
    url = f"{API}/games/{game['id']}"
    build = {"action": "move", "from": "tableau-2", "to": "tableau-0"}

    async def hint() -> dict[str, Any]:
        answer = await client.post(f"{url}/hint", headers=auth)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        assert body["result"] == "unsolvable" and body["move"] is None
        assert body["assisted"] is True
        return body

    async def play(move: dict[str, str] | None) -> None:
        path = "undo" if move is None else "moves"
        answer = await client.post(f"{url}/{path}", json=move or {}, headers=auth)
        assert answer.status_code == 200, answer.text

    draw, undo = {"action": "draw"}, None
    await play(build)  # move 1
    assert (await hint())["positions"] > 0  # proven here
    await play(draw)
    await play(draw)  # move 3: a position no search has met
    version = (await client.get(url, headers=auth)).json()["version"]
    later = await hint()
    assert later["positions"] == 0 and later["version"] == version
    finish = await client.post(f"{url}/finish", headers=auth)
    assert "unsolvable" in assert_error(finish, 409, "no_win_found")["message"]
    assert (await client.get(url, headers=auth)).json()["version"] == version  # no write
    await play(undo)
    await play(undo)  # move 1 again: the position proven lost
    assert (await hint())["positions"] == 0
    await play(undo)  # move 0: before it
    await play(draw)  # another move 1, on another line: not known
    assert (await hint())["positions"] > 0


async def test_a_proof_for_a_position_gone_during_its_search_is_not_kept_on_the_game(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any, move_during_search: list[str]
) -> None:
    """The game moved while its position was proven lost: the player was told (the game
    is assisted), but the game's line is not marked, since the game could have been taken
    back past the position meanwhile; the next hint searches its own position."""
    game = await new_game(variant="canfield", deal=5)
    move_during_search.append(game["id"])  # another client draws while the search runs
    first = (await client.post(f"{API}/games/{game['id']}/hint", headers=auth)).json()
    assert first["result"] == "unsolvable" and first["version"] == 0
    state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    assert state["assisted"] is True and state["move_count"] == 1
    again = (await client.post(f"{API}/games/{game['id']}/hint", headers=auth)).json()
    assert again["result"] == "unsolvable" and again["positions"] > 0
    assert again["version"] == state["version"]


async def test_a_long_finish_logs_every_move_with_its_own_seq_and_version(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any
) -> None:
    """Emperor deal 15's line runs to 1,165 moves once shortened (app/solver/lines.py):
    finish writes them at once, each still its own move, numbered and versioned one after
    another. (Diplomat 13's, 1,458 moves, served until lines were shortened: 527 now.)"""
    game = await new_game(variant="emperor", deal=15)
    finished = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
    assert finished.status_code == 200, finished.text
    body = finished.json()
    assert body["status"] == "won"
    # Longer than a page (1,000 moves): read page by page, as docs/api.md says.
    log: list[dict[str, Any]] = []
    offset = 0
    while offset is not None:
        page = (
            await client.get(
                f"{API}/games/{game['id']}/moves", params={"offset": offset}, headers=auth
            )
        ).json()
        assert page["total"] == body["move_count"] and len(page["items"]) <= 1000
        log += page["items"]
        offset = page["next_offset"]
    assert len(log) == body["move_count"] > 1000
    assert [entry["seq"] for entry in log] == list(range(1, len(log) + 1))
    versions = [entry["version"] for entry in log]
    assert versions == list(range(game["version"] + 1, game["version"] + 1 + len(log)))
    assert body["version"] == versions[-1]
    assert sum(len(entry["events"]) for entry in log) == len(body["events"])


async def test_a_hint_answers_the_version_the_next_move_expects(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any
) -> None:
    """A hint marks the game assisted (its version goes up): the answer says so, in its
    `version` and its ETag, so the hinted move can be sent with `expected_version`."""
    game = await new_game(deal=1)
    url = f"{API}/games/{game['id']}"
    for _ in range(2):  # marking once, then nothing to mark
        hint = await client.post(f"{url}/hint", headers=auth)
        assert hint.status_code == 200, hint.text
        state = await client.get(url, headers=auth)
        assert hint.json()["version"] == state.json()["version"] == 1
        assert hint.json()["assisted"] is True
        assert hint.headers["ETag"] == state.headers["ETag"] == f'"{game["id"]}.1"'
    move = {**hint.json()["move"], "expected_version": hint.json()["version"]}
    played = await client.post(f"{url}/moves", json=move, headers=auth)
    assert played.status_code == 200, played.text
    assert played.json()["version"] == 2


async def test_a_hint_for_a_position_gone_during_its_search_names_the_old_version(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any, move_during_search: list[str]
) -> None:
    game = await new_game(deal=9)
    move_during_search.append(game["id"])  # another client draws while the search runs
    hint = await client.post(f"{API}/games/{game['id']}/hint", headers=auth)
    assert hint.status_code == 200, hint.text
    assert hint.json()["version"] == 0  # the version searched: the position is gone
    assert hint.headers["ETag"] == f'"{game["id"]}.0"'
    move = hint.json()["move"] or {"action": "draw"}
    stale = await client.post(
        f"{API}/games/{game['id']}/moves", json={**move, "expected_version": 0}, headers=auth
    )
    assert_error(stale, 409, "version_conflict")
