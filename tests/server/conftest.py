"""A real server (`python -m app.server`, as `make run` starts it; see
tests/probes/server.py) on a free loopback port and a SQLite file of its own, for what
only real connections show: timeouts, the HTTP parser's refusals, worker processes."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.probes.server import Server

StartServer = Callable[..., Server]


def connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=30)


@pytest.fixture
def start(tmp_path: Path) -> Iterator[StartServer]:
    """Starts servers with extra settings; every one (and its process group) is killed
    at teardown."""
    started: list[Server] = []

    def make(**env: str) -> Server:
        server = Server(f"sqlite+aiosqlite:///{tmp_path / 'server.sqlite3'}", tmp_path, **env)
        started.append(server)
        server.start(timeout=60)
        return server

    try:
        yield make
    finally:
        for server in started:
            server.kill()
