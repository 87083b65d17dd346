"""A real server (`python -m app.server`, uvicorn) on a free loopback port, for what only
real connections show: timeouts, the HTTP parser's refusals, worker processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=30)


def start_server(tmp_path: Path, **env: str) -> Server:
    port = free_port()
    log = tmp_path / f"server-{port}.log"
    environment = {
        **os.environ,
        "DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'server.sqlite3'}",
        "DAILY_PREPARE_AHEAD": "false",
        **env,
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "app.server", "--port", str(port)],
            cwd=ROOT,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(process, port, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()}")
        try:
            if httpx.get(f"{server.url}/health", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    stop_server(server)
    raise RuntimeError(f"the server did not start: {log.read_text()}")


def stop_server(server: Server) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()


StartServer = Callable[..., Server]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[StartServer]:
    started: list[Server] = []

    def make(**env: str) -> Server:
        server = start_server(tmp_path, **env)
        started.append(server)
        return server

    yield make
    for server in started:
        stop_server(server)
