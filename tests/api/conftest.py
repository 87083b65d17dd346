"""Fixtures for the API tests: the app over ASGI on a database migrated by Alembic.

`TEST_DATABASE_URL` picks the database (e.g. `postgresql+asyncpg://...`); by default
a fresh SQLite file. The schema is dropped and migrated afresh once per session, and
every table is emptied before each test.
"""

from __future__ import annotations

import asyncio
import copy
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from app.config import Settings
from app.db import is_sqlite, upgrade_to_head
from app.main import create_app
from tests.api import conformance
from tests.api.sse_helpers import StreamingASGITransport

TABLES = (
    "game_analyses",
    "revealed_positions",
    "solver_positions",
    "solver_lines",
    "jobs",
    "auth_failures",
    "player_creations",
    "solvable_deals",
    "idempotency_keys",
    "moves",
    "games",
    "players",
)
API = "/api/v1"


# --- every answer compared with the API document (tests/api/conformance.py) -----------

_answers: list[tuple[dict[str, Any], conformance.Answer]] = []


class _Replay(httpx.AsyncByteStream):
    """A body already read from the app, handed on as it came (still encoded)."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body


# The documents of the apps the tests built, by their routes (`_routes_of`): every test
# builds its own app, and FastAPI takes about a second to write an app's document, the
# same for every app of the same routes (the settings change none of it).
_documents: dict[tuple[Any, ...], dict[str, Any]] = {}


def _route_key(route: Any) -> tuple[Any, ...]:
    """A route's path, methods, name, endpoint and what it declares; an included
    router's routes, each so."""
    inner = getattr(route, "original_router", None)
    if inner is not None:
        context = getattr(route, "include_context", None)
        return (
            "router",
            id(inner),
            getattr(context, "prefix", None),
            getattr(context, "include_in_schema", None),
            tuple(_route_key(r) for r in inner.routes),
        )
    endpoint = getattr(route, "endpoint", None)
    return (
        type(route).__name__,
        getattr(route, "path", None),
        tuple(sorted(getattr(route, "methods", None) or ())),
        getattr(route, "name", None),
        getattr(route, "include_in_schema", None),
        f"{getattr(endpoint, '__module__', '')}.{getattr(endpoint, '__qualname__', '')}",
        repr(getattr(route, "responses", None)),
        getattr(route, "status_code", None),
    )


def _routes_of(app: Any) -> tuple[Any, ...]:
    """What an app's document is made from: its routes (a route a test adds makes
    another document)."""
    return tuple(_route_key(route) for route in app.routes)


def _document_of(app: Any) -> dict[str, Any] | None:
    """The app's document: its own where it wrote one, else that of the first app of
    the same routes."""
    openapi = getattr(app, "openapi", None)
    if openapi is None:
        return None
    own: dict[str, Any] | None = getattr(app, "openapi_schema", None)
    if own:
        return own
    key = _routes_of(app)
    if key not in _documents:
        _documents[key] = copy.deepcopy(openapi())
    return _documents[key]


async def _recorded(
    app: Any, request: httpx.Request, response: httpx.Response, *, whole: bool
) -> httpx.Response:
    """Records `response` against the app's document, and returns it as the client
    would have had it. `whole`: its body is all there (ASGITransport), else a stream's
    body is read only when the answer is an error (a live stream's is endless)."""
    document = _document_of(app)
    if document is None:
        return response
    if whole or response.status_code >= 400:
        body = b"".join([chunk async for chunk in response.aiter_raw()])
        await response.aclose()
        response = httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Replay(body),
            extensions=response.extensions,
        )
        seen = httpx.Response(
            response.status_code, headers=response.headers, stream=_Replay(body), request=request
        )
        await seen.aread()
    else:
        seen = httpx.Response(response.status_code, headers=response.headers, request=request)
    answer = conformance.answer_of(document, seen)
    if answer is not None:
        _answers.append((document, answer))
    return response


def _recording(transport: type[httpx.AsyncBaseTransport], *, whole: bool) -> Any:
    handle = transport.handle_async_request

    async def handle_async_request(self: Any, request: httpx.Request) -> httpx.Response:
        return await _recorded(self.app, request, await handle(self, request), whole=whole)

    return handle_async_request


