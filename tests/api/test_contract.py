"""The contract a typed front-end relies on: deal numbers JavaScript reads
exactly, one timestamp format, one error catalogue, answers that are exactly their
response models. Runs on SQLite and, with TEST_DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.engine import MAX_DEAL, deal, get_variant
from app.errors import CATALOGUE, OWN_FAULTS, from_engine
from app.main import create_app
from app.schemas import (
    DailyOut,
    DailyResults,
    GameMoveResult,
    GamePage,
    GameState,
    Hint,
    MoveLog,
    PlayerOut,
    UndoResult,
)
from tests.api.conftest import API, NewGame, NewPlayer, assert_error
from tests.api.daily_helpers import (  # noqa: F401 (settings, small_solver: fixtures)
    VARIANT,
    daily_settings,
    day,
    empty_daily_deals,
    on_date,
    settings,
    small_solver,
    start_daily,
    stored_deal_number,
    win_with_line,
)
from tests.api.helpers import near_won_rank_and_file, put_state

ROOT = Path(__file__).resolve().parents[2]
RFC3339_UTC = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
LOOKS_LIKE_A_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:")
BIG = "99999999999999999999"  # 10^20 - 1: JSON.parse makes it 1e20
SAFE = 2**53 - 1  # Number.MAX_SAFE_INTEGER


# Daily deals prepared on demand, small solver budgets in threads (daily_helpers).
pytestmark = pytest.mark.usefixtures("small_solver")


def javascript_parse(text: str) -> Any:
    """JSON.parse: every number is a double."""
    return json.loads(text, parse_int=float)


# --- 1. deal numbers ----------------------------------------------------------------


async def test_every_deal_number_round_trips_through_a_javascript_client(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    for number in ("1", "12345", str(2**53 + 1), BIG):
        created = await client.post(
            f"{API}/games", json={"variant": "rank-and-file", "deal": number}, headers=auth
        )
        assert created.status_code == 201, created.text
        seen = javascript_parse(created.text)
        assert seen["deal_str"] == number
        # What the client read, sent back as it read it, deals the same game.
        again = await client.post(
            f"{API}/games",
            json={"variant": "rank-and-file", "deal": seen["deal_str"]},
            headers=auth,
        )
        assert again.status_code == 201, again.text
        assert again.json()["piles"] == created.json()["piles"]
        # The number beside it only where every reader holds it exactly.
        assert again.json()["deal"] == (int(number) if int(number) <= SAFE else None)
        # The engine's deal of that number: the same piles, the same cards seen.
        engine = deal(get_variant("rank-and-file"), int(number)).public()["piles"]

        def seen_cards(piles: list[dict[str, Any]]) -> list[tuple[str, list[str | None]]]:
            return [(pile["id"], [card.get("code") for card in pile["cards"]]) for pile in piles]

        assert seen_cards(created.json()["piles"]) == seen_cards(engine)
    # A small deal as a number still works, and is the same game as its string.
    as_number = await client.post(
        f"{API}/games", json={"variant": "rank-and-file", "deal": 12345}, headers=auth
    )
    assert as_number.status_code == 201 and as_number.json()["deal_str"] == "12345"
    listed = (await client.get(f"{API}/games", headers=auth)).json()["items"]
    assert [item["deal_str"] for item in listed[:2]] == ["12345", BIG]
    assert [item["deal"] for item in listed[:2]] == [12345, None]


async def test_deal_strings_have_the_range_of_deal_numbers(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    async def post(value: Any) -> httpx.Response:
        body = {"variant": "rainbow", "deal": value}
        return await client.post(f"{API}/games", json=body, headers=auth)

    for out_of_range in (0, -1, MAX_DEAL + 1, 10**30, "0", str(MAX_DEAL + 1), "1" + "0" * 40):
        error = assert_error(await post(out_of_range), 422, "invalid_deal")
        assert error["reason"] == "invalid_deal"
    for not_a_number in ("", "00", "07", "+7", "7 ", "0x10", "7.0", "\u0667", True, 7.0):
        assert_error(await post(not_a_number), 422, "validation_error")
    assert (await post(str(MAX_DEAL))).status_code == 201
    assert (await post(SAFE)).status_code == 201
    assert (await post(str(SAFE + 1))).status_code == 201


async def test_no_deal_number_passes_2_to_the_53_as_a_json_number(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """In requests a JSON integer above 2^53 - 1 is refused (its string is taken); in
    answers `deal` is null above it and `deal_str` carries the number, exact."""
    for number in (SAFE + 1, 2**60, MAX_DEAL):
        body = {"variant": "rainbow", "deal": number}
        refused = assert_error(
            await client.post(f"{API}/games", json=body, headers=auth), 422, "validation_error"
        )
        assert [(f["field"], f["code"]) for f in refused["errors"]] == [("deal", "deal_type")]
        assert "9007199254740991" in refused["message"]
    for number in (SAFE, SAFE + 1, MAX_DEAL):
        created = await client.post(
            f"{API}/games", json={"variant": "rank-and-file", "deal": str(number)}, headers=auth
        )
        assert created.status_code == 201, created.text
        url = f"{API}/games/{created.json()['id']}"
        answers = [
            created,
            await client.get(url, headers=auth),
            await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth),
            await client.post(f"{url}/undo", headers=auth),
        ]
        listed = (await client.get(f"{API}/games", headers=auth)).json()["items"][0]
        for seen in [*(answer.json() for answer in answers), listed]:
            assert seen["deal_str"] == str(number)
            assert seen["deal"] == (number if number <= SAFE else None)


def _numbers(value: Any) -> Iterator[int | float]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)


def test_no_number_in_the_document_passes_2_to_the_53() -> None:
    """Bounds and examples alike: a generated client reads the document's numbers too."""
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    assert max(abs(number) for number in _numbers(document)) <= SAFE
    deal = document["components"]["schemas"]["GameState"]["properties"]["deal"]
    assert {"type": "integer", "minimum": 1, "maximum": SAFE} in deal["anyOf"]


