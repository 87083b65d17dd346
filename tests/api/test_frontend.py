"""What a front-end needs: the variants' rules as data and what is ready to
deal, a paginated move log, gzip, request ids and JSON logs, `.env.example`."""

from __future__ import annotations

import gzip
import io
import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.db import masked_url
from app.logs import MAX_REQUEST_ID, JsonFormatter, RequestIdFilter, request_id_from
from app.middleware import accepts_gzip
from app.models import SolvableDeal
from app.schemas import VariantOut
from app.services.games import MOVES_PAGE_MAX
from tests.api.conftest import API, NewGame, assert_error, running

ROOT = Path(__file__).resolve().parents[2]
GENERATED = re.compile(r"[0-9a-f]{32}")

# --- GET /variants: rules as data, solvable pool, seeds ------------------------------


async def test_variants_give_the_rules_as_data(client: httpx.AsyncClient) -> None:
    items = {
        v["id"]: VariantOut.model_validate(v) for v in (await client.get(f"{API}/variants")).json()
    }
    rank = items["rank-and-file"]
    assert rank.tableau.model_dump() == {
        "piles": 10,
        "cards_per_pile": 4,
        "face_down_per_pile": 3,
        "rounds_face_up": [False, False, False, True],
        "dealt": "left_to_right",
        "build": "alternate",
        "build_direction": "down",
        "build_wrap": False,
        "runs": "any",
        "empty_pile": "any_card",
    }
    assert rank.foundation.count == 8 and rank.foundation.base == "ace"
    assert rank.foundation.base_rank == 1 and not rank.foundation.return_to_tableau
    assert rank.stock.model_dump() == {"cards": 104 - 40, "draw": 1, "redeals": 0}
    assert rank.reserve is None
    assert rank.house_rules[0].name == "foundation_return" and rank.house_rules[0].description
    rainbow = items["rainbow"]
    assert rainbow.tableau.dealt == "right_to_left" and rainbow.tableau.build_wrap
    assert rainbow.tableau.empty_pile == "from_reserve"
    assert rainbow.foundation.base == "first_card" and rainbow.foundation.base_rank is None
    assert rainbow.foundation.dealt == 1 and rainbow.foundation.wrap
    assert rainbow.reserve is not None and rainbow.reserve.model_dump() == {
        "size": 13,
        "top_playable": True,
        "fills_empty_tableau": True,
    }
    assert rainbow.stock.cards == 52 - 4 - 13 - 1
    canfield = items["canfield"]
    assert (canfield.stock.draw, canfield.stock.redeals, canfield.tableau.build) == (
        3,
        None,
        "alternate",
    )
    assert items["forty-thieves"].tableau.build == "same_suit"
    assert items["rows-of-four"].stock.redeals == 2 and items["deauville"].tableau.runs == "single"


async def test_variants_say_what_is_ready_to_deal(
    app: FastAPI, client: httpx.AsyncClient, settings: Settings
) -> None:
    # The test's seeds dir lists two deals of rainbow; the pool holds one unused
    # rows-of-four deal (and one already dealt, which does not count).
    (settings.seeds_dir / "rainbow.json").write_text(
        json.dumps(
            {
                "variant": "rainbow",
                "format": 2,
                "deals": [{"deal": 5, "line": ""}, {"deal": 9, "line": ""}],
            }
        )
    )
    async with app.state.services.database.sessionmaker() as session:
        for seq, dealt in ((0, datetime.now(UTC)), (1, None)):
            session.add(
                SolvableDeal(
                    variant="rows-of-four",
                    seq=seq,
                    deal=str(100 + seq),
                    positions=1,
                    elapsed_ms=1,
                    line=[],
                    dealt_at=dealt,
                )
            )
        await session.commit()
    listed = {v["id"]: v for v in (await client.get(f"{API}/variants")).json()}
    assert listed["rainbow"]["seeded_deals"] == 2 and listed["canfield"]["seeded_deals"] == 0
    assert listed["rows-of-four"]["solvable_ready"] == 1
    assert listed["rows-of-four"]["solvable_available"] is True
    assert listed["rainbow"]["solvable_ready"] == 0
    assert listed["rainbow"]["solvable_available"] is False
    one = (await client.get(f"{API}/variants/rows-of-four")).json()
    assert one == listed["rows-of-four"]


