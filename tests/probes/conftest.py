"""Fixtures for the probes: a real server on 127.0.0.1 over the test database.

`TEST_DATABASE_URL` (PostgreSQL) is shared with tests/api: the same session fixture
logic drops and migrates its schema, and the tables are emptied before each probe.
Without it each probe gets a fresh SQLite file (the server migrates it at start-up).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.api.conftest import database_url, empty_tables  # noqa: F401  (shared fixture)
from tests.probes.server import Server, Worker

MakeServer = Callable[..., Server]


@pytest.fixture
def probe_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if not os.environ.get("TEST_DATABASE_URL"):
        return f"sqlite+aiosqlite:///{tmp_path / 'probe.sqlite3'}"
    url: str = request.getfixturevalue("database_url")
    asyncio.run(empty_tables(url))
    return url


@pytest.fixture
def make_server(probe_database_url: str, tmp_path: Path) -> Iterator[MakeServer]:
    """Builds servers on the probe database; every one is killed at teardown."""
    servers: list[Server] = []

    def make(worker: bool = False, **env: str) -> Server:
        kind = Worker if worker else Server
        server = kind(probe_database_url, tmp_path / "data", **env)
        servers.append(server)
        return server

    try:
        yield make
    finally:
        for server in servers:
            server.kill()
