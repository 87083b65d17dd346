"""POST /games/{id}/hint and /finish over the ASGI app (fixtures of tests/api)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.services import solver as solver_service
from app.services.background import cpu_pool as work_module
from app.solver.result import SolveResult
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
    monkeypatch.setattr(app.state.services.settings, "finish_max_moves", 3)
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
    monkeypatch.setattr(app.state.services.settings, "finish_max_moves", 10_000)
    finished = await client.post(f"{url}/finish", headers=auth)
    assert finished.status_code == 200 and finished.json()["status"] == "won"


async def test_finish_without_a_win_is_409(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: Any,
    monkeypatch: pytest.MonkeyPatch,
    app: FastAPI,
) -> None:
    monkeypatch.setattr(app.state.services.settings, "finish_max_positions", 20)
    game = await new_game(deal=9)
    answer = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
    assert_error(answer, 409, "no_win_found")


async def test_saturated_pool_answers_429(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: Any,
    new_player: Any,
    monkeypatch: pytest.MonkeyPatch,
    app: FastAPI,
) -> None:
    monkeypatch.setattr(app.state.services.settings, "solver_queue", 0)
    # Deal 129 is won only after 8,487,405 positions (at a budget of 10,000,000): the
    # search runs until its deadline, whatever the core's speed (25,000 positions took
    # 52 ms, over before the second request came). Deal 9 served here until the beam won
    # it in time.
    monkeypatch.setattr(app.state.services.settings, "hint_max_positions", 5_000_000)
    monkeypatch.setattr(app.state.services.settings, "hint_max_seconds", 0.5)
    game = await new_game(deal=129)
    bob = await new_player("bob")  # two players: one search each is the other bound
    theirs = await new_game(headers=bob, deal=129)
    answers = await asyncio.gather(
        client.post(f"{API}/games/{game['id']}/hint", headers=auth),
        client.post(f"{API}/games/{theirs['id']}/hint", headers=bob),
    )
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

    async def search(self: Any, state: Any, *args: Any) -> Any:
        game_id = searched[-1] if searched else ""
        if game_id and len(searched) == 1:
            played = await client.post(
                f"{API}/games/{game_id}/moves", json={"action": "draw"}, headers=auth
            )
            assert played.status_code == 200, played.text
        searched.append(game_id)
        return await original(self, state, *args)

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


class FakeSearches:
    """The pool's searches replaced by a stand-in run in its threads: each is counted, and
    one whose budget is `blocked_seconds` waits for `release` (a long search, held open)."""

    def __init__(self, blocked_seconds: float) -> None:
        self.blocked_seconds = blocked_seconds
        self.release = threading.Event()
        self.started = threading.Event()
        self.count = 0

    def __call__(
        self, data: bytes, positions: int, seconds: float | None, *_rest: object
    ) -> SolveResult:
        self.count += 1
        if seconds == self.blocked_seconds:
            self.started.set()
            self.release.wait(timeout=30)  # never hangs a broken test for good
        return SolveResult("unknown", [], positions, 1, "positions")


@pytest.fixture
def fake_searches(monkeypatch: pytest.MonkeyPatch, app: FastAPI) -> Iterator[FakeSearches]:
    # Finish's budget is the one held open; a hint's answers at once. No background
    # process to borrow: every search runs in the players' lane, threads here.
    monkeypatch.setattr(app.state.services.settings, "finish_max_seconds", 7.0)
    monkeypatch.setattr(app.state.services.settings, "daily_workers", 0)
    fake = FakeSearches(blocked_seconds=7.0)
    monkeypatch.setattr(work_module, "solve_bytes", fake)
    yield fake
    fake.release.set()


async def _until(event: threading.Event) -> None:
    for _ in range(500):
        if event.is_set():
            return
        await asyncio.sleep(0.01)
    pytest.fail("the search never started")


async def test_a_second_search_of_the_same_player_is_refused_at_once(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: Any,
    new_player: Any,
    fake_searches: FakeSearches,
) -> None:
    """One search per player, running or waiting: another from the same player (hint or
    finish, on any of its games) answers 429 at once; another player's is still taken."""
    first, second = await new_game(deal=9), await new_game(deal=10)
    bob = await new_player("bob")
    theirs = await new_game(headers=bob, deal=11)
    running = asyncio.create_task(client.post(f"{API}/games/{first['id']}/finish", headers=auth))
    await _until(fake_searches.started)
    for url in (f"{API}/games/{second['id']}/hint", f"{API}/games/{first['id']}/finish"):
        refused = await asyncio.wait_for(client.post(url, headers=auth), timeout=3)
        assert_error(refused, 429, "solver_search_in_progress")
        assert 1 <= int(refused.headers["Retry-After"]) <= 7  # the running search's budget
    other = await asyncio.wait_for(
        client.post(f"{API}/games/{theirs['id']}/hint", headers=bob), timeout=3
    )
    assert other.status_code == 200, other.text
    fake_searches.release.set()
    assert_error(await running, 409, "no_win_found")
    assert fake_searches.count == 2  # the refused ones never reached the pool
    after = await client.post(f"{API}/games/{second['id']}/hint", headers=auth)
    assert after.status_code == 200, after.text  # the player's search is over: free again


