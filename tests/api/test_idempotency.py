from __future__ import annotations

import asyncio

import httpx
from fastapi import FastAPI

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


async def test_same_key_on_two_games_at_once(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    first, second = await new_game(deal=5), await new_game(deal=6)
    headers = {**auth, "Idempotency-Key": "shared"}
    responses = await asyncio.gather(
        *[
            client.post(f"{API}/games/{g['id']}/moves", json={"action": "draw"}, headers=headers)
            for g in (first, second)
        ]
    )
    assert sorted(r.status_code for r in responses) == [200, 422]
    refused = next(r for r in responses if r.status_code == 422)
    assert_error(refused, 422, "idempotency_key_reused")
    counts = [
        (await client.get(f"{API}/games/{g['id']}", headers=auth)).json()["move_count"]
        for g in (first, second)
    ]
    assert sorted(counts) == [0, 1]


async def test_old_keys_are_pruned(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    from datetime import timedelta

    from sqlalchemy import func, select, update

    from app.models import IdempotencyKey, utcnow
    from app.services.games import prune_idempotency_keys

    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}/moves"
    for key in ("old", "new"):
        response = await client.post(
            url, json={"action": "draw"}, headers={**auth, "Idempotency-Key": key}
        )
        assert response.status_code == 200
    async with app.state.db.sessionmaker() as session:
        await session.execute(
            update(IdempotencyKey)
            .where(IdempotencyKey.key == "old")
            .values(created_at=utcnow() - timedelta(days=2))
        )
        await session.commit()
        assert await prune_idempotency_keys(session, timedelta(hours=24)) == 1
        keys = (await session.execute(select(IdempotencyKey.key))).scalars().all()
        assert keys == ["new"]
        assert (
            await session.execute(select(func.count()).select_from(IdempotencyKey))
        ).scalar_one() == 1
