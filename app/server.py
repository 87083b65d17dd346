"""`python -m app.server`: uvicorn with the limits a public server needs.

uvicorn closes a connection that idles after a response (`timeout_keep_alive`), but not
one that never sends a request, or sends half a request head and stops: 200 such
connections stayed open for good. `GuardedHttpToolsProtocol` adds a deadline for the
request head, and answers a head it cannot parse (an unknown method, a broken line) in
the API's error envelope instead of uvicorn's plain text.

Nor does uvicorn bound a request head (httptools buffers a header of any length: eight
connections each sending a 50 MB header took a server from 133 MB to 569 MB), or the
number of connections. The protocol counts the bytes of each head as they arrive and
its headers as they are parsed, and refuses a head over `MAX_HEADER_BYTES` or
`MAX_HEADERS` with 431 before it holds more of it; a connection beyond
`MAX_CONNECTIONS` is answered 503 as it is accepted. Each refusal closes the connection.

A refusal never takes the place of an answer owed: with pipelining (requests sent before
their answers came), the requests read before a refused head are answered first, in
order, then the refusal is sent and the connection closed; nothing after the refused
head is read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

import httptools
import uvicorn
from uvicorn._types import ASGI3Application
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from app.config import Settings, get_settings
from app.errors import RequestHeaderTooLarge, TooManyConnections, error_body
from app.logs import REQUEST_ID_HEADER, log_config, new_request_id
from app.middleware import ABORT_EXTENSION


def raw_error(status: int, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 error answer in the envelope, closing the connection. It has a
    request id of its own (the request could not be read, so none came with it)."""
    body = json.dumps(error_body(code, message)).encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        f"{REQUEST_ID_HEADER.lower()}: {new_request_id()}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class _HeadRefused(Exception):
    """Raised in a parser callback to stop parsing a head already answered 431."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline and a size for each request head,
    and a bound on the connections open at once."""

    header_timeout: float = 10.0
    max_header_bytes: int = 16_384
    max_headers: int = 100
    max_connections: int = 1_000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None
        # Bytes and headers of the request head being read; bytes None while a body is.
        self._head_bytes: int | None = 0
        self._head_headers = 0
        self._heads_read = 0
        # The request being answered; uvicorn's own `cycle` is the last one parsed, which
        # with pipelining is a later one, still queued.
        self._running: RequestResponseCycle | None = None
        # A refusal waiting for the answers owed to the requests read before it.
        self._refusal: bytes | None = None
        # A request asked for an upgrade: nothing after its head is HTTP.
        self._upgrade_asked = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # Not uvicorn's `limit_concurrency`: it counts requests in progress too, answers
        # in plain text, and only once a whole head has arrived, holding the connection
        # (and its head) until then. Here the refusal costs one write and a close.
        if len(self.connections) > self.max_connections:
            message = f"more than {self.max_connections} connections are open; retry later"
            self._refuse(503, TooManyConnections.code, message)
            return
        self._arm_head_deadline()  # a connection that never sends a request ends too

    def data_received(self, data: bytes) -> None:
        """Counts the head's bytes before the parser holds them: a chunk that would take
        the head past `max_header_bytes` is fed only up to the limit, and the rest only
        if the head ended within it."""
        if self._done_reading():
            return
        if self._head_bytes is None:
            self._feed(data)  # a body: the body-limit middleware bounds it
            return
        room = self.max_header_bytes - self._head_bytes
        if len(data) <= room:
            self._head_bytes += len(data)
            self._feed(data)
            return
        self._head_bytes = self.max_header_bytes
        heads_read = self._heads_read
        if room:
            self._feed(data[:room])
        if self._done_reading():
            return
        if self._heads_read == heads_read:  # the head did not end within the limit
            self._refuse_head(f"the request head is longer than {self.max_header_bytes} bytes")
            return
        # The head ended within the limit; a head that follows in this chunk is counted
        # from its rest on (so up to one read, at most 256 KiB in asyncio and uvloop, goes
        # uncounted: a bound still).
        self.data_received(data[room:])

    def _done_reading(self) -> bool:
        """Answered and closing (a refusal, or `connection: close`), refused and waiting
        for the earlier answers, or upgraded: nothing more is read."""
        return self.transport.is_closing() or self._refusal is not None or self._upgrade_asked

    def _feed(self, data: bytes) -> None:
        # uvicorn's `data_received`, but for a head this protocol refused while parsing:
        # that is answered already, not an invalid request (no 400, no warning).
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as exc:
            if not isinstance(exc.__context__, _HeadRefused):
                self._invalid_request()
        except httptools.HttpParserError:
            self._invalid_request()
        except httptools.HttpParserUpgrade:
            # No upgrade is supported (`ws="none"`): the request is answered as HTTP, and
            # what follows its head is not, so the connection closes after the answer
            # (uvicorn logged two warnings for a client's choice, one of a missing
            # WebSocket library).
            self._upgrade_asked = True
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()
            else:
                self.cycle.keep_alive = False

    def _invalid_request(self) -> None:
        message = "Invalid HTTP request received."
        self.logger.warning(message)
        self.send_400_response(message)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_deadline is None:
            self._arm_head_deadline()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_headers += 1
        if self._head_headers > self.max_headers:
            self._refuse_head(f"the request head has more than {self.max_headers} headers")
            raise _HeadRefused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._cancel_head_deadline()
        self._head_bytes = None
        self._heads_read += 1
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        # The next request's head starts here (keep-alive, pipelining).
        self._head_bytes = 0
        self._head_headers = 0
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # starts the next pipelined request, if any
        if self.transport.is_closing():
            return
        if self._refusal is not None and not self._answers_owed():
            self._send_refusal(self._refusal)
        elif self._head_deadline is not None:
            # A head began before this answer went out: its own deadline runs (uvicorn's
            # keep-alive timer would close the connection under it, silently).
            self._unset_keepalive_if_required()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        # uvicorn marks only the last request parsed as disconnected; the one being
        # answered would then write to the closed transport (uvloop raises: an "unhandled
        # error" with a traceback for a client that merely left). Mark them all.
        for cycle in [self._running, *(queued for queued, _ in self.pipeline)]:
            if cycle is not None and not cycle.response_complete:
                cycle.disconnected = True
                cycle.message_event.set()
        super().connection_lost(exc)

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: ASGI3Application) -> None:
        self._running = cycle
        extensions: dict[str, Any] = cycle.scope.setdefault("extensions", {})  # type: ignore[assignment]
        extensions[ABORT_EXTENSION] = lambda: self._abort(cycle)
        super()._start_asgi_task(cycle, app)

    def _abort(self, cycle: RequestResponseCycle) -> None:
        """`ABORT_EXTENSION`: the connection dropped now, its unsent bytes with it. The
        request counts as disconnected, so its unfinished answer is no error (uvicorn
        logged "ASGI callable returned without completing response" at ERROR, and a plain
        close waited for the unsent bytes to go, from a reader that takes none)."""
        cycle.disconnected = True
        cycle.message_event.set()
        self.transport.abort()

    def send_400_response(self, msg: str) -> None:
        if not self.transport.is_closing():
            self._refuse(400, "bad_request", msg)

    def _refuse_head(self, message: str) -> None:
        self._refuse(431, RequestHeaderTooLarge.code, message)

    def _refuse(self, status: int, code: str, message: str) -> None:
        self._cancel_head_deadline()
        if self.transport.is_closing() or self._refusal is not None:
            return
        refusal = raw_error(status, code, message)
        if self._answers_owed():
            self._refusal = refusal  # sent by `on_response_complete` after the last of them
        else:
            self._send_refusal(refusal)

    def _answers_owed(self) -> bool:
        """Are requests read before now still to be answered (running, or queued)?"""
        running = self._running
        return bool(self.pipeline) or (running is not None and not running.response_complete)

    def _send_refusal(self, refusal: bytes) -> None:
        self._unset_keepalive_if_required()
        self.transport.write(refusal)
        self.transport.close()

    def _arm_head_deadline(self) -> None:
        self._head_deadline = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def _cancel_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing():
            message = f"no complete request head within {self.header_timeout:g} s"
            self._refuse(408, "request_timeout", message)


