"""Cursor pagination on every list that pages: `GET /games` (also in test_games.py), the
move log and the daily results. Walked by cursor, a list gives every item once, in
order; a cursor this API did not give (for this list) is 422 `invalid_cursor`; the
offsets the contract names work as before."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.errors import InvalidCursor
from app.services.kit.page_cursors import PageCursors
from tests.api.conftest import API, NewGame, NewPlayer, assert_error
from tests.api.daily_helpers import (  # noqa: F401 (settings: the daily tests' fixture)
    VARIANT,
    day,
    on_date,
    settings,
    start_daily,
    win_with_line,
)


async def _walk(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], limit: int
) -> list[dict[str, Any]]:
    """Every page of a list, by cursor from the first page."""
    pages = [(await client.get(url, params={"limit": limit}, headers=headers)).json()]
    while (cursor := pages[-1]["next_cursor"]) is not None:
        answer = await client.get(url, params={"limit": limit, "cursor": cursor}, headers=headers)
        assert answer.status_code == 200, answer.text
        pages.append(answer.json())
    return pages


async def _draws(client: httpx.AsyncClient, auth: dict[str, str], game_id: str, n: int) -> None:
    for _ in range(n):
        answer = await client.post(
            f"{API}/games/{game_id}/moves", json={"action": "draw"}, headers=auth
        )
        assert answer.status_code == 200, answer.text


# --- the move log -------------------------------------------------------------------------


async def test_the_move_log_walked_by_cursor_gives_every_move_once_in_order(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(variant="rank-and-file", deal=3, settings={"auto_finish": False})
    await _draws(client, auth, game["id"], 7)
    url = f"{API}/games/{game['id']}/moves"
    whole = (await client.get(url, headers=auth)).json()
    assert [m["seq"] for m in whole["items"]] == list(range(1, 8))
    assert whole["next_cursor"] is None and whole["next_offset"] is None

    pages = await _walk(client, url, auth, limit=3)
    assert [[m["seq"] for m in p["items"]] for p in pages] == [[1, 2, 3], [4, 5, 6], [7]]
    assert [m for p in pages for m in p["items"]] == whole["items"]
    # Both ways to the next page are given, and agree.
    assert [p["next_offset"] for p in pages] == [3, 6, None]
    second = (await client.get(url, params={"limit": 3, "offset": 3}, headers=auth)).json()
    assert second == pages[1]
    # A page that ends exactly at the end has no next cursor.
    exact = (await client.get(url, params={"limit": 7}, headers=auth)).json()
    assert exact["next_cursor"] is None and len(exact["items"]) == 7


async def test_the_move_log_takes_a_cursor_or_an_offset(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    """`offset` at its default (0, which generated clients send) leaves the cursor in
    charge; any other offset beside a cursor is a clear 422. An empty cursor is none."""
    game = await new_game(variant="rank-and-file", deal=3, settings={"auto_finish": False})
    await _draws(client, auth, game["id"], 4)
    url = f"{API}/games/{game['id']}/moves"
    first = (await client.get(url, params={"limit": 2}, headers=auth)).json()
    cursor = first["next_cursor"]
    with_zero = await client.get(url, params={"cursor": cursor, "offset": 0}, headers=auth)
    assert [m["seq"] for m in with_zero.json()["items"]] == [3, 4]
    both = await client.get(url, params={"cursor": cursor, "offset": 1}, headers=auth)
    assert "cursor" in assert_error(both, 422, "validation_error")["message"]
    empty = await client.get(url, params={"cursor": "", "limit": 2}, headers=auth)
    assert empty.json() == first


async def test_cursors_not_given_for_this_move_log_are_invalid_cursor(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
    new_player: NewPlayer,
) -> None:
    game = await new_game(variant="rank-and-file", deal=3, settings={"auto_finish": False})
    other = await new_game(variant="rank-and-file", deal=4, settings={"auto_finish": False})
    for gid in (game["id"], other["id"]):
        await _draws(client, auth, gid, 3)
    url = f"{API}/games/{game['id']}/moves"
    mine = (await client.get(url, params={"limit": 1}, headers=auth)).json()["next_cursor"]
    theirs = (
        await client.get(f"{API}/games/{other['id']}/moves", params={"limit": 1}, headers=auth)
    ).json()["next_cursor"]
    await new_game(deal=5)
    games_cursor = (await client.get(f"{API}/games", params={"limit": 1}, headers=auth)).json()[
        "next_cursor"
    ]
    tampered = mine[:-2] + ("AA" if not mine.endswith("AA") else "BB")
    for bad in ("@@@", "x", "AAAA", theirs, games_cursor, tampered, mine + "A", "é"):
        answer = await client.get(url, params={"cursor": bad}, headers=auth)
        assert_error(answer, 422, "invalid_cursor")
    # The same cursor reaches nobody else's log: another player's request is 404 first.
    stranger = await new_player("eve")
    answer = await client.get(url, params={"cursor": mine}, headers=stranger)
    assert_error(answer, 404, "game_not_found")


# --- the daily results ---------------------------------------------------------------------


async def test_the_daily_results_walked_by_cursor_give_every_winner_once_in_order(
    client: httpx.AsyncClient, new_player: NewPlayer, app: FastAPI
) -> None:
    when = day(1)
    names = ["ada", "bob", "cy", "dan", "eve"]
    players = {name: await new_player(name) for name in [*names, "fay"]}
    url = f"{API}/daily/{VARIANT}/{when}/results"
    with on_date(when):
        games = {}
        for name in names:
            answer = await start_daily(client, players[name], when)
            assert answer.status_code == 201, answer.text
            games[name] = answer.json()["id"]
        for name in names:  # the same line: ranked by time, the first started last
            await asyncio.sleep(0.01)
            await win_with_line(app, players[name], games[name], VARIANT, when)
        whole = (await client.get(url, params={"limit": 100})).json()
        ranked = [e["name"] for e in whole["items"]]
        assert sorted(ranked) == sorted(names) and whole["next_cursor"] is None

        pages = await _walk(client, url, {}, limit=2)
        assert [m for p in pages for m in p["items"]] == whole["items"]
        assert [len(p["items"]) for p in pages] == [2, 2, 1]
        assert [p["next_offset"] for p in pages] == [2, 4, None]
        by_offset = (await client.get(url, params={"limit": 2, "offset": 2})).json()
        assert by_offset["items"] == pages[1]["items"]

        # A win that ranks first lands between two pages: the next page by cursor starts
        # after the last winner read (none repeated), ranks counted anew.
        first = (await client.get(url, params={"limit": 2})).json()
        fay = (await start_daily(client, players["fay"], when)).json()["id"]
        await win_with_line(app, players["fay"], fay, VARIANT, when)
        after = await client.get(url, params={"limit": 2, "cursor": first["next_cursor"]})
        assert [e["name"] for e in after.json()["items"]] == ranked[2:4]
        assert [e["rank"] for e in after.json()["items"]] == [4, 5]
        assert after.json()["total"] == 6
        # By offset, the same request would show ranked[1] again (the documented cost).
        shifted = (await client.get(url, params={"limit": 2, "offset": 2})).json()
        assert [e["name"] for e in shifted["items"]] == ranked[1:3]

    cursor = first["next_cursor"]
    other_day = f"{API}/daily/{VARIANT}/{day(2)}/results"
    for target, bad in ((url, "@@@"), (url, cursor[:-1]), (other_day, cursor)):
        assert_error(await client.get(target, params={"cursor": bad}), 422, "invalid_cursor")
    both = await client.get(url, params={"cursor": cursor, "offset": 2})
    assert_error(both, 422, "validation_error")


# --- the seal -----------------------------------------------------------------------------


def test_a_sealed_cursor_opens_only_for_its_list_context_and_secret() -> None:
    cursors = PageCursors("secret")
    sealed = cursors.seal("moves", "game-a", [12])
    assert cursors.open("moves", "game-a", sealed) == [12]
    assert sealed == cursors.seal("moves", "game-a", [12])  # deterministic
    assert "12" not in sealed and "game" not in sealed
    secret_id = "0b9f3c9e-6c1f-4d53-8a53-1c1b8f2b2f6e"
    assert secret_id not in cursors.seal("daily-results", "x", [secret_id])
    for kind, context, cursor, opener in (
        ("moves", "game-b", sealed, cursors),
        ("daily-results", "game-a", sealed, cursors),
        ("moves", "game-a", sealed, PageCursors("another secret")),
        ("moves", "game-a", sealed[:-1], cursors),
        ("moves", "game-a", "", cursors),
    ):
        with pytest.raises(InvalidCursor):
            opener.open(kind, context, cursor)
