"""ASGI middleware that keeps requests bounded and every refusal in the error envelope."""

from __future__ import annotations

import asyncio
import re

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import CorsRefused, error_response
from app.i18n import N_, negotiate, reset_language, set_language, translate

# The scope extension `python -m app.server` (app.server) gives each request: a callable
# that drops the connection at once, with what is still unsent of its answer.
ABORT_EXTENSION = "app.abort"


def abort_connection(scope: Scope) -> bool:
    """Drop the request's connection (an answer that cannot go on, such as a stream whose
    reader takes nothing), where the server offers it; False where it does not."""
    abort = scope.get("extensions", {}).get(ABORT_EXTENSION)
    if abort is None:
        return False
    abort()
    return True


class BodyLimitMiddleware:
    """Reads each request body before the app does, at most `max_bytes` of it and within
    `timeout` seconds: over the limit 413, too slow 408, both in the envelope.

    A declared Content-Length over the limit is refused before a byte of the body is
    read, so a 50 MB upload costs nothing; a chunked one is cut off at the limit. The
    app then gets the body in one message, so no handler ever waits on a slow client.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, timeout: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        try:
            async with asyncio.timeout(self.timeout):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return  # the client left: nobody to answer
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_bytes:
                        await self._too_large(scope, receive, send)
                        return
                    chunks.append(chunk)
                    more = message.get("more_body", False)
        except TimeoutError:
            late = translate(
                N_("the request body did not arrive within {seconds} s"),
                {"seconds": f"{self.timeout:g}"},
            )
            await _refuse(scope, receive, send, "request_timeout", 408, late)
            return
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: only a disconnect can come

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = translate(
            N_("the request body is larger than {max} bytes"), {"max": self.max_bytes}
        )
        await _refuse(scope, receive, send, "payload_too_large", 413, message)


async def _refuse(
    scope: Scope, receive: Receive, send: Send, code: str, status: int, message: str
) -> None:
    # The connection closes after it: the rest of the body is never read.
    response = error_response(code, status, message, headers={"Connection": "close"})
    await response(scope, receive, send)


class EnvelopeCORSMiddleware(CORSMiddleware):
    """Starlette's CORS, with a refused preflight answered in the error envelope
    (Starlette answers it in plain text)."""

    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code < 400:
            return response
        headers = {
            name: value
            for name, value in response.headers.items()
            if name not in ("content-length", "content-type")
        }
        detail = bytes(response.body).decode(errors="replace")  # Starlette's English
        message = translate(N_("{detail} (CORS preflight refused)"), {"detail": detail})
        return error_response(CorsRefused.code, response.status_code, message, headers=headers)


_CODING = re.compile(r"\s*([A-Za-z0-9*-]+)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*")


def accepts_gzip(accept_encoding: str) -> bool:
    """Does an `Accept-Encoding` value accept gzip: `gzip` (or `*`) with a q above 0?
    (Starlette looks for the letters "gzip" anywhere, `gzip;q=0` included.)"""
    weights: dict[str, float] = {}
    for part in accept_encoding.split(","):
        match = _CODING.fullmatch(part)
        if match is None:
            continue
        try:
            weights[match.group(1).lower()] = float(match.group(2) or 1)
        except ValueError:
            continue
    return weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0))) > 0


class NegotiatedGZipMiddleware(GZipMiddleware):
    """Starlette's GZip (answers of `minimum_size` bytes or more, `Vary: Accept-Encoding`,
    Content-Length set to the compressed size; ETag and status untouched), for the
    clients whose `Accept-Encoding` accepts gzip, at a level that costs little CPU."""

    def __init__(self, app: ASGIApp, minimum_size: int = 1024, compresslevel: int = 6) -> None:
        super().__init__(app, minimum_size=minimum_size, compresslevel=compresslevel)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not accepts_gzip(
            Headers(scope=scope).get("accept-encoding", "")
        ):
            # Starlette would gzip for "gzip;q=0"; drop the header for its check.
            scope = {
                **scope,
                "headers": [(k, v) for k, v in scope["headers"] if k != b"accept-encoding"],
            }
        await super().__call__(scope, receive, send)


class LanguageMiddleware:
    """Negotiates the language of each answer from `Accept-Language` (app.i18n: English,
    German, Russian, French; English by default), keeps it for the code that writes texts
    while the request is answered, and says it: `Content-Language` and `Vary:
    Accept-Language` (added to any other `Vary`) on every answer of the API and on every
    error answer, whose message is written in that language."""

    def __init__(self, app: ASGIApp, prefix: str = "/api/") -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        language = negotiate(Headers(scope=scope).get("accept-language"))
        api = str(scope.get("path", "")).startswith(self.prefix)

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start" and (api or message["status"] >= 400):
                headers = MutableHeaders(scope=message)
                headers["Content-Language"] = language
                add_vary(headers, "Accept-Language")
            await send(message)

        token = set_language(language)
        try:
            await self.app(scope, receive, send_with_language)
        finally:
            reset_language(token)


def add_vary(headers: MutableHeaders, name: str) -> None:
    """Add `name` to the answer's `Vary` (one header, values kept, no duplicate)."""
    present = [v.strip() for v in headers.get("vary", "").split(",") if v.strip()]
    if any(v == "*" or v.lower() == name.lower() for v in present):
        return
    headers["Vary"] = ", ".join([*present, name])
