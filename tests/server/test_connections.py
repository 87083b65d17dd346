"""Connections a real server must not keep, and refusals of its HTTP parser, in the
envelope; traffic only on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import time
from pathlib import Path

import httpx

from tests.probes.server import Server
from tests.server.conftest import StartServer, connect

TIMEOUTS = {
    "HEADER_TIMEOUT_SECONDS": "1",
    "KEEP_ALIVE_SECONDS": "1",
    "BODY_TIMEOUT_SECONDS": "1",
}


def server_pid(server: Server) -> int:
    assert server.process is not None
    return server.process.pid


def read_all(sock: socket.socket, seconds: float = 5.0) -> bytes:
    """Everything the server sends until it closes the connection (or `seconds` pass:
    then the connection is still open, and the test fails on what it got)."""
    sock.settimeout(seconds)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        return data + b"<still open>"
    except ConnectionResetError:
        pass
    return data


def envelope(answer: bytes) -> tuple[int, dict[str, object]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    assert b"content-type: application/json" in head.lower(), answer
    payload: dict[str, object] = json.loads(body)
    return status, payload


def test_idle_and_half_sent_connections_are_closed(start: StartServer) -> None:
    server = start(**TIMEOUTS)
    idle = [connect(server) for _ in range(50)]
    half = [connect(server) for _ in range(50)]
    for sock in half:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # no blank line: head unfinished
    started = time.monotonic()
    answers = [read_all(sock) for sock in idle + half]
    assert time.monotonic() - started < 8
    for answer in answers:
        status, body = envelope(answer)
        assert status == 408 and body["error"]["code"] == "request_timeout"  # type: ignore[index]
    # The server still serves.
    assert httpx.get(f"{server.base_url}/health").status_code == 200


def test_an_idle_keep_alive_connection_is_closed(start: StartServer) -> None:
    server = start(**TIMEOUTS)
    sock = connect(server)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = read_all(sock)  # the answer, then the close after the keep-alive time
    assert answer.startswith(b"HTTP/1.1 200")
    assert not answer.endswith(b"<still open>")


def test_a_body_sent_too_slowly_is_408(start: StartServer) -> None:
    server = start(**TIMEOUTS)
    sock = connect(server)
    sock.sendall(
        b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
        b"content-length: 20\r\n\r\n{"
    )
    status, body = envelope(read_all(sock))
    assert status == 408 and body["error"]["code"] == "request_timeout"  # type: ignore[index]


def test_requests_the_parser_refuses_answer_in_the_envelope(start: StartServer) -> None:
    server = start()
    for raw in (
        b"FOO /health HTTP/1.1\r\nHost: x\r\n\r\n",  # a method HTTP does not know
        b"GET /health HTTP/9.9\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64,  # TLS to plain HTTP
    ):
        sock = connect(server)
        sock.sendall(raw)
        status, body = envelope(read_all(sock))
        assert status == 400 and body["error"]["code"] == "bad_request", raw[:20]  # type: ignore[index]


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_huge_declared_body_is_refused_unread(start: StartServer) -> None:
    server = start()
    before = _rss_kib(server_pid(server))
    for _ in range(8):
        sock = connect(server)
        sock.sendall(
            b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
            b"content-length: 52428800\r\n\r\n"
        )
        # The answer comes before any of the body is sent: it is refused unread.
        status, body = envelope(read_all(sock))
        assert status == 413 and body["error"]["code"] == "payload_too_large"  # type: ignore[index]
        with contextlib.suppress(OSError):  # the server has closed: sending may fail
            sock.sendall(b" " * 1_000_000)
    # 8 x 50 MB announced: the server buffered next to nothing of it.
    assert _rss_kib(server_pid(server)) - before < 20_000


def _children(pid: int) -> set[int]:
    """Every live descendant of `pid`, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_workers_end_when_the_server_is_killed(start: StartServer, tmp_path: Path) -> None:
    server: Server = start(
        DAILY_PREPARE_AHEAD="true", DAILY_WORKERS="1", SOLVER_KIND="process", SOLVER_WORKERS="1"
    )
    token = httpx.post(f"{server.base_url}/api/v1/players", json={}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    game = httpx.post(
        f"{server.base_url}/api/v1/games", json={"variant": "rainbow", "deal": 3}, headers=auth
    ).json()
    assert httpx.post(
        f"{server.base_url}/api/v1/games/{game['id']}/hint", headers=auth, timeout=60
    ).status_code in (200, 429)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline:  # the daily pool and the solver pool, at least
        workers = _children(server_pid(server))
        if len(workers) >= 3:
            break
        time.sleep(0.5)
    assert len(workers) >= 3, workers
    # The server alone, not its process group: the workers must end by themselves.
    os.kill(server_pid(server), signal.SIGKILL)
    assert server.process is not None
    server.process.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.2)
    assert not [pid for pid in workers if _alive(pid)]


def test_the_server_log_shows_the_apps_start_up_lines(start: StartServer) -> None:
    """`make run`'s server logs what it starts with (the app's INFO lines are shown)."""
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    assert "database: sqlite+aiosqlite:///" in server.log_path.read_text()
