"""Cross-cutting behaviour: error envelope everywhere, CORS, docs, health, OpenAPI, schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi import FastAPI
from openapi_spec_validator import validate
from sqlalchemy import Connection, inspect, text
from sqlalchemy.ext.asyncio import create_async_engine

from app.config import Settings
from app.db import upgrade_to_head
from app.main import create_app
from app.models import Base
from tests.api.conftest import API, assert_error, running
from tests.api.helpers import get_with_sqlite_gone

ROOT = Path(__file__).resolve().parents[2]


async def test_unknown_route_and_method(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/nowhere"), 404, "not_found")
    assert_error(await client.get(f"{API}/games/x/nothing"), 404, "not_found")
    response = await client.delete(f"{API}/variants")
    assert_error(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]


async def test_internal_error_hides_details(app: FastAPI) -> None:
    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("secret internals: stock is 7H 8C")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/boom")
    error = assert_error(response, 500, "internal_error")
    assert "secret" not in response.text and "7H" not in error["message"]


async def test_too_many_requests_envelope(app: FastAPI, client: httpx.AsyncClient) -> None:
    """429 (the solver pool's `solver_busy`) goes through the same envelope, with Retry-After
    readable by browsers."""
    from app.errors import SolverBusy

    @app.get("/busy")
    async def busy() -> None:
        raise SolverBusy(headers={"Retry-After": "2"})

    response = await client.get("/busy", headers={"Origin": "https://front.example"})
    assert_error(response, 429, "solver_busy")
    assert response.headers["Retry-After"] == "2"
    assert "retry-after" in response.headers["access-control-expose-headers"].lower()


async def test_cors(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    origin = "https://front.example"
    preflight = await client.options(
        f"{API}/games",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,idempotency-key",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == origin
    response = await client.get(f"{API}/variants", headers={"Origin": origin})
    exposed = {
        h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")
    }
    assert {"etag", "retry-after"} <= exposed
    stranger = await client.get(f"{API}/variants", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in stranger.headers


async def test_docs_work_offline(client: httpx.AsyncClient) -> None:
    for page in ("/docs", "/redoc"):
        response = await client.get(page)
        assert response.status_code == 200
        assert not re.search(r"https?://(?!test/)", response.text), page
        for asset in re.findall(r'(?:src|href)="([^"]+)"', response.text):
            if asset.startswith("/"):
                assert (await client.get(asset)).status_code == 200, asset
    assert (await client.get("/openapi.json")).status_code == 200


async def test_health(client: httpx.AsyncClient) -> None:
    for path in (f"{API}/health", "/health"):
        response = await client.get(path)
        assert response.status_code == 200
        assert response.json() == {"status": "ok", "database": "ok"}


async def test_health_reports_unreachable_database(tmp_path: Path) -> None:
    app = create_app(
        Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/h.sqlite3", data_dir=tmp_path)
    )
    async with running(app):
        response = await get_with_sqlite_gone(app, tmp_path / "h.sqlite3", "/health")
    assert response.status_code == 503
    assert response.json() == {"status": "degraded", "database": "unreachable"}


def test_openapi_document_is_current() -> None:
    committed = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    served = create_app().openapi()
    assert served == committed, "run: python scripts/export_openapi.py"


def test_openapi_operation_ids_and_errors() -> None:
    document = create_app().openapi()
    ids = {op["operationId"] for path in document["paths"].values() for op in path.values()}
    assert {
        "create_player",
        "get_current_player",
        "list_variants",
        "get_variant",
        "create_game",
        "list_games",
        "get_game",
        "update_game",
        "make_move",
        "undo_move",
        "list_moves",
        "health",
    } <= ids
    for path in document["paths"].values():
        for operation in path.values():
            for status, answer in operation["responses"].items():
                if status.startswith(("4", "5")) and status != "503":
                    # The envelope, its code narrowed to the answer's (test_typed_errors).
                    schema = answer["content"]["application/json"]["schema"]
                    assert schema["allOf"][0] == {"$ref": "#/components/schemas/ErrorResponse"}


def test_the_document_is_valid_openapi() -> None:
    """openapi-spec-validator accepts the committed document (Redocly's recommended
    rules run on it in .ci/run, scripts/check_openapi.sh)."""
    validate(json.loads((ROOT / "openapi" / "openapi.json").read_text()))


def test_the_document_says_who_may_call_each_operation() -> None:
    """Every operation states its security: none for public ones, the token where it is
    required; the document's default is "a token or none", for the optional ones."""
    document = create_app().openapi()
    assert document["security"] == [{}, {"HTTPBearer": []}]
    assert document["servers"] and document["info"]["license"]["name"]
    says = {
        op["operationId"]: op.get("security")
        for path in document["paths"].values()
        for op in path.values()
    }
    assert says["create_player"] == says["list_variants"] == says["health"] == []
    assert says["get_daily_results"] is None  # optional: the document's default
    assert says["create_game"] == says["make_move"] == [{"HTTPBearer": []}]
    for name, security in says.items():
        assert security in ([], [{"HTTPBearer": []}], None), name
    # Every operation lists 4xx answers (at least those refused before it runs).
    for path in document["paths"].values():
        for operation in path.values():
            assert any(status.startswith("4") for status in operation["responses"])


def test_secret_key_is_generated_once(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "d")
    first = settings.resolved_secret_key()
    assert len(first) >= 40
    assert Settings(data_dir=tmp_path / "d").resolved_secret_key() == first
    assert Settings(data_dir=tmp_path / "d", secret_key="given").resolved_secret_key() == "given"
    assert (tmp_path / "d" / "secret_key").stat().st_mode & 0o077 == 0


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_migrations_match_models(database_url: str, tmp_path: Path) -> None:
    # The session database was migrated from empty; also migrate a brand-new SQLite file.
    for url in {database_url, f"sqlite+aiosqlite:///{tmp_path}/fresh.sqlite3"}:
        engine = create_async_engine(url)
        try:
            await upgrade_to_head(engine)
            async with engine.connect() as conn:
                tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
                assert {
                    "players",
                    "games",
                    "moves",
                    "idempotency_keys",
                    "alembic_version",
                } <= tables
                assert await conn.run_sync(_diff) == []
        finally:
            await engine.dispose()


async def test_the_lost_positions_proven_before_the_draw_three_fix_are_forgotten(
    tmp_path: Path,
) -> None:
    """Migration 0007: every lost fact goes (some Canfield ones may be wrong, and the key
    cannot tell the game); the winning lines and their positions stay."""
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path}/old.sqlite3")
    try:
        await upgrade_to_head(engine, "0006")
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO solver_lines (id, variant, source, moves, length, created_at)"
                    " VALUES (1, 'canfield', 'search', 'draw', 1, '2026-12-03 00:00:00')"
                )
            )
            for key, line in ((b"w" * 16, 1), (b"l" * 16, None)):
                await conn.execute(
                    text(
                        "INSERT INTO solver_positions (key, line_id, at, created_at)"
                        " VALUES (:key, :line, 0, '2026-12-03 00:00:00')"
                    ),
                    {"key": key, "line": line},
                )
        await upgrade_to_head(engine)
        async with engine.connect() as conn:
            kept = (await conn.execute(text("SELECT key FROM solver_positions"))).scalars().all()
        assert kept == [b"w" * 16]
    finally:
        await engine.dispose()


