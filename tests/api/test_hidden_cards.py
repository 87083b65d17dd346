"""The hidden-card rule over random play through the API.

Whatever a player does (legal moves, clicks, illegal attempts, undo), no answer shows
a face-down card or the order of the stock: checked against the stored position,
independently of the engine's own `public()`.
"""

from __future__ import annotations

import random
import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.engine import CODE, State
from tests.api.conftest import API, NewGame
from tests.api.helpers import stored_state
from tests.api.sse_helpers import EventReader, StreamingASGITransport

CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")


def _walk(value: Any) -> list[Any]:
    out = [value]
    if isinstance(value, dict):
        for item in value.values():
            out += _walk(item)
    elif isinstance(value, list):
        for item in value:
            out += _walk(item)
    return out


def _true_piles(state: State) -> dict[str, tuple[list[str], int]]:
    """Each pile's real cards (bottom first) and how many of them are face down."""
    piles: dict[str, tuple[list[str], int]] = {
        "stock": ([CODE[c] for c in state.stock], len(state.stock)),
        "waste": ([CODE[c] for c in state.waste], 0),
    }
    if state.variant.reserve_size:
        piles["reserve"] = ([CODE[c] for c in state.reserve], max(len(state.reserve) - 1, 0))
    for i, f in enumerate(state.foundations):
        piles[f"foundation-{i}"] = ([CODE[c] for c in f], 0)
    for i, (pile, down) in enumerate(zip(state.tableau, state.hidden, strict=True)):
        piles[f"tableau-{i}"] = ([CODE[c] for c in pile], down)
    return piles


def _check_answer(body: Any, state: State, hidden_deal: bool) -> None:
    for node in _walk(body):
        if isinstance(node, dict) and node.get("face_up") is False:
            assert node == {"face_up": False}, node
    true = _true_piles(state)
    visible = [code for cards, down in true.values() for code in cards[down:]]
    if isinstance(body, dict) and "piles" in body:
        assert [p["id"] for p in body["piles"]] == list(true)
        for pile in body["piles"]:
            cards, down = true[pile["id"]]
            assert len(pile["cards"]) == len(cards)
            assert all(c == {"face_up": False} for c in pile["cards"][:down])
            assert [c["code"] for c in pile["cards"][down:]] == cards[down:]
        if hidden_deal and body.get("status") != "won":
            assert body["deal"] is None
        for event in body.get("events", []):
            if event["type"] == "turn_up":
                cards, down = true[event["pile"]]
                assert event["card"] in cards[down:]
    # No card code anywhere (messages included) that is not face up now.
    for node in _walk(body):
        if isinstance(node, str):
            for code in CARD.findall(node):
                assert code in visible, (code, node)


async def _play(
    client: httpx.AsyncClient,
    app: FastAPI,
    auth: dict[str, str],
    game: dict[str, Any],
    rng: random.Random,
    steps: int,
) -> None:
    gid = game["id"]
    hidden_deal = game["deal"] is None
    _check_answer(game, await stored_state(app, gid), hidden_deal)
    body = game
    for _ in range(steps):
        roll = rng.random()
        piles = [p["id"] for p in body["piles"]]
        if roll < 0.6 and body["legal_moves"]:
            request = rng.choice(body["legal_moves"])
        elif roll < 0.7:
            pile = rng.choice(piles)
            request = {"action": "click", "pile": pile, "index": rng.randrange(0, 14)}
        elif roll < 0.85:
            request = {
                "action": "move",
                "from": rng.choice(piles),
                "to": rng.choice(piles),
                "count": rng.randrange(1, 4),
            }
        else:
            request = None
        if request is None:
            response = await client.post(f"{API}/games/{gid}/undo", headers=auth)
        else:
            response = await client.post(f"{API}/games/{gid}/moves", json=request, headers=auth)
        assert response.status_code in (200, 409, 422), response.text
        state = await stored_state(app, gid)
        _check_answer(response.json(), state, hidden_deal)
        if response.status_code == 200:
            body = response.json()
    current = (await client.get(f"{API}/games/{gid}", headers=auth)).json()
    _check_answer(current, await stored_state(app, gid), hidden_deal)
    log = (await client.get(f"{API}/games/{gid}/moves", headers=auth)).json()
    _check_answer(log, await stored_state(app, gid), hidden_deal)
    listing = (await client.get(f"{API}/games", headers=auth)).json()
    _check_answer(listing, await stored_state(app, gid), hidden_deal)
    mine = next(item for item in listing["items"] if item["id"] == gid)
    if hidden_deal and mine["status"] != "won":
        assert mine["deal"] is None
    versions = range(game["version"], current["version"] + 1)
    await _check_stream(app, auth, gid, versions, await stored_state(app, gid), hidden_deal)


async def _check_stream(
    app: FastAPI,
    auth: dict[str, str],
    gid: str,
    versions: range,
    state: State,
    hidden_deal: bool,
) -> None:
    """The live stream's first event, resumed from versions the game went through (the
    changes since, where the server knows them all, else the state): no card it names
    is face down now, not even one an undone move had shown."""
    transport = StreamingASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as streamer:
        # Not from the current version: nothing to send there. From any older one the
        # first event comes at once (the timeout is a loaded machine's slack, not a skip).
        for since in versions[:-1]:
            url = f"{API}/games/{gid}/events"
            async with streamer.stream("GET", url, headers=auth, params={"since": since}) as r:
                event = await EventReader(r).next(timeout=5.0)
            assert event is not None
            if event.event == "state":
                _check_answer(event.data, state, hidden_deal)
            else:
                _check_answer(event.data["state"], state, hidden_deal)
                # Only the names: a card an earlier change turned up may have moved since.
                _check_answer({"named": event.data["events"]}, state, hidden_deal)


@pytest.mark.parametrize(
    "variant", ["rank-and-file", "rows-of-four", "rainbow", "number-ten", "canfield"]
)
async def test_random_play_reveals_no_hidden_card(
    client: httpx.AsyncClient,
    app: FastAPI,
    auth: dict[str, str],
    new_game: NewGame,
    variant: str,
) -> None:
    rng = random.Random(variant)
    for source in ({"deal": rng.randrange(1, 40000)}, {}):
        game = await new_game(variant=variant, **source)
        await _play(client, app, auth, game, rng, steps=40)
