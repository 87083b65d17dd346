from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.engine import CODE, Move, Pile, State, deal, get_variant
from app.schemas import GameMoveResult, MoveLog
from app.services.games.repository import POSITIONS
from tests.api.conftest import API, NewGame, assert_error
from tests.api.helpers import (
    cards,
    near_won_rank_and_file,
    put_state,
    stored_state,
    stuck_rank_and_file,
)


async def _move(
    client: httpx.AsyncClient, auth: dict[str, str], game_id: str, body: Any, **kw: Any
) -> httpx.Response:
    return await client.post(f"{API}/games/{game_id}/moves", json=body, headers=auth, **kw)


async def test_move_applies_and_reports_events(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    before = deal(get_variant("rank-and-file"), 5)
    move = next(
        m
        for m in before.legal_moves()
        if m.action == "move" and m.src is not None and m.src.kind == "tableau"
    )
    response = await _move(client, auth, game["id"], move.to_json())
    assert response.status_code == 200, response.text
    result = GameMoveResult.model_validate(response.json())
    assert (result.version, result.move_count) == (1, 1)
    assert response.headers["ETag"] == f'"{game["id"]}.1"'
    expected_state, events = before.apply(move)
    assert response.json()["events"] == [e.to_json() for e in events]
    assert move.src is not None and move.dst is not None
    moved = before.tableau[move.src.index][-move.count :]
    assert response.json()["events"][0] == {
        "type": "move",
        "move": move.to_json(),
        "from": str(move.src),
        "to": str(move.dst),
        "cards": [CODE[c] for c in moved],
        "count": move.count,
    }
    assert response.json()["piles"] == expected_state.public()["piles"]
    assert response.json()["legal_moves"] == [m.to_json() for m in expected_state.legal_moves()]
    assert await stored_state(app, game["id"]) == expected_state


async def test_draw_and_redeal(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(variant="rows-of-four", deal=8, settings={"auto_finish": False})
    stock = len(game["piles"][0]["cards"])
    assert game["redeals_left"] == 2
    error = assert_error(
        await _move(client, auth, game["id"], {"action": "redeal"}), 422, "illegal_move"
    )
    assert error["reason"] == "stock_not_empty"
    for _ in range(stock):
        response = await _move(client, auth, game["id"], {"action": "draw"})
        assert response.status_code == 200
    body = response.json()
    assert body["piles"][0]["cards"] == [] and len(body["piles"][1]["cards"]) == stock
    assert {"action": "redeal"} in body["legal_moves"]
    redealt = await _move(client, auth, game["id"], {"action": "redeal"})
    assert redealt.status_code == 200
    assert redealt.json()["redeals_left"] == 1
    assert len(redealt.json()["piles"][0]["cards"]) == stock
    assert all(c == {"face_up": False} for c in redealt.json()["piles"][0]["cards"])


async def test_illegal_and_invalid_moves(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    gid = game["id"]
    illegal = {"action": "move", "from": "tableau-0", "to": "foundation-0", "count": 1}
    if illegal in game["legal_moves"]:
        illegal = {"action": "move", "from": "waste", "to": "tableau-0", "count": 1}
    error = assert_error(await _move(client, auth, gid, illegal), 422, "illegal_move")
    assert error["reason"] and error["reason"] != "illegal_move"
    error = assert_error(
        await _move(
            client,
            auth,
            gid,
            {"action": "move", "from": "tableau-0", "to": "tableau-1", "count": 4},
        ),
        422,
        "illegal_move",
    )
    assert error["reason"] == "card_face_down"
    error = assert_error(
        await _move(client, auth, gid, {"action": "move", "from": "table-0", "to": "waste"}),
        422,
        "invalid_move",
    )
    assert error["reason"] == "bad_pile"
    # A pile id this game lacks cannot be read either: invalid_move, reason no_such_pile.
    for move in (
        {"action": "move", "from": "reserve", "to": "tableau-1"},
        {"action": "move", "from": "tableau-42", "to": "tableau-1"},
        {"action": "move", "from": "waste", "to": "foundation-8"},
        {"action": "click", "pile": "tableau-42"},
        {"action": "click", "pile": "reserve"},
    ):
        error = assert_error(await _move(client, auth, gid, move), 422, "invalid_move")
        assert error["reason"] == "no_such_pile", move
    for bad in (
        {"action": "fly"},
        {"action": "move", "from": "tableau-0"},
        {},
        {"action": "move", "from": "tableau-0", "to": "tableau-1", "count": 0},
        {"action": "draw", "extra": 1},
        {"action": "click"},
    ):
        assert_error(await _move(client, auth, gid, bad), 422, "validation_error")
    # Nothing of that changed the game.
    after = (await client.get(f"{API}/games/{gid}", headers=auth)).json()
    assert after == game


async def test_click(client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame) -> None:
    game = await new_game(deal=5)
    state = deal(get_variant("rank-and-file"), 5)
    clicked = await _move(client, auth, game["id"], {"action": "click", "pile": "stock"})
    assert clicked.status_code == 200
    # The draw names the card it turned up: the stock's top, now the waste's.
    assert clicked.json()["events"][0] == {
        "type": "move",
        "move": {"action": "draw"},
        "from": "stock",
        "to": "waste",
        "cards": [CODE[state.stock[-1]]],
        "count": 1,
    }
    # A click finds the same target as the engine's resolve_click.
    from app.engine import resolve_click

    state, _ = state.apply(Move.parse("draw"))
    for pile in [f"tableau-{i}" for i in range(10)]:
        try:
            expected = resolve_click(state, pile)
        except Exception:  # noqa: BLE001 - no target on this pile; try the next
            continue
        response = await _move(client, auth, game["id"], {"action": "click", "pile": pile})
        assert response.status_code == 200, response.text
        assert response.json()["events"][0]["move"] == expected.to_json()
        break
    else:
        raise AssertionError("no clickable pile in deal 5")
    error = assert_error(
        await _move(client, auth, game["id"], {"action": "click", "pile": "tableau-0", "index": 0}),
        422,
        "illegal_move",
    )
    assert error["reason"]
    error = assert_error(
        await _move(
            client, auth, game["id"], {"action": "click", "pile": "tableau-0", "index": 40}
        ),
        422,
        "invalid_move",
    )


async def test_click_refused_when_auto_play_off(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5, settings={"auto_play": False})
    assert_error(
        await _move(client, auth, game["id"], {"action": "click", "pile": "stock"}),
        422,
        "auto_play_off",
    )
    # Explicit moves still work.
    assert (await _move(client, auth, game["id"], {"action": "draw"})).status_code == 200


async def test_expected_version(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    ok = await _move(client, auth, game["id"], {"action": "draw", "expected_version": 0})
    assert ok.status_code == 200 and ok.json()["version"] == 1
    stale = await _move(client, auth, game["id"], {"action": "draw", "expected_version": 0})
    assert_error(stale, 409, "version_conflict")
    assert (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()["version"] == 1


async def test_undo_restores_exact_state_and_log(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    gid = game["id"]
    assert_error(await client.post(f"{API}/games/{gid}/undo", headers=auth), 409, "nothing_to_undo")
    states = [await stored_state(app, gid)]
    for _ in range(3):
        body = (await client.get(f"{API}/games/{gid}", headers=auth)).json()
        move = next((m for m in body["legal_moves"] if m["action"] == "move"), {"action": "draw"})
        assert (await _move(client, auth, gid, move)).status_code == 200
        states.append(await stored_state(app, gid))
    log = MoveLog.model_validate(
        (await client.get(f"{API}/games/{gid}/moves", headers=auth)).json()
    )
    assert [e.seq for e in log.items] == [1, 2, 3]
    assert [e.version for e in log.items] == [1, 2, 3]
    for entry in log.items:
        assert Move.parse(entry.text).to_json() == entry.move.model_dump(by_alias=True)

    undone = await client.post(f"{API}/games/{gid}/undo", headers=auth)
    assert undone.status_code == 200
    assert undone.json()["move_count"] == 2 and undone.json()["version"] == 4
    undone_move = Move.from_json(log.items[-1].move.model_dump(by_alias=True))
    assert undone.json()["events"][0] == {"type": "undo", "move": undone_move.to_json()}
    # Then what changed back, as the engine says of this move from states[2] to states[3].
    assert undone.json()["events"] == [
        e.to_json() for e in states[2].undo_events(undone_move, states[3])
    ]
    assert len(undone.json()["events"]) > 1
    assert await stored_state(app, gid) == states[2]
    assert undone.json()["piles"] == states[2].public()["piles"]
    conflict = await client.post(
        f"{API}/games/{gid}/undo", json={"expected_version": 3}, headers=auth
    )
    assert_error(conflict, 409, "version_conflict")
    again = await client.post(f"{API}/games/{gid}/undo", json={"expected_version": 4}, headers=auth)
    assert again.status_code == 200
    assert await stored_state(app, gid) == states[1]
    log2 = (await client.get(f"{API}/games/{gid}/moves", headers=auth)).json()
    assert [e["seq"] for e in log2["items"]] == [1]
    # The next move takes the freed place in the line.
    assert (await _move(client, auth, gid, {"action": "draw"})).status_code == 200
    log3 = (await client.get(f"{API}/games/{gid}/moves", headers=auth)).json()
    assert [e["seq"] for e in log3["items"]] == [1, 2] and log3["items"][1]["text"] == "draw"


async def test_auto_finish_and_win(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=1)
    await put_state(app, game["id"], near_won_rank_and_file())
    response = await _move(
        client, auth, game["id"], {"action": "move", "from": "tableau-1", "to": "foundation-0"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "won" and body["legal_moves"] == []
    assert [e["type"] for e in body["events"]] == ["move", "auto_finish"]
    assert body["events"][1]["move"] == {
        "action": "move",
        "from": "tableau-0",
        "to": "foundation-0",
        "count": 1,
    }
    # A won game takes no move and no undo: the same 409 game_over, reason game_over.
    for move in (
        {"action": "draw"},
        {"action": "move", "from": "foundation-0", "to": "tableau-0"},
        {"action": "click", "pile": "stock"},
        {"action": "click", "pile": "tableau-0"},
    ):
        error = assert_error(await _move(client, auth, game["id"], move), 409, "game_over")
        assert error["reason"] == "game_over"
    error = assert_error(
        await client.post(f"{API}/games/{game['id']}/undo", headers=auth), 409, "game_over"
    )
    assert error["reason"] == "game_over"


async def test_no_auto_finish_when_off(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=1, settings={"auto_finish": False})
    await put_state(app, game["id"], near_won_rank_and_file())
    first = await _move(
        client, auth, game["id"], {"action": "move", "from": "tableau-1", "to": "foundation-0"}
    )
    assert first.json()["status"] == "playing"
    assert [e["type"] for e in first.json()["events"]] == ["move"]
    second = await _move(
        client, auth, game["id"], {"action": "move", "from": "tableau-0", "to": "foundation-0"}
    )
    assert second.json()["status"] == "won"


async def test_stuck_game_can_undo(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=1)
    stuck = stuck_rank_and_file()
    # Reach the stuck position through one real move so that undo has something to undo.
    prior = stuck._replace(waste=cards("AH"))
    assert prior.status == "playing"
    await put_state(app, game["id"], prior)
    # Once the Ace is home nothing can move and nothing is left to come.
    response = await _move(
        client, auth, game["id"], {"action": "move", "from": "waste", "to": "foundation-3"}
    )
    assert response.status_code == 200
    assert response.json()["status"] == "stuck"
    assert response.json()["legal_moves"] == []
    undone = await client.post(f"{API}/games/{game['id']}/undo", headers=auth)
    assert undone.status_code == 200 and undone.json()["status"] == "playing"


async def test_apply_moves_is_all_or_nothing(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    """The service's line of moves (for finish and hints): one transaction, each logged."""
    from sqlalchemy import select

    from app.errors import IllegalMoveError
    from app.models import Player
    from app.services.games import Click, apply_moves

    game = await new_game(deal=5)
    async with app.state.services.database.sessionmaker() as session:
        player = (await session.execute(select(Player))).scalar_one()
        session.expunge(player)  # as the CurrentPlayer dependency hands it over
        try:
            await apply_moves(
                session,
                player,
                game["id"],
                [Move.parse("draw"), Click(Pile.parse("stock")), Move.parse("redeal")],
            )
        except IllegalMoveError as exc:
            assert exc.code == "illegal_move" and exc.reason == "stock_not_empty"
        else:
            raise AssertionError("redeal should be refused")
        assert (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()["version"] == 0
        answer = await apply_moves(
            session, player, game["id"], [Move.parse("draw"), Click(Pile.parse("stock"))]
        )
    assert answer.version == 2 and [e.type for e in answer.body.events] == ["move"] * 2
    log = (await client.get(f"{API}/games/{game['id']}/moves", headers=auth)).json()
    assert [(e["seq"], e["version"], e["text"]) for e in log["items"]] == [
        (1, 1, "draw"),
        (2, 2, "draw"),
    ]


async def test_positions_remembered_between_moves_are_the_stored_ones(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    """A move starts from the position its game's last move saved, remembered by its
    bytes: what is remembered must decode from those bytes exactly, and stay bounded."""
    game = await new_game(deal=7)
    for _ in range(12):
        state = (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()
        answer = await _move(client, auth, game["id"], state["legal_moves"][0])
        assert answer.status_code == 200, answer.text
        stored = await stored_state(app, game["id"])
        assert POSITIONS.load(stored.to_bytes()) == stored
    remembered = dict(POSITIONS._states)
    assert remembered and len(remembered) <= POSITIONS.size
    for data, position in remembered.items():
        assert position == State.from_bytes(data) and position.to_bytes() == data
