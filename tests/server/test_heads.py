"""Request heads and connections a real server bounds (`MAX_HEADER_BYTES`,
`MAX_HEADERS`, `MAX_CONNECTIONS`): refused in the envelope before they are buffered;
traffic only on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket

import httpx

from tests.server.conftest import StartServer, connect
from tests.server.test_connections import envelope, read_all


def refused(answer: bytes) -> tuple[int, str]:
    status, body = envelope(answer)
    return status, body["error"]["code"]  # type: ignore[index]


def send_head(sock: socket.socket, head: bytes) -> bytes:
    """Sends `head` (the server may close before it has all of it) and reads the answer."""
    with contextlib.suppress(OSError):
        sock.sendall(head)
    return read_all(sock)


def test_a_head_over_max_header_bytes_is_431_and_closed(start: StartServer) -> None:
    server = start(MAX_HEADER_BYTES="4096")
    line = b"GET /health HTTP/1.1\r\nHost: x\r\n"
    # At the limit (request line and headers, up to the blank line): served.
    filler = b"x-pad: " + b"a" * (4096 - len(line) - len(b"x-pad: \r\n\r\n")) + b"\r\n\r\n"
    assert len(line + filler) == 4096
    sock = connect(server)
    sock.sendall(line + filler)
    assert sock.recv(100).startswith(b"HTTP/1.1 200")
    sock.close()
    for head in (
        line + b"x-pad: " + b"a" * 4096 + b"\r\n\r\n",  # complete, one byte and more over
        line + b"x-pad: " + b"a" * 1_000_000,  # a 1 MB header never finished
        b"GET /" + b"a" * 200_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # an over-long URL
    ):
        answer = send_head(connect(server), head)
        assert refused(answer) == (431, "request_header_too_large"), head[:40]
        assert not answer.endswith(b"<still open>")
    assert httpx.get(f"{server.base_url}/health").status_code == 200


def test_more_than_max_headers_is_431(start: StartServer) -> None:
    server = start(MAX_HEADERS="20")
    request = b"GET /health HTTP/1.1\r\nHost: x\r\n"
    sock = connect(server)
    sock.sendall(request + b"".join(b"x-h%d: 1\r\n" % i for i in range(19)) + b"\r\n")
    assert sock.recv(100).startswith(b"HTTP/1.1 200")  # 20 headers: served
    sock.close()
    many = request + b"".join(b"x-h%d: 1\r\n" % i for i in range(20)) + b"\r\n"
    answer = send_head(connect(server), many)
    assert refused(answer) == (431, "request_header_too_large")
    assert not answer.endswith(b"<still open>")


def test_the_default_head_limits_refuse_5000_headers(start: StartServer) -> None:
    server = start()
    many = b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"x-h: 1\r\n" * 5000 + b"\r\n"
    assert refused(send_head(connect(server), many)) == (431, "request_header_too_large")


def test_connections_over_max_connections_are_503_and_closed(start: StartServer) -> None:
    server = start(MAX_CONNECTIONS="4")
    held = [connect(server) for _ in range(4)]
    held[0].sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert held[0].recv(100).startswith(b"HTTP/1.1 200")  # the held ones are served
    extra = connect(server)
    # Refused as it is accepted, before it sends anything.
    answer = read_all(extra)
    assert refused(answer) == (503, "too_many_connections")
    assert not answer.endswith(b"<still open>")
    held.pop().close()
    with contextlib.suppress(OSError):
        read_all(connect(server), 0.5)  # the count goes down as connections close
    again = connect(server)
    again.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert again.recv(100).startswith(b"HTTP/1.1 200")
    for sock in held + [again]:
        sock.close()


def test_heads_are_counted_one_by_one_on_a_kept_connection(start: StartServer) -> None:
    """Pipelined requests (a body between heads, all in one send) together far over
    `MAX_HEADER_BYTES`: each head is within it, so each is answered."""
    server = start(MAX_HEADER_BYTES="2048")
    body = b'{"name": "ada"}'
    post = (
        b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
        b"x-pad: " + b"a" * 1500 + b"\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
    )
    sock = connect(server)
    sock.sendall(post * 6 + b"GET /health HTTP/1.1\r\nHost: x\r\nconnection: close\r\n\r\n")
    answer = read_all(sock)
    assert answer.count(b"HTTP/1.1 201") == 6 and answer.count(b"HTTP/1.1 200") == 1, answer
