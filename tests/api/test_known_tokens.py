"""The players remembered by token (`KnownTokens`) answer as the lookup does: the same
player for a token found before, nothing remembered for a wrong one, and forgotten after
their time or when full."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.models import Player
from app.services.players import KnownTokens, hash_token
from tests.api.conftest import API, NewPlayer, assert_error


async def test_a_remembered_token_answers_as_the_lookup(
    app: FastAPI, client: httpx.AsyncClient, new_player: NewPlayer
) -> None:
    auth = await new_player("ada")
    first = await client.get(f"{API}/players/me", headers=auth)
    known: KnownTokens = app.state.services.known_tokens
    token_hash = hash_token(auth["Authorization"].removeprefix("Bearer "))
    assert known.get(token_hash) is not None
    again = await client.get(f"{API}/players/me", headers=auth)
    assert again.status_code == first.status_code == 200
    assert again.content == first.content
    # The slow path (nothing remembered) answers the same bytes.
    app.state.services.known_tokens = KnownTokens()
    fresh = await client.get(f"{API}/players/me", headers=auth)
    assert fresh.content == first.content


async def test_a_wrong_token_is_not_remembered(app: FastAPI, client: httpx.AsyncClient) -> None:
    wrong = {"Authorization": "Bearer not-a-token"}
    assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")
    known: KnownTokens = app.state.services.known_tokens
    assert known.get(hash_token("not-a-token")) is None
    assert_error(await client.get(f"{API}/players/me", headers=wrong), 401, "unauthorized")


def test_entries_expire_and_the_oldest_goes_when_full(monkeypatch: Any) -> None:
    now = [1000.0]
    monkeypatch.setattr("app.services.players.time.monotonic", lambda: now[0])
    known = KnownTokens(ttl_s=60, size=2)
    players = [Player(id=str(i), name=None, token_hash=f"h{i}") for i in range(3)]
    known.put("h0", players[0])
    known.put("h1", players[1])
    known.put("h2", players[2])  # full: h0 goes
    assert known.get("h0") is None
    assert known.get("h1") is players[1]
    now[0] += 61
    assert known.get("h2") is None
