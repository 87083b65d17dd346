"""`python -m app.server`: uvicorn with the limits a public server needs.

uvicorn closes a connection that idles after a response (`timeout_keep_alive`), but not
one that never sends a request, or sends half a request head and stops: 200 such
connections stayed open for good. `GuardedHttpToolsProtocol` adds a deadline for the
request head, and answers a head it cannot parse (an unknown method, a broken line) in
the API's error envelope instead of uvicorn's plain text.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.config import get_settings
from app.errors import error_body
from app.logs import REQUEST_ID_HEADER, log_config, new_request_id


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


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for each request head."""

    header_timeout: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_deadline()  # a connection that never sends a request ends too

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_deadline is None:
            self._arm_head_deadline()

    def on_headers_complete(self) -> None:
        self._cancel_head_deadline()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        self._cancel_head_deadline()
        self.transport.write(raw_error(400, "bad_request", msg))
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
            self.transport.write(raw_error(408, "request_timeout", message))
            self.transport.close()


def protocol_with(header_timeout: float) -> type[GuardedHttpToolsProtocol]:
    return type(
        "GuardedHttpToolsProtocol",
        (GuardedHttpToolsProtocol,),
        {"header_timeout": header_timeout},
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
        http=protocol_with(settings.header_timeout_seconds),
        timeout_keep_alive=settings.keep_alive_seconds,  # type: ignore[arg-type]
        log_config=log_config(settings.log_format, settings.log_level),
        access_log=False,  # app.access logs each request, with its id and duration
    )


if __name__ == "__main__":
    main()