async def test_variants_count_the_committed_seeds(
    app: FastAPI, client: httpx.AsyncClient, settings: Settings
) -> None:
    app.state.services.settings = settings.model_copy(update={"seeds_dir": ROOT / "seeds"})
    listed = (await client.get(f"{API}/variants")).json()
    assert all(v["seeded_deals"] >= 100 for v in listed), [
        (v["id"], v["seeded_deals"]) for v in listed
    ]


# --- GET /games/{id}/moves: pages -----------------------------------------------------


async def _played(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame, n: int
) -> str:
    game = await new_game(variant="rank-and-file", deal=3, settings={"auto_finish": False})
    for _ in range(n):
        answer = await client.post(
            f"{API}/games/{game['id']}/moves", json={"action": "draw"}, headers=auth
        )
        assert answer.status_code == 200, answer.text
    game_id: str = game["id"]
    return game_id


async def test_moves_are_paginated(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    gid = await _played(client, auth, new_game, 5)
    url = f"{API}/games/{gid}/moves"
    whole = (await client.get(url, headers=auth)).json()
    # No parameters: the whole log (it fits the default page), as before pagination.
    assert [m["seq"] for m in whole["items"]] == [1, 2, 3, 4, 5]
    assert (whole["total"], whole["next_offset"], whole["version"]) == (5, None, 5)
    pages: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        page = (await client.get(url, params={"offset": offset, "limit": 2}, headers=auth)).json()
        pages.append(page)
        offset = page["next_offset"]
    assert [[m["seq"] for m in p["items"]] for p in pages] == [[1, 2], [3, 4], [5]]
    assert [p["next_offset"] for p in pages] == [2, 4, None]
    assert [m for p in pages for m in p["items"]] == whole["items"]
    # A page that ends exactly at the end says so; one past the end is empty.
    exact = (await client.get(url, params={"offset": 3, "limit": 2}, headers=auth)).json()
    assert [m["seq"] for m in exact["items"]] == [4, 5] and exact["next_offset"] is None
    beyond = (await client.get(url, params={"offset": 9}, headers=auth)).json()
    assert beyond["items"] == [] and beyond["next_offset"] is None and beyond["total"] == 5
    for bad in (
        {"limit": 0},
        {"limit": MOVES_PAGE_MAX + 1},
        {"offset": -1},
        {"offset": 2**31},
        {"offset": 10**30},
        {"limit": "x"},
    ):
        assert_error(await client.get(url, params=bad, headers=auth), 422, "validation_error")
    ok = await client.get(url, params={"limit": MOVES_PAGE_MAX, "offset": 2**31 - 1}, headers=auth)
    assert ok.status_code == 200 and ok.json()["items"] == []


async def test_an_empty_log_has_one_empty_page(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    game = await new_game()
    page = (await client.get(f"{API}/games/{game['id']}/moves", headers=auth)).json()
    assert (page["items"], page["total"], page["next_offset"]) == ([], 0, None)


# --- gzip -----------------------------------------------------------------------------


def test_accept_encoding_negotiation() -> None:
    assert accepts_gzip("gzip") and accepts_gzip("br, gzip;q=0.5") and accepts_gzip("*")
    assert accepts_gzip("GZIP , deflate")
    assert not accepts_gzip("") and not accepts_gzip("identity") and not accepts_gzip("br")
    assert not accepts_gzip("gzip;q=0") and not accepts_gzip("gzip;q=0.0, br")
    assert not accepts_gzip("*;q=0") and not accepts_gzip("x-gzipped")


async def test_answers_are_gzipped_when_accepted(
    client: httpx.AsyncClient, auth: dict[str, str], new_game: NewGame
) -> None:
    gid = await _played(client, auth, new_game, 20)
    url = f"{API}/games/{gid}/moves"
    plain = await client.get(url, headers={**auth, "Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    for refused in ("gzip;q=0", "br"):
        answer = await client.get(url, headers={**auth, "Accept-Encoding": refused})
        assert "content-encoding" not in answer.headers, refused
    zipped = await client.get(url, headers={**auth, "Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["vary"]
    assert zipped.json() == plain.json()  # httpx decodes it
    assert int(zipped.headers["content-length"]) < len(plain.content) / 4
    # The state: compressed, its ETag unchanged, and a matching If-None-Match still 304.
    state = await client.get(f"{API}/games/{gid}", headers={**auth, "Accept-Encoding": "gzip"})
    assert state.headers["content-encoding"] == "gzip"
    assert state.headers["etag"] == f'"{gid}.20"'
    again = await client.get(
        f"{API}/games/{gid}",
        headers={**auth, "Accept-Encoding": "gzip", "If-None-Match": state.headers["etag"]},
    )
    assert again.status_code == 304 and again.content == b""
    # Small answers (errors) stay as they are, in the envelope.
    missing = await client.get(f"{API}/games/nope", headers={**auth, "Accept-Encoding": "gzip"})
    assert "content-encoding" not in missing.headers
    assert_error(missing, 404, "game_not_found")


async def test_a_gzipped_error_is_still_the_envelope(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    from app.errors import SolverBusy

    @app.get("/long-error")
    async def long_error() -> None:
        raise SolverBusy("busy " * 400, headers={"Retry-After": "2"})

    answer = await client.get("/long-error", headers={"Accept-Encoding": "gzip"})
    assert answer.headers["content-encoding"] == "gzip"
    assert_error(answer, 429, "solver_busy")
    assert answer.headers["Retry-After"] == "2"
    async with client.stream("GET", "/long-error", headers={"Accept-Encoding": "gzip"}) as raw:
        body = b"".join([chunk async for chunk in raw.aiter_raw()])
    assert json.loads(gzip.decompress(body))["error"]["code"] == "solver_busy"


# --- request ids ------------------------------------------------------------------------


def test_request_id_validation() -> None:
    for good in ("abc-123", "0f" * 16, "a.b:c_d", "x" * MAX_REQUEST_ID):
        assert request_id_from(good) == good
    for bad in (None, "", "x" * (MAX_REQUEST_ID + 1), "a b", "a\nb", "<script>", "é", "a/b"):
        assert GENERATED.fullmatch(request_id_from(bad)), bad
    assert request_id_from(None) != request_id_from(None)


async def test_request_id_is_echoed_on_every_answer(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    ok = await client.get(f"{API}/variants", headers={"X-Request-ID": "front-42"})
    assert ok.headers["x-request-id"] == "front-42"
    made = await client.get(f"{API}/variants")
    assert GENERATED.fullmatch(made.headers["x-request-id"])
    replaced = await client.get(f"{API}/variants", headers={"X-Request-ID": "bad id\t<>"})
    assert GENERATED.fullmatch(replaced.headers["x-request-id"])
    too_long = await client.get(f"{API}/variants", headers={"X-Request-ID": "a" * 500})
    assert GENERATED.fullmatch(too_long.headers["x-request-id"])
    # Errors of every layer: the router, validation, the body limit, auth, a crash.
    for response in (
        await client.get("/nowhere", headers={"X-Request-ID": "e1"}),
        await client.post(
            f"{API}/games", json={"variant": 1}, headers={**auth, "X-Request-ID": "e2"}
        ),
        await client.post(f"{API}/players", content=b"x" * 70_000, headers={"X-Request-ID": "e3"}),
        await client.get(f"{API}/players/me", headers={"X-Request-ID": "e4"}),
    ):
        assert response.status_code >= 400
        assert response.headers["x-request-id"] in ("e1", "e2", "e3", "e4"), response.status_code
    cors = await client.get(
        f"{API}/variants", headers={"Origin": "https://front.example", "X-Request-ID": "c1"}
    )
    assert "x-request-id" in cors.headers["access-control-expose-headers"].lower()

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("crash")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        crashed = await c.get("/boom", headers={"X-Request-ID": "e5"})
    assert_error(crashed, 500, "internal_error")
    assert crashed.headers["x-request-id"] == "e5"


# --- JSON logs --------------------------------------------------------------------------


def _capture() -> tuple[logging.Handler, io.StringIO]:
    sink = io.StringIO()
    handler = logging.StreamHandler(sink)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    return handler, sink


async def test_each_request_writes_one_json_access_line(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    handler, sink = _capture()
    logger = logging.getLogger("app")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)

    @app.get("/noisy")
    async def noisy() -> dict[str, str]:
        logging.getLogger("app.test").warning("inside %s", "the handler")
        return {}

    try:
        await client.get(f"{API}/variants/nope", headers={"X-Request-ID": "log-1"})
        await client.get("/noisy", headers={"X-Request-ID": "log-2"})
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    lines = [json.loads(line) for line in sink.getvalue().splitlines()]
    access = [line for line in lines if line["logger"] == "app.access"]
    first = access[0]
    assert set(first) == {
        "time",
        "level",
        "logger",
        "message",
        "request_id",
        "method",
        "path",
        "status",
        "duration_ms",
    }
    assert first["request_id"] == "log-1" and first["level"] == "INFO"
    assert (first["method"], first["path"], first["status"]) == ("GET", f"{API}/variants/nope", 404)
    assert isinstance(first["duration_ms"], float) and first["duration_ms"] >= 0
    assert datetime.fromisoformat(first["time"]).tzinfo is not None
    inside = next(line for line in lines if line["logger"] == "app.test")
    # A line written while handling a request carries its id.
    assert inside["message"] == "inside the handler" and inside["request_id"] == "log-2"
    assert inside["level"] == "WARNING"


def test_a_log_line_with_an_exception_is_one_json_line() -> None:
    try:
        raise ValueError("broken")
    except ValueError:
        record = logging.getLogger("app.x").makeRecord(
            "app.x",
            logging.ERROR,
            __file__,
            1,
            "failed: %s",
            ("why",),
            exc_info=__import__("sys").exc_info(),
        )
    text = JsonFormatter().format(record)
    assert "\n" not in text
    line = json.loads(text)
    assert line["message"] == "failed: why" and "ValueError: broken" in line["exception"]


def test_the_database_url_is_logged_without_its_password(caplog: pytest.LogCaptureFixture) -> None:
    assert masked_url("postgresql+asyncpg://ada:s3cret@db.example:5432/sol") == (
        "postgresql+asyncpg://ada:***@db.example:5432/sol"
    )
    assert masked_url("sqlite+aiosqlite:///data/x.sqlite3") == "sqlite+aiosqlite:///data/x.sqlite3"
    assert "s3cret" not in masked_url("not a url s3cret")


async def test_start_up_says_where_the_database_is_and_what_is_prepared(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:

    from app.main import create_app

    with caplog.at_level(logging.INFO, logger="app.main"):
        async with running(create_app(settings)):
            pass
    messages = [r.getMessage() for r in caplog.records if r.name == "app.main"]
    scheme = settings.resolved_database_url.split("://", 1)[0]  # SQLite or PostgreSQL
    assert any(m.startswith(f"database: {scheme}://") for m in messages), messages
    (work,) = [m for m in messages if m.startswith("background work: ")]
    assert "daily deals on first request" in work and "solvable pools proven on request" in work
    with caplog.at_level(logging.INFO, logger="app.main"):
        async with running(create_app(settings.model_copy(update={"background_work": False}))):
            pass
    messages = [r.getMessage() for r in caplog.records if r.name == "app.main"]
    assert any("BACKGROUND_WORK=false" in m and "app.worker" in m for m in messages), messages


# --- .env.example ----------------------------------------------------------------------


def test_env_example_lists_every_setting_with_its_default() -> None:
    lines = (ROOT / ".env.example").read_text().splitlines()
    assigned: dict[str, str] = {}
    for number, line in enumerate(lines):
        match = re.fullmatch(r"# ([A-Z_]+)=(.*)", line)
        if match:
            assigned[match.group(1)] = match.group(2)
            # One line saying what it does, just above.
            above = lines[number - 1]
            assert above.startswith("# ") and not re.fullmatch(r"# [A-Z_]+=.*", above), line
    assert set(assigned) == {name.upper() for name in Settings.model_fields}
    for name, field in Settings.model_fields.items():
        default = field.default
        if name == "seeds_dir":
            continue  # the repository's seeds/, wherever it is
        if isinstance(default, bool):
            default = str(default).lower()
        if default is None:
            default = ""  # unset: written as an empty value
        assert assigned[name.upper()] == str(default), name
    # Copied to .env as it is, it changes nothing: every assignment is commented out.
    assert not [line for line in lines if re.match(r"[A-Z_]+=", line)]