async def test_the_past_dates_daily_games_stored_become_practice(tmp_path: Path) -> None:
    """Migration 0016: a daily game started after its date (not ranked) is practice; one
    started on its date (ranked or not) and every other game stay counted."""
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path}/old.sqlite3")
    try:
        await upgrade_to_head(engine, "0015_player_creations")
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO players (id, name, token_hash, created_at) VALUES"
                    " ('p', 'ada', 'h', '2026-12-01 00:00:00')"
                )
            )
            games = [
                ("past", "2026-12-02", "2026-12-04 10:00:00", False),
                ("late-unranked", "2026-12-02", "2026-12-02 23:59:00", False),
                ("ranked", "2026-12-03", "2026-12-03 08:00:00", True),
                ("plain", None, "2026-12-04 10:00:00", False),
            ]
            for game_id, day, created, ranked in games:
                await conn.execute(
                    text(
                        "INSERT INTO games (id, player_id, variant, deal, source, rules,"
                        " settings, status, version, move_count, state, created_at,"
                        " updated_at, daily_date, ranked, daily_slot)"
                        " VALUES (:id, 'p', 'canfield', '1', 'daily', '{}', '{}', 'playing',"
                        " 0, 0, x'00', :created, :created, :day, :ranked, :id)"
                    ),
                    {"id": game_id, "created": created, "day": day, "ranked": ranked},
                )
        await upgrade_to_head(engine)
        async with engine.connect() as conn:
            rows = await conn.execute(text("SELECT id, practice FROM games ORDER BY id"))
            practice = {game_id: bool(flag) for game_id, flag in rows}
        assert practice == {
            "late-unranked": False,
            "past": True,
            "plain": False,
            "ranked": False,
        }
    finally:
        await engine.dispose()
