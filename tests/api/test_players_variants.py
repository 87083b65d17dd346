from __future__ import annotations

from typing import Any

import httpx

from app.engine import VARIANTS
from app.schemas import PlayerCreated, PlayerOut, VariantOut
from tests.api.conftest import API, NewPlayer, assert_error


async def test_create_player_returns_token_once(client: httpx.AsyncClient) -> None:
    response = await client.post(f"{API}/players", json={"name": "ada"})
    assert response.status_code == 201
    created = PlayerCreated.model_validate(response.json())
    assert created.name == "ada" and len(created.token) >= 32

    me = await client.get(f"{API}/players/me", headers={"Authorization": f"Bearer {created.token}"})
    assert me.status_code == 200
    body = PlayerOut.model_validate(me.json())
    assert body.id == created.id and body.name == "ada"
    assert "token" not in me.json() and created.token not in me.text
    # RFC 3339 with its offset on every database (SQLite keeps none; it is UTC).
    assert body.created_at.utcoffset() is not None and me.json()["created_at"].endswith(
        ("Z", "+00:00")
    )


async def test_create_player_without_body_or_name(client: httpx.AsyncClient) -> None:
    first = await client.post(f"{API}/players")
    second = await client.post(f"{API}/players", json={})
    assert first.status_code == second.status_code == 201
    assert first.json()["name"] is None
    assert first.json()["token"] != second.json()["token"]
    assert first.json()["id"] != second.json()["id"]


async def test_create_player_validation(client: httpx.AsyncClient) -> None:
    assert_error(
        await client.post(f"{API}/players", json={"name": "x" * 65}), 422, "validation_error"
    )
    assert_error(await client.post(f"{API}/players", json={"nom": "x"}), 422, "validation_error")


async def test_an_optional_body_is_an_object_or_nothing_never_null(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: Any
) -> None:
    """The document says "the model, or no body" for optional bodies: a JSON null is a
    body not of the schema (422), and changes nothing."""
    json_type = {"Content-Type": "application/json"}
    assert_error(
        await client.post(f"{API}/players", content=b"null", headers=json_type),
        422,
        "validation_error",
    )
    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}"
    assert (await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth)).is_success
    refused = await client.post(f"{url}/undo", content=b" null ", headers={**auth, **json_type})
    assert_error(refused, 422, "validation_error")
    assert (await client.get(url, headers=auth)).json()["move_count"] == 1
    assert (await client.post(f"{url}/undo", headers=auth)).status_code == 200


async def test_token_is_stored_only_as_hash(client: httpx.AsyncClient, app: object) -> None:
    from sqlalchemy import select

    from app.models import Player

    response = await client.post(f"{API}/players", json={"name": "bob"})
    token = response.json()["token"]
    async with app.state.services.database.sessionmaker() as session:  # type: ignore[attr-defined]
        player = (await session.execute(select(Player))).scalar_one()
    assert token not in player.token_hash and len(player.token_hash) == 64


async def test_unauthorized(client: httpx.AsyncClient, new_player: NewPlayer) -> None:
    await new_player()
    for headers in (
        {},
        {"Authorization": "Bearer nope"},
        {"Authorization": "Basic YTpi"},
        {"Authorization": "Bearer "},
    ):
        response = await client.get(f"{API}/players/me", headers=headers)
        assert_error(response, 401, "unauthorized")
        assert response.headers["WWW-Authenticate"] == "Bearer"
    assert_error(await client.get(f"{API}/games"), 401, "unauthorized")
    assert_error(
        await client.post(f"{API}/games", json={"variant": "rainbow"}), 401, "unauthorized"
    )


async def test_list_variants(client: httpx.AsyncClient) -> None:
    response = await client.get(f"{API}/variants")
    assert response.status_code == 200
    items = [VariantOut.model_validate(v) for v in response.json()]
    assert {v.id for v in items} == set(VARIANTS)
    rank = next(v for v in items if v.id == "rank-and-file")
    assert rank.name == "Rank and File" and "dress-parade" in rank.aliases
    assert (rank.decks, rank.tableau_piles, rank.foundations) == (2, 10, 8)
    assert rank.rules and all(isinstance(r, str) for r in rank.rules)
    assert [(h.name, h.default) for h in rank.house_rules] == [("foundation_return", False)]
    rainbow = next(v for v in items if v.id == "rainbow")
    assert (rainbow.decks, rainbow.reserve_size, rainbow.foundations) == (1, 13, 4)


async def test_get_variant_by_id_and_alias(client: httpx.AsyncClient) -> None:
    by_id = await client.get(f"{API}/variants/rank-and-file")
    by_alias = await client.get(f"{API}/variants/dress-parade")
    assert by_id.status_code == by_alias.status_code == 200
    assert by_id.json() == by_alias.json()
    assert_error(await client.get(f"{API}/variants/klondike"), 404, "variant_not_found")
