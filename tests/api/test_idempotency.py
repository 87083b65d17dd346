from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select, update

from app.config import Settings
from app.main import create_app
from app.models import IdempotencyKey, utcnow
from app.services.kit.idempotency import prune_idempotency_keys
from tests.api.conftest import API, NewGame, NewPlayer, assert_error, running


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
    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}/moves"
    for key in ("old", "new"):
        response = await client.post(
            url, json={"action": "draw"}, headers={**auth, "Idempotency-Key": key}
        )
        assert response.status_code == 200
    async with app.state.services.database.sessionmaker() as session:
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


async def _age(app: FastAPI, key: str, ago: timedelta) -> None:
    """Date the stored answer of `key` back to `ago` before now."""
    async with app.state.services.database.sessionmaker() as session:
        await session.execute(
            update(IdempotencyKey)
            .where(IdempotencyKey.key == key)
            .values(created_at=utcnow() - ago)
        )
        await session.commit()


async def _stored_keys(app: FastAPI) -> list[str]:
    async with app.state.services.database.sessionmaker() as session:
        query = select(IdempotencyKey.key).order_by(IdempotencyKey.id)
        return list((await session.execute(query)).scalars())


async def test_an_expired_answer_is_never_replayed(
    client: httpx.AsyncClient,
    app: FastAPI,
    settings: Settings,
    auth: dict[str, str],
    new_game: NewGame,
) -> None:
    """Past IDEMPOTENCY_TTL_HOURS a key is a new request, before any sweep removed it:
    played again, and its new answer is the one replayed from then on."""
    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}/moves"
    headers = {**auth, "Idempotency-Key": "late"}
    first = await client.post(url, json={"action": "draw"}, headers=headers)
    assert first.status_code == 200 and first.json()["version"] == 1
    await _age(app, "late", timedelta(hours=settings.idempotency_ttl_hours, minutes=1))
    again = await client.post(url, json={"action": "draw"}, headers=headers)
    assert again.status_code == 200, again.text
    assert "Idempotent-Replayed" not in again.headers
    assert again.json()["version"] == 2
    retry = await client.post(url, json={"action": "draw"}, headers=headers)
    assert retry.headers.get("Idempotent-Replayed") == "true"
    assert retry.json() == again.json()
    # An expired key taken for another request is that request's key now, not a 422.
    await _age(app, "late", timedelta(hours=settings.idempotency_ttl_hours, minutes=1))
    undo = await client.post(f"{API}/games/{game['id']}/undo", headers=headers)
    assert undo.status_code == 200, undo.text
    assert undo.json()["move_count"] == 1
    assert await _stored_keys(app) == ["late"]


@asynccontextmanager
async def _app_with(settings: Settings, **changes: Any) -> AsyncIterator[httpx.AsyncClient]:
    """A second app on the test database with other settings, and a client of it."""
    application = create_app(settings.model_copy(update=changes))
    async with running(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            client.app = application  # type: ignore[attr-defined]
            yield client


async def test_a_player_keeps_only_the_newest_answers(
    settings: Settings, auth: dict[str, str], new_player: NewPlayer, new_game: NewGame
) -> None:
    """IDEMPOTENCY_MAX_PER_PLAYER: a new answer past the bound drops the player's oldest,
    in the same transaction; other players' answers stay."""
    eve = await new_player("eve")
    hers, mine = await new_game(headers=eve, deal=5), await new_game(deal=5)
    async with _app_with(settings, idempotency_max_per_player=3) as client:
        app: FastAPI = client.app  # type: ignore[attr-defined]

        async def draw(headers: dict[str, str], game: dict[str, Any], key: str) -> httpx.Response:
            url = f"{API}/games/{game['id']}/moves"
            headers = {**headers, "Idempotency-Key": key}
            return await client.post(url, json={"action": "draw"}, headers=headers)

        assert (await draw(eve, hers, "eve-0")).status_code == 200
        for n in range(5):
            assert (await draw(auth, mine, f"k{n}")).status_code == 200
        assert await _stored_keys(app) == ["eve-0", "k2", "k3", "k4"]
        newest = await draw(auth, mine, "k4")
        assert newest.headers.get("Idempotent-Replayed") == "true"
        assert newest.json()["version"] == 5
        # The oldest is forgotten: the same key is a new request.
        oldest = await draw(auth, mine, "k0")
        assert "Idempotent-Replayed" not in oldest.headers
        assert oldest.json()["version"] == 6
        assert await _stored_keys(app) == ["eve-0", "k3", "k4", "k0"]


async def test_expired_answers_are_swept_while_running(
    settings: Settings, auth: dict[str, str], new_game: NewGame
) -> None:
    """Expired answers are deleted in the background every IDEMPOTENCY_SWEEP_SECONDS
    (not only at start-up), and the sweep stops with the app."""
    game = await new_game(deal=5)
    async with _app_with(settings, idempotency_sweep_seconds=0.05) as client:
        app: FastAPI = client.app  # type: ignore[attr-defined]
        url = f"{API}/games/{game['id']}/moves"
        for key in ("old", "new"):
            headers = {**auth, "Idempotency-Key": key}
            assert (await client.post(url, json={"action": "draw"}, headers=headers)).is_success
        await _age(app, "old", timedelta(hours=settings.idempotency_ttl_hours, minutes=1))
        for _ in range(100):
            if await _stored_keys(app) == ["new"]:
                break
            await asyncio.sleep(0.05)
        assert await _stored_keys(app) == ["new"]
        sweeper: asyncio.Task[None] = app.state.services.idempotency_sweeper.task
    assert sweeper.done()
