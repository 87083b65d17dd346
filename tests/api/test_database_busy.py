"""A database held by someone else past the wait bound: the request is answered 503
`database_busy` with `Retry-After` (as the API document declares it), nothing is
changed, `/health` says degraded until a write goes through again. On SQLite another
connection holds the write lock (an operator's shell, a backup); on PostgreSQL another
transaction holds the game's row."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.engine import make_url

from app.config import Settings
from app.db import WRITES, WriteHealth, is_sqlite
from tests.api.conftest import API, NewGame, assert_error, settings_for


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return settings_for(
        database_url, tmp_path, sqlite_busy_timeout_ms=200, postgres_lock_timeout_ms=200
    )


@pytest.fixture(autouse=True)
def fresh_write_health() -> Iterator[None]:
    WRITES.committed()
    yield
    WRITES.committed()


@asynccontextmanager
async def held_elsewhere(database_url: str, game_id: str) -> AsyncIterator[None]:
    """The game's write held by another connection for the block."""
    url = make_url(database_url)
    if is_sqlite(database_url):
        other = sqlite3.connect(str(url.database), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # the database's write lock
        try:
            yield
        finally:
            other.execute("ROLLBACK")
            other.close()
        return
    connection = await asyncpg.connect(
        host=url.host,
        port=url.port,
        user=url.username,
        password=url.password,
        database=url.database,
    )
    try:
        transaction = connection.transaction()
        await transaction.start()
        await connection.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id)
        yield
        await transaction.rollback()
    finally:
        await connection.close()


def documented_503(app: FastAPI, route: str, method: str) -> dict[str, Any]:
    answer: dict[str, Any] = app.openapi()["paths"][route][method]["responses"]["503"]
    return answer


async def test_a_move_on_a_held_database_is_503_database_busy_and_changes_nothing(
    app: FastAPI,
    client: httpx.AsyncClient,
    auth: dict[str, str],
    new_game: NewGame,
    database_url: str,
) -> None:
    game = await new_game(variant="canfield")
    moves = f"{API}/games/{game['id']}/moves"
    async with held_elsewhere(database_url, game["id"]):
        refused = await client.post(moves, json={"action": "draw"}, headers=auth)
        assert_error(refused, 503, "database_busy")
        assert int(refused.headers["Retry-After"]) >= 1
        health = await client.get("/health")
        assert health.status_code == 503
        assert health.json() == {"status": "degraded", "database": "busy"}
    # As the document says of the operation.
    documented = documented_503(app, "/api/v1/games/{game_id}/moves", "post")
    codes = documented["content"]["application/json"]["schema"]["allOf"][1]
    assert "database_busy" in codes["properties"]["error"]["properties"]["code"]["enum"]
    assert "Retry-After" in documented["headers"]
    # Nothing was changed; once the lock is free the same move goes through.
    assert (await client.get(f"{API}/games/{game['id']}", headers=auth)).json()["version"] == 0
    played = await client.post(moves, json={"action": "draw"}, headers=auth)
    assert played.status_code == 200, played.text
    assert (await client.get("/health")).json() == {"status": "ok", "database": "ok"}


async def test_writes_say_failing_until_one_commits_or_a_while_passes() -> None:
    health = WriteHealth(quiet_seconds=0.05)
    assert not health.failing
    health.refused()
    assert health.failing
    health.committed()
    assert not health.failing
    health.refused()
    await asyncio.sleep(0.06)  # an instance that writes seldom is not degraded for good
    assert not health.failing
