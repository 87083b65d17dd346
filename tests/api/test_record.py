"""Game records: `GET /games/{id}/record` (the owner's, once the deal is public) and
`POST /games` with `{"record": ...}`, which plays it again (docs/api.md, "Game
records")."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update

from app import seeds
from app.engine import RECORD_MAX_CHARS, RECORD_MAX_MOVES
from app.models import Game, utcnow
from app.services.kit.offload import LONG_LINE
from tests.api.conftest import API, NewGame, NewPlayer, assert_error

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
# What must be the same in a game and the game its record makes.
SAME = (
    "variant",
    "deal",
    "rules",
    "status",
    "move_count",
    "redeals_left",
    "base_rank",
    "piles",
    "legal_moves",
)


def _shortest(variant: str) -> dict[str, Any]:
    entries = seeds.load(SEEDS / f"{variant}.json")["deals"]
    return min(entries, key=lambda e: len(e["line"]))


async def _set(app: FastAPI, game_id: str, **values: Any) -> None:
    """Change a game's row (a test-only shortcut: its source, status or daily date)."""
    async with app.state.services.database.sessionmaker() as session:
        await session.execute(
            update(Game).where(Game.id == game_id).values(version=Game.version + 1, **values)
        )
        await session.commit()


async def _move(client: httpx.AsyncClient, auth: dict[str, str], game_id: str, move: Any) -> Any:
    answer = await client.post(f"{API}/games/{game_id}/moves", json=move.to_json(), headers=auth)
    assert answer.status_code == 200, (str(move), answer.text)
    return answer.json()


async def _record(client: httpx.AsyncClient, auth: dict[str, str], game_id: str) -> str:
    answer = await client.get(f"{API}/games/{game_id}/record", headers=auth)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["game_id"] == game_id
    record: str = body["record"]
    return record


async def _log(client: httpx.AsyncClient, auth: dict[str, str], game_id: str) -> list[Any]:
    answer = await client.get(f"{API}/games/{game_id}/moves", headers=auth)
    assert answer.status_code == 200, answer.text
    return [(item["seq"], item["text"], item["events"]) for item in answer.json()["items"]]


async def _import(
    client: httpx.AsyncClient, auth: dict[str, str], record: str, **body: Any
) -> dict[str, Any]:
    answer = await client.post(f"{API}/games", json={"record": record, **body}, headers=auth)
    assert answer.status_code == 201, answer.text
    assert answer.headers["Location"] == f"/api/v1/games/{answer.json()['id']}"
    game: dict[str, Any] = answer.json()
    return game


async def _games(app: FastAPI) -> int:
    async with app.state.services.database.sessionmaker() as session:
        return int((await session.execute(select(func.count()).select_from(Game))).scalar_one())


@pytest.mark.parametrize(
    ("variant", "rules"),
    [
        ("rank-and-file", None),
        ("rows-of-four", {"foundation_return": True}),
        ("rainbow", {"foundation_return": False}),
    ],
)
async def test_a_record_plays_again_to_the_same_game(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
    variant: str,
    rules: dict[str, Any] | None,
) -> None:
    """Part of a proven line, with undos along it (the log keeps the line that leads to
    the position) and a settings change: the record's game has the same position, move
    count, status and move log (texts and events)."""
    entry = _shortest(variant)
    # Longer than `LONG_LINE`: the record is played and its log written as a long line.
    line = seeds.read_line(entry["line"])[:60]
    assert len(line) > LONG_LINE
    game = await new_game(variant=variant, deal=entry["deal"], rules=rules)
    for index, move in enumerate(line):
        await _move(client, auth, game["id"], move)
        if index % 9 == 4:  # take it back, and play it again
            undone = await client.post(f"{API}/games/{game['id']}/undo", headers=auth)
            assert undone.status_code == 200, undone.text
            await _move(client, auth, game["id"], move)
    await client.post(f"{API}/games/{game['id']}/undo", headers=auth)  # the last one too
    changed = await client.patch(
        f"{API}/games/{game['id']}", json={"settings": {"auto_play": False}}, headers=auth
    )
    before = changed.json()
    record = await _record(client, auth, game["id"])
    assert record.startswith(f'[Variant "{variant}"]\n[Deal "{entry["deal"]}"]\n[Rules "')
    assert record.endswith(" *\n")

    # Settings are not in the record (clicks follow auto_play: the same, for the piles).
    again = await _import(client, auth, record, settings=before["settings"])
    assert {k: again[k] for k in SAME} == {k: before[k] for k in SAME}
    assert before["move_count"] == len(line) - 1
    assert again["source"] == "deal" and again["version"] == again["move_count"]
    assert await _log(client, auth, again["id"]) == await _log(client, auth, game["id"])
    assert await _record(client, auth, again["id"]) == record
    # The new game plays on, and undoes, like any other.
    undone = await client.post(f"{API}/games/{again['id']}/undo", headers=auth)
    assert undone.status_code == 200 and undone.json()["move_count"] == len(line) - 2


