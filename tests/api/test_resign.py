"""Resigning: a game in play ends as `resigned`, played and not won; a game that is over
already is refused, and a resigned game takes no move or undo."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from tests.api.conftest import API, NewGame, NewPlayer, assert_error
from tests.api.helpers import near_won_rank_and_file, put_state, stuck_rank_and_file


async def _stats(
    client: httpx.AsyncClient, auth: dict[str, str], variant: str
) -> dict[str, object]:
    body = (await client.get(f"{API}/players/me/stats", headers=auth)).json()
    return next(v for v in body["variants"] if v["variant"] == variant)


async def test_resign_ends_the_game_counted_played_not_won(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    draw = await client.post(
        f"{API}/games/{game['id']}/moves", json={"action": "draw"}, headers=auth
    )
    assert draw.status_code == 200
    version = draw.json()["version"]

    stale = await client.post(
        f"{API}/games/{game['id']}/resign", json={"expected_version": 0}, headers=auth
    )
    assert_error(stale, 409, "version_conflict")

    response = await client.post(
        f"{API}/games/{game['id']}/resign", json={"expected_version": version}, headers=auth
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "resigned" and body["version"] == version + 1
    assert body["ranked"] is False and body["move_count"] == 1
    assert response.headers["ETag"] == f'"{game["id"]}.{version + 1}"'
    listed = (await client.get(f"{API}/games", headers=auth)).json()["items"]
    assert [g["status"] for g in listed] == ["resigned"]

    stats = await _stats(client, auth, "rank-and-file")
    assert (stats["played"], stats["won"], stats["win_rate"]) == (1, 0, 0.0)

    # Over for good: no second resign, no move, no undo.
    again = await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
    assert_error(again, 409, "game_already_over")
    move = await client.post(
        f"{API}/games/{game['id']}/moves", json={"action": "draw"}, headers=auth
    )
    assert_error(move, 409, "game_over")
    undo = await client.post(f"{API}/games/{game['id']}/undo", headers=auth)
    assert_error(undo, 409, "game_over")
    # Settings still change.
    patch = await client.patch(
        f"{API}/games/{game['id']}", json={"settings": {"auto_play": False}}, headers=auth
    )
    assert patch.status_code == 200 and patch.json()["status"] == "resigned"


async def test_resign_is_replayed_under_its_idempotency_key(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=6)
    headers = {**auth, "Idempotency-Key": "resign-1"}
    first = await client.post(f"{API}/games/{game['id']}/resign", headers=headers)
    second = await client.post(f"{API}/games/{game['id']}/resign", headers=headers)
    assert first.status_code == second.status_code == 200
    assert second.headers["Idempotent-Replayed"] == "true"
    assert first.json() == second.json()


async def test_a_won_or_stuck_game_is_over_already(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    won = await new_game(deal=7)
    await put_state(app, won["id"], near_won_rank_and_file())
    move = {"action": "move", "from": "tableau-1", "to": "foundation-0"}
    played = await client.post(f"{API}/games/{won['id']}/moves", json=move, headers=auth)
    assert played.json()["status"] == "won"
    assert_error(
        await client.post(f"{API}/games/{won['id']}/resign", headers=auth), 409, "game_already_over"
    )
    stuck = await new_game(deal=8)
    await put_state(app, stuck["id"], stuck_rank_and_file())
    assert_error(
        await client.post(f"{API}/games/{stuck['id']}/resign", headers=auth),
        409,
        "game_already_over",
    )


async def test_resign_reveals_a_random_deal_and_refuses_other_players(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame, new_player: NewPlayer
) -> None:
    game = await new_game()
    assert game["deal"] is None
    other = await new_player("bob")
    assert_error(
        await client.post(f"{API}/games/{game['id']}/resign", headers=other), 404, "game_not_found"
    )
    body = (await client.post(f"{API}/games/{game['id']}/resign", headers=auth)).json()
    # Over for good: the deal the server chose is no secret any more, nor its record.
    assert isinstance(body["deal"], int)
    record = await client.get(f"{API}/games/{game['id']}/record", headers=auth)
    assert record.status_code == 200


async def test_a_resigned_game_is_not_finished_nor_hinted(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=1)
    await client.post(f"{API}/games/{game['id']}/resign", headers=auth)
    finish = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
    assert_error(finish, 409, "game_over")
    hint = await client.post(f"{API}/games/{game['id']}/hint", headers=auth)
    assert_error(hint, 409, "game_over")  # before any search: its analysis coaches
    assert (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()["assisted"] is False
