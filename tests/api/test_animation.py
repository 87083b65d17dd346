"""Everything a front-end needs to animate, through the API: replaying each answer's
events (a move's, undo's, each step of a finish) on the previous state's piles gives the
new piles; no answer names a card that is face down in the position it shows; answers
match their response models; clicks and pick-ups are in the state."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.engine import CODE, Move, State
from app.schemas import FinishResult, GameMoveResult, GameState, UndoResult
from tests.api.conftest import API, NewGame
from tests.api.helpers import put_state, stored_state
from tests.replay import cards_only, codes_in, face_up_codes, replay


def _visible(state: State) -> set[str]:
    out = {CODE[c] for c in state.waste + state.reserve[-1:]}
    for f in state.foundations:
        out |= {CODE[c] for c in f}
    for pile, down in zip(state.tableau, state.hidden, strict=True):
        out |= {CODE[c] for c in pile[down:]}
    return out


async def _check(app: FastAPI, gid: str, before: dict[str, Any], body: dict[str, Any]) -> None:
    assert replay(before, body["events"]) == cards_only(body)
    # No code anywhere in the answer but a card face up in the stored position.
    assert codes_in(body) <= _visible(await stored_state(app, gid)), codes_in(body)


@pytest.mark.parametrize("variant", ["rank-and-file", "canfield", "rainbow", "rows-of-four"])
async def test_random_play_replays_from_events(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame, variant: str
) -> None:
    rng = random.Random(variant)
    game = await new_game(variant=variant, deal=rng.randrange(1, 40000))
    gid, body = game["id"], game
    GameState.model_validate(game)
    undone = 0
    for _ in range(60):
        if body["move_count"] and rng.random() < 0.25:
            response = await client.post(f"{API}/games/{gid}/undo", headers=auth)
            assert response.status_code == 200, response.text
            UndoResult.model_validate(response.json())
            undone += 1
        else:
            clickable = [
                {"action": "click", "pile": p["id"], "index": i}
                for p in body["piles"]
                for i, c in enumerate(p["cards"])
                if c.get("click")
            ]
            if clickable and rng.random() < 0.3:
                request = rng.choice(clickable)
                pile = next(p for p in body["piles"] if p["id"] == request["pile"])
                expected = pile["cards"][request["index"]]["click"]
            elif body["legal_moves"]:
                request = expected = rng.choice(body["legal_moves"])
            else:
                break
            response = await client.post(f"{API}/games/{gid}/moves", json=request, headers=auth)
            assert response.status_code == 200, response.text
            # A click plays exactly the move the state said it would.
            assert response.json()["events"][0]["move"] == expected
            GameMoveResult.model_validate(response.json())
        await _check(app, gid, body, response.json())
        body = response.json()
    assert undone


async def test_finish_steps_replay_one_by_one(
    client: httpx.AsyncClient,
    app: FastAPI,
    auth: dict[str, str],
    new_game: NewGame,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOLVER_KIND", "thread")
    game = await new_game(variant="rank-and-file", deal=2)
    start = await stored_state(app, game["id"])
    finished = await client.post(f"{API}/games/{game['id']}/finish", headers=auth)
    assert finished.status_code == 200, finished.text
    body = finished.json()
    FinishResult.model_validate(body)
    assert body["status"] == "won"
    steps = body["steps"]
    assert len(steps) == body["move_count"]
    assert [e for step in steps for e in step["events"]] == body["events"]
    # Each step, replayed on the view before it, gives the view after it; every card it
    # names is face up then (the engine plays the same moves to know that position).
    view, state = game, start
    drawn = 0
    for step in steps:
        move = Move.from_json(step["move"])
        assert step["events"][0]["move"] == step["move"]
        state, _ = state.apply(move)
        shown = state.public()
        assert replay(view, step["events"]) == cards_only(shown)
        assert codes_in(step) <= face_up_codes(shown)
        if step["move"] == {"action": "draw"}:
            assert step["events"][0]["cards"]  # the drawn card, face up in the waste
            drawn += 1
        view = shown
    assert cards_only(view) == cards_only(body)
    assert drawn  # the line draws, and every drawn card is shown face up


async def test_state_says_what_clicks_do_and_what_may_be_picked_up(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(variant="rank-and-file", deal=5)
    state = State.from_text(
        "rank-and-file\nstock: 2C\nwaste: 3H\nf0: AH 2H\nt0: 4C | KD 9S 8H 7C\nt1: TD\nt2: AS\n"
    )
    await put_state(app, game["id"], state)
    body = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
    piles = {p["id"]: p for p in body["piles"]}
    assert piles["tableau-0"]["movable_from"] == 2
    assert piles["tableau-0"]["cards"][2]["click"] == {
        "action": "move",
        "from": "tableau-0",
        "to": "tableau-1",
        "count": 3,
    }
    assert piles["tableau-2"]["click"] == {
        "action": "move",
        "from": "tableau-2",
        "to": "foundation-1",
        "count": 1,
    }
    assert piles["waste"]["click"] == {
        "action": "move",
        "from": "waste",
        "to": "foundation-0",
        "count": 1,
    }
    assert piles["stock"]["click"] == {"action": "draw"}
    assert (piles["foundation-0"]["suit"], piles["foundation-0"]["base_rank"]) == ("H", 1)
    assert (piles["foundation-1"]["suit"], piles["foundation-1"]["base_rank"]) == (None, 1)
    assert piles["foundation-0"]["movable_from"] is None  # Rank and File keeps them
    # With clicks off, no card offers a click (the API would refuse it).
    off = await client.patch(
        f"{API}/games/{game['id']}", json={"settings": {"auto_play": False}}, headers=auth
    )
    assert all(p["click"] is None for p in off.json()["piles"])
    assert all(c.get("click") is None for p in off.json()["piles"] for c in p["cards"])
    # Picking up (a drag, an explicit move) still works: movable_from stays.
    assert next(p for p in off.json()["piles"] if p["id"] == "tableau-0")["movable_from"] == 2
    GameState.model_validate(off.json())


async def test_the_move_log_types_its_events_old_entries_included(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    """The log's events are typed by `type` in the document; an entry logged before
    events named their cards (only type, move, pile, card) still reads, its new fields
    null, never a 500."""
    from sqlalchemy import update

    from app.models import Move as MoveRow

    game = await new_game(deal=5)
    url = f"{API}/games/{game['id']}"
    assert (await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth)).is_success
    log = (await client.get(f"{url}/moves", headers=auth)).json()
    [drawn] = log["items"][0]["events"]
    assert (drawn["type"], drawn["from"], drawn["to"], drawn["count"]) == (
        "move",
        "stock",
        "waste",
        1,
    )
    assert drawn["cards"] is None  # a draw's cards are not named in the log
    old = [
        {"type": "move", "move": {"action": "draw"}},
        {"type": "turn_up", "pile": "tableau-0", "card": "7D"},
    ]
    async with app.state.services.database.sessionmaker() as session:
        await session.execute(
            update(MoveRow).where(MoveRow.game_id == game["id"]).values(events=old)
        )
        await session.commit()
    answer = await client.get(f"{url}/moves", headers=auth)
    assert answer.status_code == 200, answer.text
    move, turned = answer.json()["items"][0]["events"]
    assert move == {
        "type": "move",
        "move": {"action": "draw"},
        "from": None,
        "to": None,
        "cards": None,
        "count": None,
    }
    assert turned == {"type": "turn_up", "pile": "tableau-0", "card": "7D", "index": None}
    document = app.openapi()["components"]["schemas"]["MoveLogEntry"]["properties"]["events"]
    assert "discriminator" in document["items"]