@pytest.fixture(autouse=True)
def answers_as_documented(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fails the test if an answer it got is not declared in the document for its
    operation (status, error code, headers): what a generated client cannot type."""
    for transport, whole in ((httpx.ASGITransport, True), (StreamingASGITransport, False)):
        monkeypatch.setattr(transport, "handle_async_request", _recording(transport, whole=whole))
    _answers.clear()
    yield
    found = sorted(
        {text for doc, answer in _answers for text in conformance.unexplained(doc, answer)}
    )
    _answers.clear()
    log = os.environ.get("CONFORMANCE_LOG")
    if log and found:
        with open(log, "a", encoding="utf-8") as out:
            out.writelines(f"{line}\n" for line in found)
    if found:
        pytest.fail("answers the API document does not declare:\n" + "\n".join(found))


async def _reset_schema(url: str) -> None:
    engine = create_async_engine(url)
    try:
        if not is_sqlite(url):
            async with engine.begin() as conn:
                await conn.execute(text("DROP SCHEMA public CASCADE"))
                await conn.execute(text("CREATE SCHEMA public"))
        await upgrade_to_head(engine)
    finally:
        await engine.dispose()


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        path = tmp_path_factory.mktemp("db") / "test.sqlite3"
        url = f"sqlite+aiosqlite:///{path}"
    else:
        url = asyncio.run(_database_of_this_worker(url))
    asyncio.run(_reset_schema(url))
    yield url


async def _database_of_this_worker(url: str) -> str:
    """Under pytest-xdist, each worker's own PostgreSQL database beside `url`'s (made
    when missing): the tests empty and fill the tables, which workers cannot share."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    shared = make_url(url)
    own = f"{shared.database}_{worker}"
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            exists = await conn.scalar(
                text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": own}
            )
            if not exists:
                await conn.execute(text(f'CREATE DATABASE "{own}"'))
    finally:
        await engine.dispose()
    return shared.set(database=own).render_as_string(hide_password=False)


async def empty_tables(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            for table in TABLES:
                await conn.execute(text(f"DELETE FROM {table}"))
    finally:
        await engine.dispose()


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return settings_for(database_url, tmp_path)


def settings_for(database_url: str, tmp_path: Path, **changes: Any) -> Settings:
    """The tests' settings (an empty seeds folder, a data folder of the test's own),
    with `changes`: what a test file's own `settings` fixture returns."""
    seeds = tmp_path / "seeds"
    seeds.mkdir(exist_ok=True)
    values: dict[str, Any] = {
        "database_url": database_url,
        "data_dir": tmp_path / "data",
        "seeds_dir": seeds,
        "cors_origins": "https://front.example",
    }
    return Settings(**{**values, **changes})


# Seconds an app may take to start (migrations, the listening connection on PostgreSQL):
# asgi-lifespan's 5 s is too little on a loaded shared machine.
STARTUP_SECONDS = 60


def running(app: FastAPI) -> LifespanManager:
    """The app started, for an `async with` block."""
    return LifespanManager(app, startup_timeout=STARTUP_SECONDS)


@pytest.fixture
async def app(settings: Settings, database_url: str) -> AsyncIterator[FastAPI]:
    await empty_tables(database_url)
    application = create_app(settings)
    async with running(application):
        yield application


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


NewPlayer = Callable[..., Awaitable[dict[str, str]]]


@pytest.fixture
def new_player(client: httpx.AsyncClient) -> NewPlayer:
    """Registers a player and returns its Authorization header."""

    async def make(name: str | None = "ada") -> dict[str, str]:
        response = await client.post(f"{API}/players", json={"name": name})
        assert response.status_code == 201, response.text
        return {"Authorization": f"Bearer {response.json()['token']}"}

    return make


@pytest.fixture
async def auth(new_player: NewPlayer) -> dict[str, str]:
    return await new_player()


NewGame = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def new_game(client: httpx.AsyncClient, auth: dict[str, str]) -> NewGame:
    async def make(headers: dict[str, str] | None = None, **body: Any) -> dict[str, Any]:
        body.setdefault("variant", "rank-and-file")
        response = await client.post(f"{API}/games", json=body, headers=headers or auth)
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()
        return data

    return make


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The response is an error envelope with this status and code."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    error: dict[str, Any] = body["error"]
    return error
