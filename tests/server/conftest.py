"""A real server (`python -m app.server`, as `make run` starts it; see
tests/probes/server.py) on a free loopback port and a SQLite file of its own, for what
only real connections show: timeouts, the HTTP parser's refusals, worker processes. A
module's tests that ask for the same settings share one server."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator

import pytest

from tests.probes.server import Server

StartServer = Callable[..., Server]


def connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=30)


Running = dict[tuple[tuple[str, str], ...], Server]


@pytest.fixture(scope="module")
def running_servers() -> Iterator[Running]:
    """The module's servers by their extra settings; every one (and its process group)
    is killed once the module's tests are done."""
    servers: Running = {}
    try:
        yield servers
    finally:
        for server in servers.values():
            server.kill()


@pytest.fixture
def start(
    running_servers: Running, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StartServer]:
    """Starts a server with extra settings, or gives the one a test of the same module
    started with the same settings, while it runs (a start takes seconds); each has a
    SQLite file and a log of its own."""

    def make(**env: str) -> Server:
        key = tuple(sorted(env.items()))
        server = running_servers.get(key)
        if server is not None and server.process is not None and server.process.poll() is None:
            return server
        if server is not None:  # ended (a test killed it): its process group too
            server.kill()
        folder = tmp_path_factory.mktemp("server")
        server = Server(f"sqlite+aiosqlite:///{folder / 'server.sqlite3'}", folder, **env)
        running_servers[key] = server
        server.start(timeout=60)
        return server

    yield make
