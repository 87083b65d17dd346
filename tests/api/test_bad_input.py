"""Malformed and hostile input, endpoint by endpoint: each answers a documented 4xx in
the envelope, never a 500, and changes nothing. Runs on SQLite and (in CI) PostgreSQL,
whose driver fails on NUL characters and out-of-range times: those are refused first."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest

from tests.api.conftest import API, NewGame, assert_error

NUL_ID = "00000000-0000-4000-8000-00000000000%00"


def _cursor(created: str, game_id: str = "x") -> str:
    return base64.urlsafe_b64encode(json.dumps([created, game_id]).encode()).decode()


async def _snapshot(client: httpx.AsyncClient, auth: dict[str, str], gid: str) -> Any:
    state = (await client.get(f"{API}/games/{gid}", headers=auth)).json()
    log = (await client.get(f"{API}/games/{gid}/moves", headers=auth)).json()
    return state["version"], state["piles"], [entry["seq"] for entry in log["items"]]


@pytest.mark.parametrize("name", ["a\u0000b", "\u0000", "tab\there", "new\nline", "\x7f"])
async def test_player_names_with_control_characters_are_refused(
    client: httpx.AsyncClient, name: str
) -> None:
    assert_error(await client.post(f"{API}/players", json={"name": name}), 422, "validation_error")


async def test_player_names_in_any_script_are_taken(client: httpx.AsyncClient) -> None:
    answer = await client.post(f"{API}/players", json={"name": "Ada Łovelace 艾达"})
    assert answer.status_code == 201, answer.text
    assert answer.json()["name"] == "Ada Łovelace 艾达"


@pytest.mark.parametrize(
    "game_id",
    [NUL_ID, "%00", "abc", "00000000-0000-4000-8000-000000000000x", "é", "0" * 36, "A" * 200],
)
async def test_game_ids_that_are_no_uuid_are_not_found(
    client: httpx.AsyncClient, auth: dict[str, str], game_id: str
) -> None:
    assert_error(await client.get(f"{API}/games/{game_id}", headers=auth), 404, "game_not_found")
    for suffix, body in (("/moves", {"action": "draw"}), ("/undo", {}), ("/hint", None)):
        answer = await client.post(f"{API}/games/{game_id}{suffix}", json=body, headers=auth)
        assert_error(answer, 404, "game_not_found")
    answer = await client.post(f"{API}/games/{game_id}/finish", headers=auth)
    assert_error(answer, 404, "game_not_found")
    answer = await client.get(f"{API}/games/{game_id}/moves", headers=auth)
    assert_error(answer, 404, "game_not_found")
    answer = await client.patch(
        f"{API}/games/{game_id}", json={"settings": {"auto_play": False}}, headers=auth
    )
    assert_error(answer, 404, "game_not_found")
    answer = await client.get(f"{API}/games/{game_id}", headers={**auth, "If-None-Match": '"x.1"'})
    assert_error(answer, 404, "game_not_found")


@pytest.mark.parametrize(
    "cursor",
    [
        "WyIwMDAxLTAxLTAxVDAwOjAwOjAwKzAxOjAwIiwieCJd",  # 0001-01-01T00:00:00+01:00
        "WyI5OTk5LTEyLTMxVDIzOjU5OjU5LTAxOjAwIiwieCJd",  # 9999-12-31T23:59:59-01:00
        _cursor("2026-11-30T10:00:00"),  # no offset
        _cursor("2026-11-30T10:00:00+00:00", "\u0000"),
        _cursor("2026-11-30T10:00:00+00:00", "not-a-game-id"),
        base64.urlsafe_b64encode(b'{"a": 1, "b": 2}').decode(),
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        "!!!",
    ],
)
async def test_cursors_not_made_by_the_api_are_refused(
    client: httpx.AsyncClient, auth: dict[str, str], cursor: str
) -> None:
    answer = await client.get(f"{API}/games", params={"cursor": cursor}, headers=auth)
    assert_error(answer, 422, "invalid_cursor")


async def test_cursor_the_api_made_still_pages(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    for deal in (1, 2, 3):
        await new_game(deal=deal)
    first = (await client.get(f"{API}/games", params={"limit": 2}, headers=auth)).json()
    rest = await client.get(
        f"{API}/games", params={"limit": 2, "cursor": first["next_cursor"]}, headers=auth
    )
    assert rest.status_code == 200, rest.text
    assert len(rest.json()["items"]) == 1


@pytest.mark.parametrize(
    "body",
    [
        b"\xff\xfe{}",  # not UTF-8
        b'{"variant": "\xc3"}',
        b"[" * 5000 + b"]" * 5000,  # nested past the decoder's recursion limit
        b'{"variant": "rainbow", "deal": ' + b"9" * 5000 + b"}",  # past int's digit limit
        b"{not json",
        b"",
    ],
)
async def test_bodies_that_are_not_json_are_validation_errors(
    client: httpx.AsyncClient, auth: dict[str, str], body: bytes
) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    answer = await client.post(f"{API}/games", content=body, headers=headers)
    assert_error(answer, 422, "validation_error")


@pytest.mark.parametrize(
    "deal",
    [
        True,
        "twelve",
        "+12",
        "-12",
        " 12",
        "12 ",
        "012",
        "1e3",
        "12.0",
        "1_000",
        "\u0661\u0662",  # Arabic-Indic digits
        "",
        "9" * 5000,  # no int() of thousands of digits: see test_deal_as_a_string
        1000.0,
        1e10,
        None,
        [1],
        {"n": 1},
    ],
)
async def test_deal_takes_only_a_json_integer_or_its_digits(
    client: httpx.AsyncClient, auth: dict[str, str], deal: Any
) -> None:
    body: dict[str, Any] = {"variant": "rainbow", "deal": deal}
    if deal is None:
        body["solvable"] = "yes"  # the other loosely typed field
    answer = await client.post(f"{API}/games", json=body, headers=auth)
    if deal == "9" * 5000:
        # Digits, but past the range: the range's own code.
        assert_error(answer, 422, "invalid_deal")
    else:
        assert_error(answer, 422, "validation_error")


@pytest.mark.parametrize(
    "move",
    [
        {"action": "draw", "expected_version": "0"},
        {"action": "draw", "expected_version": 0.0},
        {"action": "draw", "expected_version": False},
        {"action": "move", "from": "tableau-0", "to": "tableau-1", "count": "1"},
        {"action": "move", "from": "tableau-0", "to": "tableau-1", "count": 1.0},
        {"action": "click", "pile": "tableau-0", "index": "0"},
        {"action": "click", "pile": "tableau-0", "index": True},
        {"action": "DRAW"},
        {"action": "draw", "extra": 1},
        {"from": "tableau-0", "to": "tableau-1"},
    ],
)
async def test_moves_with_loosely_typed_fields_are_refused_and_change_nothing(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame, move: dict[str, Any]
) -> None:
    gid = (await new_game(deal=5))["id"]
    before = await _snapshot(client, auth, gid)
    answer = await client.post(f"{API}/games/{gid}/moves", json=move, headers=auth)
    assert_error(answer, 422, "validation_error")
    assert await _snapshot(client, auth, gid) == before


@pytest.mark.parametrize(
    "pile", ["tableau-4\n", "tableau-\u0664", "tableau-4 ", " tableau-4", "TABLEAU-4", "t4"]
)
async def test_pile_ids_must_match_exactly(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame, pile: str
) -> None:
    gid = (await new_game(deal=5))["id"]
    before = await _snapshot(client, auth, gid)
    for move in (
        {"action": "move", "from": pile, "to": "foundation-0"},
        {"action": "move", "from": "waste", "to": pile},
        {"action": "click", "pile": pile},
    ):
        answer = await client.post(f"{API}/games/{gid}/moves", json=move, headers=auth)
        error = assert_error(answer, 422, "invalid_move")
        assert error["reason"] == "bad_pile"
    assert await _snapshot(client, auth, gid) == before


async def test_a_405_names_every_method_of_the_path(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    gid = (await new_game(deal=5))["id"]
    answer = await client.delete(f"{API}/games/{gid}", headers=auth)
    assert_error(answer, 405, "method_not_allowed")
    assert answer.headers["Allow"] == "GET, PATCH"
    answer = await client.put(f"{API}/games/{gid}/moves", headers=auth)
    assert answer.headers["Allow"] == "GET, POST"
    answer = await client.get(f"{API}/games/{gid}/undo", headers=auth)
    assert answer.headers["Allow"] == "POST"


@pytest.mark.parametrize("day", ["2026-1-1", "\u0662\u0660\u0662\u0666-01-01", "today ", "x"])
async def test_daily_dates_outside_the_declared_format_are_refused(
    client: httpx.AsyncClient, day: str
) -> None:
    answer = await client.get(f"{API}/daily/rank-and-file/{day}")
    assert_error(answer, 422, "validation_error")


async def test_the_daily_date_declares_its_format(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    for path, item in document["paths"].items():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "date":
                    assert parameter["schema"]["pattern"] == (
                        "^(today|[0-9]{4}-[0-9]{2}-[0-9]{2})$"
                    ), path