async def test_a_game_won_by_the_auto_finish_plays_again_to_a_win(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    """Rank and File's deal 1: its proven line, with the auto-finish on, is won by the
    auto-finish before the line ends. The record ends `won`, and plays again to the same
    won game, whatever the new game's own auto_finish setting."""
    entry = next(e for e in seeds.load(SEEDS / "rank-and-file.json")["deals"] if e["deal"] == 1)
    line = seeds.read_line(entry["line"])
    game = await new_game(variant="rank-and-file", deal=1)
    for move in line:
        state = await _move(client, auth, game["id"], move)
        if state["status"] == "won":
            break
    assert state["move_count"] < len(line)
    assert any(e["type"] == "auto_finish" for e in state["events"])
    record = await _record(client, auth, game["id"])
    assert record.endswith(" won\n")

    for settings in (None, {"auto_finish": False, "auto_play": True}):
        again = await _import(client, auth, record, **({"settings": settings} if settings else {}))
        assert {k: again[k] for k in SAME} == {k: state[k] for k in SAME}
        assert again["status"] == "won"
        assert await _log(client, auth, again["id"]) == await _log(client, auth, game["id"])
        if settings:
            assert again["settings"] == settings


async def test_a_by_number_game_has_its_record_at_once(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(variant="dress-parade", deal="12345")
    assert await _record(client, auth, game["id"]) == (
        '[Variant "rank-and-file"]\n[Deal "12345"]\n[Rules "foundation_return=false"]\n\n*\n'
    )
    again = await _import(client, auth, await _record(client, auth, game["id"]))
    assert {k: again[k] for k in SAME} == {k: game[k] for k in SAME}


async def test_a_record_is_refused_while_the_deal_is_secret(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    """A deal the server chose (random, solvable) is secret until the game is won (a
    stuck game is not over: an undo plays on); the refusal is 409 record_not_available,
    and the record comes exactly when the state shows `deal`."""
    random_game = await new_game(variant="rank-and-file")
    assert random_game["source"] == "random" and random_game["deal"] is None
    refused = await client.get(f"{API}/games/{random_game['id']}/record", headers=auth)
    error = assert_error(refused, 409, "record_not_available")
    assert "until the game is won" in error["message"]
    assert "reason" not in error

    solvable = await new_game(variant="rainbow", deal=7)
    await _set(app, solvable["id"], source="solvable")
    for status in ("playing", "stuck"):
        await _set(app, solvable["id"], status=status)
        refused = await client.get(f"{API}/games/{solvable['id']}/record", headers=auth)
        assert_error(refused, 409, "record_not_available")
        shown = await client.get(f"{API}/games/{solvable['id']}", headers=auth)
        assert shown.json()["deal"] is None
    await _set(app, solvable["id"], status="won")
    assert '[Deal "7"]' in await _record(client, auth, solvable["id"])


async def test_a_daily_record_waits_for_the_end_of_its_date(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    """A daily game's record is refused until its date is over, won or not."""
    game = await new_game(variant="rows-of-four", deal=99)
    today = utcnow().date()
    await _set(app, game["id"], source="daily", daily_date=today)
    for status in ("playing", "won"):
        await _set(app, game["id"], status=status)
        refused = await client.get(f"{API}/games/{game['id']}/record", headers=auth)
        error = assert_error(refused, 409, "record_not_available")
        assert "until its date is over" in error["message"]
    await _set(app, game["id"], daily_date=today - timedelta(days=1))
    assert '[Deal "99"]' in await _record(client, auth, game["id"])


async def test_only_the_owner_reads_a_record(
    client: httpx.AsyncClient, new_player: NewPlayer, new_game: NewGame
) -> None:
    game = await new_game(deal=5)
    other = await new_player("bob")
    assert_error(
        await client.get(f"{API}/games/{game['id']}/record", headers=other), 404, "game_not_found"
    )
    assert_error(await client.get(f"{API}/games/{game['id']}/record"), 401, "unauthorized")
    missing = await client.get(f"{API}/games/not-a-game/record", headers=other)
    assert_error(missing, 404, "game_not_found")


HEAD = '[Variant "rank-and-file"]\n[Deal "1"]\n\n'


@pytest.mark.parametrize(
    ("record", "reason", "line", "move_number"),
    [
        # Deal 1: t0>t8 is the proven line's first move; t0>t9 is refused by the rules.
        (HEAD + "t0>t8 draw\nt0>t9 *", "not_one_rank_lower", 5, 3),
        (HEAD + "t0>t8 t0>t42 *", "no_such_pile", 4, 2),
        (HEAD + "t0>t8 tableau-1 *", "bad_move", 4, 2),
        (HEAD + "t0>t8", "missing_result", 4, None),
        (HEAD + "t0>t8 won", "result_mismatch", 4, None),
        ('[Variant "klondike"]\n[Deal "1"]\n\n*', "unknown_variant", 1, None),
        ('[Variant "rank-and-file"]\n[Deal "0"]\n\n*', "invalid_deal", 2, None),
        ('[Variant "rank-and-file"]\n[Seed "1"]\n\n*', "unknown_header", 2, None),
        ("t0>t8 *", "bad_header", 1, None),
    ],
)
async def test_a_bad_record_is_422_and_makes_no_game(
    app: FastAPI,
    client: httpx.AsyncClient,
    auth: dict[str, str],
    record: str,
    reason: str,
    line: int,
    move_number: int | None,
) -> None:
    answer = await client.post(f"{API}/games", json={"record": record}, headers=auth)
    error = assert_error(answer, 422, "invalid_record")
    assert error["reason"] == reason
    assert error["line"] == line
    assert error.get("move_number") == move_number
    if move_number is not None:
        assert f"move {move_number}" in error["message"]
    assert await _games(app) == 0


async def test_a_record_comes_alone(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """A record names the variant, deal and rules: `variant`, `deal`, `solvable` or
    `rules` beside it are refused (only `settings` may come with it); without a record, a
    variant is needed."""
    record = HEAD + "*"
    for extra in (
        {"variant": "rank-and-file"},
        {"deal": 1},
        {"solvable": True},
        {"rules": {"foundation_return": True}},
    ):
        answer = await client.post(f"{API}/games", json={"record": record, **extra}, headers=auth)
        assert_error(answer, 422, "validation_error")
    assert_error(await client.post(f"{API}/games", json={}, headers=auth), 422, "validation_error")
    # The longest record the schema takes fits in the default body limit, in JSON: a
    # longer one is refused by the schema (422), not by the body's size (413).
    too_long = {"record": HEAD + "draw " * 12_000 + "*"}
    assert len(too_long["record"]) > RECORD_MAX_CHARS
    answer = await client.post(f"{API}/games", json=too_long, headers=auth)
    assert_error(answer, 422, "validation_error")
    many = {"record": HEAD + "draw " * (RECORD_MAX_MOVES + 1) + "*"}
    error = assert_error(
        await client.post(f"{API}/games", json=many, headers=auth), 422, "invalid_record"
    )
    assert error["reason"] == "too_many_moves"
    assert await _games(app) == 0
