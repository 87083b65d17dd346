"""What a real server answers where it once answered outside the envelope: a WebSocket
upgrade (none is supported) and a path with a trailing slash; raw sockets on 127.0.0.1."""

from __future__ import annotations

import json

from tests.probes.server import Server
from tests.server.conftest import StartServer, connect
from tests.server.test_connections import read_all
from tests.server.test_pipelining import answers

UPGRADE = (
    b"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
)


def exchange(server: Server, raw: bytes) -> tuple[list[tuple[int, dict[str, str], bytes]], str]:
    sock = connect(server)
    sock.sendall(raw)
    data = read_all(sock)
    sock.close()
    return answers(data), server.log_path.read_text()


def test_a_websocket_upgrade_is_answered_as_http_in_the_envelope(start: StartServer) -> None:
    """An unknown path: 404 `not_found` in the envelope with its request id and access
    line, then the connection closes (what follows an upgrade head is not HTTP); a
    request sent after it is not read."""
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    raw = b"GET /nothing HTTP/1.1\r\nHost: x\r\n" + UPGRADE + b"\r\n"
    found, log = exchange(server, raw + b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert len(found) == 1, found
    status, headers, body = found[0]
    assert status == 404 and json.loads(body)["error"]["code"] == "not_found"
    assert headers["connection"] == "close"
    request_id = headers["x-request-id"]
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert any(line.get("request_id") == request_id and line.get("status") == 404 for line in lines)
    assert not [line for line in lines if line["level"] in ("WARNING", "ERROR")]


def test_a_websocket_upgrade_of_an_operation_gets_its_answer(start: StartServer) -> None:
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    found, _ = exchange(server, b"GET /api/v1/variants HTTP/1.1\r\nHost: x\r\n" + UPGRADE + b"\r\n")
    assert [status for status, _, _ in found] == [200]
    assert isinstance(json.loads(found[0][2]), list)


def test_a_trailing_slash_is_404_and_never_echoes_the_host(start: StartServer) -> None:
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    for path in (b"/metrics/", b"/api/v1/variants/", b"/health/"):
        found, _ = exchange(
            server, b"GET %s HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n" % path
        )
        assert len(found) == 1
        status, headers, body = found[0]
        assert status == 404 and json.loads(body)["error"]["code"] == "not_found", path
        assert "location" not in headers and headers["x-request-id"]


def test_the_web_clients_redirect_is_relative(start: StartServer) -> None:
    server = start(SOLVABLE_PREPARE_AHEAD="false")
    found, _ = exchange(
        server, b"GET /play HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
    )
    assert [(status, headers["location"]) for status, headers, _ in found] == [(308, "/play/")]