async def test_a_hidden_deal_is_hidden_in_both_fields(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game()  # random: hidden until won
    assert game["deal"] is None and game["deal_str"] is None
    await put_state(app, game["id"], near_won_rank_and_file())
    won = await client.post(
        f"{API}/games/{game['id']}/moves",
        json={"action": "move", "from": "tableau-1", "to": "foundation-0"},
        headers=auth,
    )
    assert won.json()["status"] == "won"
    assert won.json()["deal_str"] == str(won.json()["deal"])


async def test_a_past_daily_deal_is_shown_as_a_string_too(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str]
) -> None:
    when = day(2)
    await start_daily(client, auth, when)
    info = (await client.get(f"{API}/daily/{VARIANT}/{when}")).json()
    number = await stored_deal_number(app, VARIANT, when)
    assert (info["deal"], info["deal_str"]) == (number, str(number))
    today = (await client.get(f"{API}/daily/{VARIANT}/today")).json()
    assert today["deal"] is None and today["deal_str"] is None


# --- 2. timestamps --------------------------------------------------------------------


def _times(value: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, key, value) of every timestamp-like entry of an answer."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key.endswith("_at") or (isinstance(item, str) and LOOKS_LIKE_A_TIME.match(item)):
                yield f"{path}.{key}", key, item
            yield from _times(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _times(item, f"{path}[{i}]")


def _documented_time_fields() -> set[str]:
    """Every date-time property of every schema in the OpenAPI document."""
    schemas = create_app().openapi()["components"]["schemas"]
    return {
        name
        for schema in schemas.values()
        for name, prop in schema.get("properties", {}).items()
        if prop.get("format") == "date-time"
    }


async def test_every_timestamp_of_every_answer_is_rfc3339_utc_with_z(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_player: NewPlayer
) -> None:
    answers: dict[str, httpx.Response] = {}
    answers["players/me"] = await client.get(f"{API}/players/me", headers=auth)
    created = await client.post(
        f"{API}/games", json={"variant": "rank-and-file", "deal": 5}, headers=auth
    )
    answers["create"] = created
    url = f"{API}/games/{created.json()['id']}"
    answers["move"] = await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
    answers["moves log"] = await client.get(f"{url}/moves", headers=auth)
    answers["undo"] = await client.post(f"{url}/undo", headers=auth)
    answers["patch"] = await client.patch(
        url, json={"settings": {"auto_finish": False}}, headers=auth
    )
    answers["get"] = await client.get(url, headers=auth)
    answers["stream token"] = await client.post(f"{url}/stream-token", headers=auth)
    answers["list"] = await client.get(f"{API}/games", headers=auth)
    answers["hint"] = await client.post(f"{url}/hint", headers=auth)
    finishing = await client.post(
        f"{API}/games", json={"variant": "rank-and-file", "deal": 2}, headers=auth
    )
    answers["finish"] = await client.post(
        f"{API}/games/{finishing.json()['id']}/finish", headers=auth
    )
    when = day(1)
    with on_date(when):  # a ranked win: the results list it
        daily_game = await start_daily(client, auth, when)
        answers["daily game"] = daily_game
        await win_with_line(app, auth, daily_game.json()["id"], VARIANT, when)
    answers["daily"] = await client.get(f"{API}/daily/{VARIANT}/{when}")
    answers["daily results"] = await client.get(
        f"{API}/daily/{VARIANT}/{when}/results", headers=auth
    )
    answers["stats"] = await client.get(f"{API}/players/me/stats", headers=auth)

    seen: set[str] = set()
    for kind, answer in answers.items():
        assert answer.status_code in (200, 201), (kind, answer.text)
        for where, key, value in _times(answer.json()):
            assert isinstance(value, str) and RFC3339_UTC.fullmatch(value), (kind, where, value)
            seen.add(key)
    # Every timestamp the document declares was seen in some answer above.
    assert _documented_time_fields() <= seen, _documented_time_fields() - seen


# --- 3. the error catalogue -----------------------------------------------------------


def _documented_codes() -> dict[str, int]:
    """code -> status, from the tables of docs/api.md."""
    text = (ROOT / "docs" / "api.md").read_text()
    rows = re.findall(r"^\| ([0-9]{3}) \| `([a-z_]+)` \|", text, flags=re.MULTILINE)
    codes: dict[str, int] = {}
    for status, code in rows:
        assert codes.setdefault(code, int(status)) == int(status), f"{code}: two statuses"
    return codes


def test_the_documented_errors_are_the_catalogue() -> None:
    assert _documented_codes() == {code: kind.status for code, kind in CATALOGUE.items()}


def test_the_code_enum_is_exactly_the_catalogue() -> None:
    """Every code a client is told it may get is one the server sends, with its row in
    docs/api.md's table: no code of a status nothing raises."""
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    enum = document["components"]["schemas"]["ErrorDetail"]["properties"]["code"]["enum"]
    assert enum == sorted(CATALOGUE) == sorted(_documented_codes())


async def test_an_http_exception_of_a_status_without_a_code_is_a_bug(app: FastAPI) -> None:
    """A status nothing in the server raises (409 from a library, say) has no code of its
    own: it is answered as the bug it is, 500 internal_error."""

    async def raises() -> None:
        raise StarletteHTTPException(409)

    app.add_api_route("/boom", raises)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        assert_error(await client.get("/boom"), 500, "internal_error")


def _own_fault_codes() -> set[str]:
    """The field codes the server's own code raises: `fault="..."` and pydantic custom
    errors (less `invalid_deal`, which is a catalogue code, and pydantic's `missing`)."""
    found: set[str] = set()
    for path in (ROOT / "app").rglob("*.py"):
        text = path.read_text()
        found |= set(re.findall(r'fault="([a-z_]+)"', text))
        found |= set(re.findall(r'PydanticCustomError\(\s*"([a-z_]+)"', text))
    return found - {"invalid_deal", "missing"}


def test_every_field_code_of_the_servers_own_is_listed() -> None:
    """`deal: "012"` gets `deal_type`: the document's list and docs/api.md's name it."""
    assert _own_fault_codes() == set(OWN_FAULTS)
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    listed = document["components"]["schemas"]["FieldFault"]["properties"]["code"]
    guide = (ROOT / "docs" / "api.md").read_text()
    guide_list = guide[guide.index("pydantic's error type") :][:600]
    for code in OWN_FAULTS:
        assert f"`{code}`" in listed["description"], code
        assert f"`{code}`" in guide_list, code


def test_every_engine_refusal_has_one_code() -> None:
    """The engine's reasons as the API answers them: one map (app.errors.from_engine)."""
    from app.engine import CorruptState, IllegalMove, InvalidDeal, InvalidMove

    assert (from_engine(IllegalMove("wrong_colour", "x")).code, 422) == ("illegal_move", 422)
    assert from_engine(IllegalMove("no_such_pile", "x")).code == "invalid_move"
    assert from_engine(InvalidMove("bad_pile", "x")).code == "invalid_move"
    over = from_engine(IllegalMove("game_over", "x"))
    assert (over.code, over.status, over.reason) == ("game_over", 409, "game_over")
    assert from_engine(InvalidDeal("invalid_deal", "x")).code == "invalid_deal"
    assert from_engine(CorruptState("bad_bytes", "x")).status == 500


async def test_a_pile_id_that_names_no_pile_is_invalid_move_everywhere(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    gid = (await new_game(deal=5))["id"]
    for pile in ("foo", "tableau-42", "tableau-10", "foundation-8", "reserve"):
        for move in (
            {"action": "move", "from": pile, "to": "tableau-0"},
            {"action": "move", "from": "waste", "to": pile},
            {"action": "click", "pile": pile},
        ):
            answer = await client.post(f"{API}/games/{gid}/moves", json=move, headers=auth)
            error = assert_error(answer, 422, "invalid_move")
            assert error["reason"] in ("bad_pile", "no_such_pile"), move


async def test_an_unknown_variant_is_404_in_a_path_and_422_in_a_body(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    for url in (
        f"{API}/variants/klondike",
        f"{API}/daily/klondike/today",
        f"{API}/daily/klondike/today/results",
    ):
        assert_error(await client.get(url, headers=auth), 404, "variant_not_found")
    answer = await client.post(f"{API}/daily/klondike/today/game", headers=auth)
    assert_error(answer, 404, "variant_not_found")
    answer = await client.post(f"{API}/games", json={"variant": "klondike"}, headers=auth)
    assert_error(answer, 422, "unknown_variant")


async def test_a_won_game_refuses_moves_and_undo_alike(
    client: httpx.AsyncClient, app: FastAPI, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game(deal=1)
    url = f"{API}/games/{game['id']}"
    await put_state(app, game["id"], near_won_rank_and_file())
    won = await client.post(
        f"{url}/moves",
        json={"action": "move", "from": "tableau-1", "to": "foundation-0"},
        headers=auth,
    )
    assert won.json()["status"] == "won"
    for answer in (
        await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth),
        await client.post(f"{url}/moves", json={"action": "click", "pile": "stock"}, headers=auth),
        await client.post(f"{url}/undo", headers=auth),
    ):
        error = assert_error(answer, 409, "game_over")
        assert error["reason"] == "game_over"
    assert (await client.get(url, headers=auth)).json()["version"] == won.json()["version"]


# --- 6. answers are their response models ---------------------------------------------


def _as_sent(model: type[BaseModel], body: Any) -> Any:
    return model.model_validate(body).model_dump(mode="json", by_alias=True)


async def test_every_answer_is_exactly_its_response_model(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """What is sent is what the document describes: no field more or less, the same
    formats (the routers return the models; nothing is built beside them)."""
    created = await client.post(
        f"{API}/games", json={"variant": "rank-and-file", "deal": BIG}, headers=auth
    )
    url = f"{API}/games/{created.json()['id']}"
    moved = await client.post(f"{url}/moves", json={"action": "draw"}, headers=auth)
    log = await client.get(f"{url}/moves", headers=auth)
    hint = await client.post(f"{url}/hint", headers=auth)
    pairs: list[tuple[type[BaseModel], httpx.Response]] = [
        (PlayerOut, await client.get(f"{API}/players/me", headers=auth)),
        (GameState, created),
        (GameState, await client.get(url, headers=auth)),
        (GameMoveResult, moved),
        (MoveLog, log),
        (GamePage, await client.get(f"{API}/games", headers=auth)),
        (Hint, hint),
        (UndoResult, await client.post(f"{url}/undo", headers=auth)),
        (DailyOut, await client.get(f"{API}/daily/{VARIANT}/today")),
        (DailyResults, await client.get(f"{API}/daily/{VARIANT}/today/results")),
    ]
    for model, answer in pairs:
        assert answer.status_code in (200, 201), answer.text
        assert answer.json() == _as_sent(model, answer.json()), model.__name__


def test_routers_build_no_bodies_and_services_parse_no_move_dicts() -> None:
    """The routers return response models (or a bare 304), never JSONResponse of dicts;
    the move request is read once, in the router, into an engine move or a click."""
    routers = ROOT / "app" / "routers"
    for source in routers.glob("*.py"):
        assert "JSONResponse" not in source.read_text(), source.name
    from app.services import games

    assert not hasattr(games, "parse_action")


# --- 5. one unit of work ----------------------------------------------------------------


def test_every_transaction_is_the_unit_of_work() -> None:
    """Only app/db.py begins, commits or rolls back; only the games repository's
    `locked_game` locks a game."""
    for source in (ROOT / "app").rglob("*.py"):
        if source.name == "db.py" or "engine" in source.parts or "solver" in source.parts:
            continue
        text = source.read_text()
        for call in (".commit(", ".rollback(", "begin_write(", ".begin("):
            assert call not in text, f"{source.relative_to(ROOT)}: {call}"
    games = ROOT / "app" / "services" / "games"
    locks = {path.name: path.read_text().count("lock=True") for path in games.glob("*.py")}
    assert {name: n for name, n in locks.items() if n} == {"repository.py": 1}  # locked_game


async def test_a_failed_write_keeps_nothing_and_ends_its_transaction(app: FastAPI) -> None:
    from sqlalchemy import func, select

    from app.db import unit_of_work
    from app.errors import VersionConflict
    from app.models import Player

    async with app.state.services.database.sessionmaker() as session:
        with pytest.raises(VersionConflict):
            async with unit_of_work(session):
                session.add(Player(name="ghost", token_hash="0" * 64))
                await session.flush()
                raise VersionConflict()
        assert not session.in_transaction()
        async with unit_of_work(session, write=False):
            count = (await session.execute(select(func.count(Player.id)))).scalar_one()
        assert count == 0
        assert not session.in_transaction()
