from __future__ import annotations

import json

import httpx
from fastapi import FastAPI

from app.engine import MAX_DEAL, deal, get_variant
from app.schemas import GamePage, GameState
from tests.api.conftest import API, NewGame, NewPlayer, assert_error
from tests.api.helpers import near_won_rank_and_file, put_state, stored_game

STATE_KEYS = {
    "id",
    "variant",
    "deal",
    "deal_str",
    "source",
    "rules",
    "settings",
    "status",
    "version",
    "move_count",
    "assisted",
    "ranked",
    "unranked_reason",
    "practice",
    "difficulty",
    "redeals_left",
    "base_rank",
    "piles",
    "legal_moves",
    "created_at",
    "updated_at",
}


async def test_create_game_with_deal(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.post(
        f"{API}/games", json={"variant": "rank-and-file", "deal": 12345}, headers=auth
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == STATE_KEYS
    state = GameState.model_validate(body)
    assert response.headers["Location"] == f"{API}/games/{state.id}"
    assert response.headers["ETag"] == f'"{state.id}.0"'
    assert (state.variant, state.deal, state.source, state.status) == (
        "rank-and-file",
        12345,
        "deal",
        "playing",
    )
    assert (state.version, state.move_count, state.redeals_left, state.base_rank) == (0, 0, 0, None)
    assert state.rules.foundation_return is False
    assert state.settings.model_dump() == {"auto_play": True, "auto_finish": True}
    # The piles are the engine's public view of that deal, in the documented order.
    expected = deal(get_variant("rank-and-file"), 12345).public()["piles"]
    assert body["piles"] == expected
    ids = [p["id"] for p in body["piles"]]
    assert ids == ["stock", "waste"] + [f"foundation-{i}" for i in range(8)] + [
        f"tableau-{i}" for i in range(10)
    ]
    assert all(card == {"face_up": False} for card in body["piles"][0]["cards"])
    assert len(body["piles"][0]["cards"]) == 64
    tableau = body["piles"][-1]["cards"]
    assert tableau[:3] == [{"face_up": False}] * 3 and tableau[3]["face_up"] is True
    assert {"action": "draw"} in body["legal_moves"]


async def test_alias_rules_and_settings(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.post(
        f"{API}/games",
        json={
            "variant": "dress-parade",
            "deal": 7,
            "rules": {"foundation_return": True},
            "settings": {"auto_play": False, "auto_finish": False},
        },
        headers=auth,
    )
    assert response.status_code == 201
    body = response.json()
    assert body["variant"] == "rank-and-file"
    assert body["rules"] == {"foundation_return": True}
    assert body["settings"] == {"auto_play": False, "auto_finish": False}


async def test_rainbow_has_reserve_and_base_rank(new_game: NewGame) -> None:
    body = await new_game(variant="rainbow", deal=3)
    ids = [p["id"] for p in body["piles"]]
    assert "reserve" in ids
    assert isinstance(body["base_rank"], int) and 1 <= body["base_rank"] <= 13
    reserve = next(p for p in body["piles"] if p["id"] == "reserve")["cards"]
    assert reserve[:-1] == [{"face_up": False}] * 12 and reserve[-1]["face_up"] is True


async def test_random_deal_is_hidden_until_won(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    body = await new_game(variant="rank-and-file")
    assert body["source"] == "random" and body["deal"] is None
    game = await stored_game(app, body["id"])
    number = int(game.deal)
    assert 1 <= number <= MAX_DEAL
    assert str(number) not in json.dumps(body)
    listed = (await client.get(f"{API}/games", headers=auth)).json()["items"][0]
    assert listed["deal"] is None

    await put_state(app, body["id"], near_won_rank_and_file())
    moved = await client.post(
        f"{API}/games/{body['id']}/moves",
        json={"action": "move", "from": "tableau-1", "to": "foundation-0"},
        headers=auth,
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["status"] == "won"
    assert moved.json()["deal"] == number
    assert (await client.get(f"{API}/games", headers=auth)).json()["items"][0]["deal"] == number


async def test_two_random_games_differ(new_game: NewGame, app: FastAPI) -> None:
    first, second = await new_game(), await new_game()
    assert (await stored_game(app, first["id"])).deal != (await stored_game(app, second["id"])).deal


async def test_create_game_errors(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    async def post(body: object) -> httpx.Response:
        return await client.post(f"{API}/games", json=body, headers=auth)

    assert_error(await post({"variant": "klondike"}), 422, "unknown_variant")
    # Out of range on either side (0 and negative numbers too) is invalid_deal; not a
    # number at all is validation_error.
    assert_error(await post({"variant": "rainbow", "deal": 0}), 422, "invalid_deal")
    error = assert_error(
        await post({"variant": "rainbow", "deal": MAX_DEAL + 1}), 422, "invalid_deal"
    )
    assert error["reason"]
    assert_error(await post({"deal": 3}), 422, "validation_error")
    assert_error(
        await post({"variant": "rainbow", "rules": {"bogus": True}}), 422, "validation_error"
    )
    assert_error(
        await post({"variant": "rainbow", "settings": {"auto_play": "sometimes"}}),
        422,
        "validation_error",
    )
    assert_error(
        await post({"variant": "rainbow", "deal": 4, "solvable": True}), 422, "validation_error"
    )
    assert_error(await post([1, 2]), 422, "validation_error")
    bad_json = await client.post(
        f"{API}/games", content=b"{not json", headers={**auth, "Content-Type": "application/json"}
    )
    assert_error(bad_json, 422, "validation_error")


async def test_get_game_and_etag(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    created = await new_game(deal=99)
    url = f"{API}/games/{created['id']}"
    response = await client.get(url, headers=auth)
    assert response.status_code == 200
    assert response.json() == created
    tag = response.headers["ETag"]
    assert tag == f'"{created["id"]}.0"'

    cached = await client.get(url, headers={**auth, "If-None-Match": tag})
    assert cached.status_code == 304 and cached.content == b""
    assert cached.headers["ETag"] == tag
    assert (await client.get(url, headers={**auth, "If-None-Match": f"W/{tag}"})).status_code == 304
    assert (
        await client.get(url, headers={**auth, "If-None-Match": '"x", ' + tag})
    ).status_code == 304
    stale = await client.get(url, headers={**auth, "If-None-Match": '"other.0"'})
    assert stale.status_code == 200

    await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
    after = await client.get(url, headers={**auth, "If-None-Match": tag})
    assert after.status_code == 200 and after.headers["ETag"] == f'"{created["id"]}.1"'


async def test_ownership(
    client: httpx.AsyncClient, new_player: NewPlayer, new_game: NewGame
) -> None:
    mine = await new_game(deal=5)
    other = await new_player("eve")
    url = f"{API}/games/{mine['id']}"
    unknown = f"{API}/games/00000000-0000-0000-0000-000000000000"
    for target in (url, unknown):
        for method, path, body in (
            ("GET", "", None),
            ("PATCH", "", {"settings": {"auto_play": False}}),
            ("POST", "/moves", {"action": "draw"}),
            ("POST", "/undo", None),
            ("GET", "/moves", None),
        ):
            response = await client.request(method, target + path, json=body, headers=other)
            error = assert_error(response, 404, "game_not_found")
            assert mine["id"] not in error["message"]
        assert_error(
            await client.get(target, headers={**other, "If-None-Match": "*"}), 404, "game_not_found"
        )
    assert (await client.get(f"{API}/games", headers=other)).json()["items"] == []


async def test_list_games_paginates_newest_first(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame, new_player: NewPlayer
) -> None:
    created = [(await new_game(deal=n))["id"] for n in range(1, 8)]
    eve = await new_player("eve")
    await new_game(headers=eve, deal=1)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, str | int] = {"limit": 3}
        if cursor:
            params["cursor"] = cursor
        response = await client.get(f"{API}/games", params=params, headers=auth)
        assert response.status_code == 200
        page = GamePage.model_validate(response.json())
        seen += [g.id for g in page.items]
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            break
    assert pages == 3
    assert seen == list(reversed(created))
    # A cursor is sealed for its player's list: another player's is refused.
    first = (await client.get(f"{API}/games", params={"limit": 3}, headers=auth)).json()
    assert_error(
        await client.get(f"{API}/games", params={"cursor": first["next_cursor"]}, headers=eve),
        422,
        "invalid_cursor",
    )
    assert_error(
        await client.get(f"{API}/games", params={"cursor": "@@@"}, headers=auth),
        422,
        "invalid_cursor",
    )
    assert_error(
        await client.get(f"{API}/games", params={"limit": 0}, headers=auth), 422, "validation_error"
    )


async def test_patch_settings(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}"
    response = await client.patch(url, json={"settings": {"auto_play": False}}, headers=auth)
    assert response.status_code == 200
    assert response.json()["settings"] == {"auto_play": False, "auto_finish": True}
    assert response.json()["version"] == 1
    assert response.headers["ETag"] == f'"{game["id"]}.1"'
    assert (await client.get(url, headers=auth)).json()["settings"]["auto_play"] is False
    conflict = await client.patch(
        url, json={"settings": {"auto_finish": False}, "expected_version": 0}, headers=auth
    )
    assert_error(conflict, 409, "version_conflict")
    assert_error(
        await client.patch(url, json={"settings": {"colour": 1}}, headers=auth),
        422,
        "validation_error",
    )
    assert_error(await client.patch(url, json={}, headers=auth), 422, "validation_error")
