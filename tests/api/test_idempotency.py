from __future__ import annotations

import asyncio

import httpx

from tests.api.conftest import API, NewGame, NewPlayer, assert_error


async def test_replay_returns_first_answer_without_moving_twice(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}/moves"
    headers = {**auth, "Idempotency-Key": "k-1"}
    first = await client.post(url, json={"action": "draw"}, headers=headers)
    again = await client.post(url, json={"action": "draw"}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["ETag"] == first.headers["ETag"]
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert "Idempotent-Replayed" not in first.headers
    state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    assert state["version"] == 1 and state["move_count"] == 1

    # Another key is another request.
    other = await client.post(
        url, json={"action": "draw"}, headers={**auth, "Idempotency-Key": "k-2"}
    )
    assert other.status_code == 200 and other.json()["version"] == 2


async def test_same_key_other_request_is_refused(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}/moves"
    headers = {**auth, "Idempotency-Key": "k-1"}
    assert (await client.post(url, json={"action": "draw"}, headers=headers)).status_code == 200
    click = await client.post(url, json={"action": "click", "pile": "stock"}, headers=headers)
    assert_error(click, 422, "idempotency_key_reused")
    undo = await client.post(f"{API}/games/{game['id']}/undo", headers=headers)
    assert_error(undo, 422, "idempotency_key_reused")
    assert (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()["version"] == 1


async def test_keys_belong_to_their_player(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame, new_player: NewPlayer
) -> None:
    eve = await new_player("eve")
    mine, hers = await new_game(deal=5), await new_game(headers=eve, deal=5)
    one = await client.post(
        f"{API}/games/{mine['id']}/moves",
        json={"action": "draw"},
        headers={**auth, "Idempotency-Key": "same"},
    )
    two = await client.post(
        f"{API}/games/{hers['id']}/moves",
        json={"action": "draw"},
        headers={**eve, "Idempotency-Key": "same"},
    )
    assert one.status_code == two.status_code == 200
    assert two.json()["id"] == hers["id"] and "Idempotent-Replayed" not in two.headers


async def test_concurrent_retries_move_once(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}/moves"
    headers = {**auth, "Idempotency-Key": "retry"}
    responses = await asyncio.gather(
        *[client.post(url, json={"action": "draw"}, headers=headers) for _ in range(6)]
    )
    assert [r.status_code for r in responses] == [200] * 6
    assert len({r.text for r in responses}) == 1
    state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    assert state["move_count"] == 1


async def test_idempotent_undo(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    for _ in range(2):
        await client.post(f"{API}/games/{game['id']}/moves", json={"action": "draw"}, headers=auth)
    headers = {**auth, "Idempotency-Key": "undo-1"}
    first = await client.post(f"{API}/games/{game['id']}/undo", headers=headers)
    again = await client.post(f"{API}/games/{game['id']}/undo", headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json() and first.json()["move_count"] == 1
    state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    assert state["move_count"] == 1
