"""Clients that leave early are logged as such: an access line with status 499 (nginx's
"client closed request"), never 500, and no traceback; traffic only on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from typing import Any

import httpx

from tests.probes.server import Server
from tests.server.conftest import StartServer, connect

POST = (
    b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
    b"content-length: %d\r\n\r\n"
)


def log_lines(server: Server) -> list[dict[str, Any]]:
    return [json.loads(line) for line in server.log_path.read_text().splitlines() if line]


def access_lines(server: Server, count: int, seconds: float = 10.0) -> list[dict[str, Any]]:
    """The server's access lines once there are `count` of them (then a moment more, for
    any error line that follows)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        lines = [line for line in log_lines(server) if line["logger"] == "app.access"]
        if len(lines) >= count:
            time.sleep(0.5)
            return [line for line in log_lines(server) if line["logger"] == "app.access"]
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} access lines: {log_lines(server)[-5:]}")


def errors(server: Server) -> list[dict[str, Any]]:
    return [line for line in log_lines(server) if line["level"] == "ERROR" or "exception" in line]


def test_a_client_gone_mid_body_is_logged_499(start: StartServer) -> None:
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    before = len(access_lines(server, 1))  # the harness's /health
    sock = connect(server)
    sock.sendall(POST % 100 + b'{"na')
    time.sleep(0.2)
    sock.close()
    line = access_lines(server, before + 1)[-1]
    assert (line["method"], line["path"], line["status"]) == ("POST", "/api/v1/players", 499)
    assert "client disconnected" in line["message"]
    assert errors(server) == []


def test_a_pipelining_client_that_closes_logs_no_error(start: StartServer) -> None:
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    before = len(access_lines(server, 1))
    for _ in range(3):
        sock = connect(server)
        sock.sendall((POST % 2 + b"{}") * 10 + b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n" * 10)
        sock.shutdown(socket.SHUT_RDWR)
        sock.close()
    lines = access_lines(server, before + 1)
    time.sleep(1)  # what the last requests log
    assert errors(server) == []
    assert all(line["status"] != 500 for line in lines)


def _open_streams(server: Server, players: int) -> list[socket.socket]:
    """Eight streams (the most a player may hold) of each of `players` new players,
    each read up to its first event."""
    held: list[socket.socket] = []
    for deal in range(1, players + 1):
        token = httpx.post(f"{server.base_url}/api/v1/players", json={}).json()["token"]
        made = httpx.post(
            f"{server.base_url}/api/v1/games",
            json={"variant": "rainbow", "deal": deal},
            headers={"Authorization": f"Bearer {token}"},
        ).json()
        for _ in range(8):
            sock = connect(server)
            sock.sendall(
                b"GET /api/v1/games/%s/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s"
                b"\r\n\r\n" % (made["id"].encode(), token.encode())
            )
            held.append(sock)
    for sock in held:
        assert sock.recv(200).startswith(b"HTTP/1.1 200")
    return held


def test_streams_closed_all_at_once_log_no_error(start: StartServer) -> None:
    """Each stream reads the database every 10 ms here, so closing them cuts reads under
    way: each ends cleanly (its transaction's end is not cut; its connection is closed
    once), with no ERROR from the pool or asyncio."""
    server = start(SOLVABLE_PREPARE_AHEAD="false", STREAM_POLL_SECONDS="0.01")
    for _ in range(2):
        for sock in _open_streams(server, 5):
            sock.close()
        time.sleep(1)
    assert errors(server) == []
    assert httpx.get(f"{server.base_url}/health").status_code == 200


def test_a_slow_reader_is_dropped_without_an_error(start: StartServer) -> None:
    """A stream's reader that takes nothing while its game changes: once its socket is
    full for STREAM_SEND_TIMEOUT_SECONDS it is dropped (an INFO line), its connection
    closed at once, and no ERROR is logged."""
    server = start(SOLVABLE_PREPARE_AHEAD="false", STREAM_SEND_TIMEOUT_SECONDS="1")
    client = httpx.Client(base_url=server.base_url, timeout=30)
    token = client.post("/api/v1/players", json={}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    # Two decks: each change's event is larger (some 5 KB), the socket full sooner.
    game = {"variant": "forty-thieves", "deal": 3}
    state = client.post("/api/v1/games", json=game, headers=auth)
    game_id, move = state.json()["id"], state.json()["legal_moves"][0]
    reader = socket.socket()
    reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # and never read
    reader.connect(("127.0.0.1", server.port))
    reader.sendall(
        b"GET /api/v1/games/%s/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n"
        % (game_id.encode(), token.encode())
    )
    deadline = time.monotonic() + 90
    while "took nothing" not in server.log_path.read_text():  # some 3 MB of events
        assert time.monotonic() < deadline, "the slow reader was never dropped"
        for path in ("moves", "undo"):
            body = move if path == "moves" else None
            assert client.post(
                f"/api/v1/games/{game_id}/{path}", json=body, headers=auth
            ).is_success
    time.sleep(1)  # what the dropped stream logs
    assert errors(server) == []
    reader.settimeout(5)
    with contextlib.suppress(ConnectionResetError):
        while reader.recv(1 << 20):  # what was sent before the drop, then the end
            pass
    reader.close()
    client.close()