def protocol_for(settings: Settings) -> type[GuardedHttpToolsProtocol]:
    return type(
        "GuardedHttpToolsProtocol",
        (GuardedHttpToolsProtocol,),
        {
            "header_timeout": settings.header_timeout_seconds,
            "max_header_bytes": settings.max_header_bytes,
            "max_headers": settings.max_headers,
            "max_connections": settings.max_connections,
        },
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app.server")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args(argv)
    settings = get_settings()
    uvicorn.run(
        "app.main:app",
        host=args.host,
        port=args.port,
        http=protocol_for(settings),
        # No WebSocket: an upgrade request is answered as the HTTP request it also is
        # (by the app, in the envelope, with its request id and access line), the
        # Upgrade header ignored; uvicorn's WebSocket protocol refused it with a bare 403.
        ws="none",
        # Only for h11 (`--http h11` elsewhere): its own bound on an incomplete head, which
        # it answers 400 in plain text. This server runs httptools, bounded above.
        h11_max_incomplete_event_size=settings.max_header_bytes,
        timeout_keep_alive=settings.keep_alive_seconds,  # type: ignore[arg-type]
        log_config=log_config(settings.log_format, settings.log_level),
        access_log=False,  # app.access logs each request, with its id and duration
    )


if __name__ == "__main__":
    main()