async def test_a_remembered_unknown_answers_without_a_new_search(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: Any,
    app: FastAPI,
    monkeypatch: pytest.MonkeyPatch,
    fake_searches: FakeSearches,
) -> None:
    fake_searches.release.set()  # every search answers unknown at once
    game = await new_game(deal=9)
    url = f"{API}/games/{game['id']}"
    for _ in range(2):
        assert_error(await client.post(f"{url}/finish", headers=auth), 409, "no_win_found")
    assert fake_searches.count == 1  # the second finish asked no search
    hints = [(await client.post(f"{url}/hint", headers=auth)).json() for _ in range(2)]
    assert fake_searches.count == 2  # a hint's budget is another search: once
    assert [h["result"] for h in hints] == ["unknown", "unknown"]
    assert hints[0]["positions"] > 0 and hints[1]["positions"] == 0
    assert hints[1]["move"] == hints[0]["move"]  # the usual heuristic suggestion
    monkeypatch.setattr(app.state.services.settings, "finish_max_positions", 999)
    assert_error(await client.post(f"{url}/finish", headers=auth), 409, "no_win_found")
    assert fake_searches.count == 3  # another budget: searched anew
    await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
    assert_error(await client.post(f"{url}/finish", headers=auth), 409, "no_win_found")
    assert fake_searches.count == 4  # another position: searched anew


async def test_a_hint_is_served_while_another_players_finish_runs(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: Any,
    new_player: Any,
    app: FastAPI,
    monkeypatch: pytest.MonkeyPatch,
    fake_searches: FakeSearches,
) -> None:
    """With one worker for players' searches (and no background process to borrow), a
    finish running its whole budget leaves a hint of another player its own worker."""
    game = await new_game(deal=9)
    bob = await new_player("bob")
    theirs = await new_game(headers=bob, deal=10)
    finish = asyncio.create_task(client.post(f"{API}/games/{game['id']}/finish", headers=auth))
    await _until(fake_searches.started)
    for _ in range(3):
        hint = await asyncio.wait_for(
            client.post(f"{API}/games/{theirs['id']}/hint", headers=bob), timeout=3
        )
        assert hint.status_code == 200, hint.text
        assert hint.json()["result"] == "unknown"
        played = await client.post(
            f"{API}/games/{theirs['id']}/moves", json=hint.json()["move"], headers=bob
        )
        assert played.status_code == 200, played.text  # a new position: a new search
    assert fake_searches.count == 4 and not finish.done()
    fake_searches.release.set()
    assert_error(await finish, 409, "no_win_found")
