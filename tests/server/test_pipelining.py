"""Every answer owed is sent: requests pipelined before a head the server refuses (too
large, too slow, unreadable) are answered, in order, before the refusal, which then
closes the connection; traffic only on 127.0.0.1, on raw sockets."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import httpx

from tests.probes.server import Server
from tests.server.conftest import StartServer, connect
from tests.server.test_connections import read_all

Answer = tuple[int, dict[str, str], bytes]


def answers(data: bytes) -> list[Answer]:
    """The HTTP/1.1 answers in `data`, in order (Content-Length or chunked bodies)."""
    found: list[Answer] = []
    while data.startswith(b"HTTP/1.1 "):
        head, _, data = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])
        }
        if "content-length" in headers:
            size = int(headers["content-length"])
            body, data = data[:size], data[size:]
        else:
            assert headers.get("transfer-encoding") == "chunked", headers
            body = b""
            while True:
                size_line, _, data = data.partition(b"\r\n")
                size = int(size_line, 16)
                body += data[:size]
                data = data[size + 2 :]
                if size == 0:
                    break
        found.append((int(lines[0].split(" ")[1]), headers, body))
    assert data in (b"", b"<still open>"), data[:200]
    return found


def game(server: Server) -> tuple[dict[str, str], dict[str, Any]]:
    token = httpx.post(f"{server.base_url}/api/v1/players", json={}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    made = httpx.post(
        f"{server.base_url}/api/v1/games", json={"variant": "rainbow", "deal": 3}, headers=auth
    )
    assert made.status_code == 201, made.text
    return auth, made.json()


def move_request(auth: dict[str, str], state: dict[str, Any]) -> bytes:
    body = json.dumps(state["legal_moves"][0]).encode()
    return (
        b"POST /api/v1/games/%s/moves HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n"
        b"content-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
        % (state["id"].encode(), auth["Authorization"].encode(), len(body), body)
    )


def version(server: Server, auth: dict[str, str], game_id: str) -> int:
    return int(
        httpx.get(f"{server.base_url}/api/v1/games/{game_id}", headers=auth).json()["version"]
    )


def send(server: Server, data: bytes, seconds: float = 10.0) -> list[Answer]:
    sock = connect(server)
    with contextlib.suppress(OSError):  # the server may close before it has all of it
        sock.sendall(data)
    try:
        return answers(read_all(sock, seconds))
    finally:
        sock.close()


def codes(found: list[Answer]) -> list[tuple[int, str | None]]:
    return [
        (status, json.loads(body)["error"]["code"] if status >= 400 else None)
        for status, _, body in found
    ]


def test_pipelined_requests_are_answered_before_an_oversize_heads_431(
    start: StartServer,
) -> None:
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    auth, state = game(server)
    oversize = b"GET /health HTTP/1.1\r\nHost: x\r\nx-pad: " + b"a" * 1_000_000 + b"\r\n\r\n"
    get = b"GET /api/v1/games/%s HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n\r\n" % (
        state["id"].encode(),
        auth["Authorization"].encode(),
    )
    found = send(server, move_request(auth, state) + get + oversize)
    assert codes(found) == [(200, None), (200, None), (431, "request_header_too_large")]
    assert json.loads(found[0][2])["version"] == json.loads(found[1][2])["version"] == 1
    assert found[2][1]["connection"] == "close" and found[2][1]["x-request-id"]
    assert version(server, auth, state["id"]) == 1


def test_a_pipelined_request_is_answered_before_too_many_headers_431(
    start: StartServer,
) -> None:
    server = start(SOLVABLE_PREPARE_AHEAD="false", MAX_HEADERS="20")
    auth, state = game(server)
    many = b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"x-h: 1\r\n" * 30 + b"\r\n"
    found = send(server, move_request(auth, state) + many)
    assert codes(found) == [(200, None), (431, "request_header_too_large")]


def test_a_pipelined_request_is_answered_before_an_unreadable_heads_400(
    start: StartServer,
) -> None:
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    auth, state = game(server)
    found = send(server, move_request(auth, state) + b"FOO /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert codes(found) == [(200, None), (400, "bad_request")]
    assert version(server, auth, state["id"]) == 1


def test_a_head_begun_behind_a_request_gets_its_408_not_the_keep_alive_close(
    start: StartServer,
) -> None:
    """The keep-alive time (idle between requests) does not cut a head already begun."""
    server = start(
        SOLVABLE_PREPARE_AHEAD="false", KEEP_ALIVE_SECONDS="0.5", HEADER_TIMEOUT_SECONDS="2"
    )
    auth, state = game(server)
    started = time.monotonic()
    found = send(server, move_request(auth, state) + b"GET /health HTTP/1.1\r\nHost: x\r\n")
    assert codes(found) == [(200, None), (408, "request_timeout")]
    assert time.monotonic() - started >= 1.5


def test_a_slow_pipelined_answer_is_finished_before_a_heads_408(start: StartServer) -> None:
    """A stream (the slowest answer: it ends after STREAM_MAX_SECONDS) pipelined before
    a head that times out meanwhile: the stream runs to its end, then the 408."""
    server = start(
        SOLVABLE_PREPARE_AHEAD="false", HEADER_TIMEOUT_SECONDS="1", STREAM_MAX_SECONDS="3"
    )
    auth, state = game(server)
    events = b"GET /api/v1/games/%s/events HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n\r\n" % (
        state["id"].encode(),
        auth["Authorization"].encode(),
    )
    found = send(server, events + b"GET /health HTTP/1.1\r\nHost: x\r\n")
    assert codes(found) == [(200, None), (408, "request_timeout")]
    assert b"event: state" in found[0][2]
