"""Reading a Server-Sent Events stream from the app in the tests.

httpx's `ASGITransport` hands a response over only once the app has finished it, so an
endless stream would never arrive: `StreamingASGITransport` runs the app in a task and
hands the body over chunk by chunk (closing the response tells the app the client went
away, as a server does). `EventReader` parses the SSE framing the client receives.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.types import ASGIApp, Message


class _Body(httpx.AsyncByteStream):
    def __init__(
        self, chunks: asyncio.Queue[bytes | None], task: asyncio.Task[None], gone: asyncio.Event
    ) -> None:
        self.chunks, self.task, self.gone = chunks, task, gone

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (chunk := await self.chunks.get()) is not None:
            yield chunk

    async def aclose(self) -> None:
        self.gone.set()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), 2.0)
        except TimeoutError:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


class StreamingASGITransport(httpx.AsyncBaseTransport):
    """`stalled`: while set, the client takes nothing more (a reader whose socket is
    full): the app's sends of the body wait."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.stalled = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "headers": [(k.lower(), v) for k, v in request.headers.raw],
            "scheme": request.url.scheme,
            "path": request.url.path,
            "raw_path": request.url.raw_path.split(b"?")[0],
            "query_string": request.url.query,
            "server": (request.url.host, request.url.port or 80),
            "client": ("127.0.0.1", 123),
            "root_path": "",
        }
        chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        started = asyncio.Event()
        gone = asyncio.Event()
        head: dict[str, Any] = {}
        sent_body = False

        async def receive() -> Message:
            nonlocal sent_body
            if not sent_body:
                sent_body = True
                return {"type": "http.request", "body": body, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                head["status"], head["headers"] = message["status"], message["headers"]
                started.set()
            elif message["type"] == "http.response.body":
                while self.stalled.is_set():
                    await asyncio.sleep(0.01)
                if message.get("body"):
                    await chunks.put(message["body"])
                if not message.get("more_body", False):
                    await chunks.put(None)

        async def run() -> None:
            try:
                await self.app(scope, receive, send)
            finally:
                await chunks.put(None)
                started.set()

        task = asyncio.create_task(run())
        await started.wait()
        if "status" not in head:
            await task  # the app failed before answering: its error
        return httpx.Response(
            head["status"], headers=head["headers"], stream=_Body(chunks, task, gone)
        )


@dataclass
class Event:
    event: str
    id: str | None
    data: Any
    text: str = ""  # the data as sent (JSON text)


class EventReader:
    """The events of a streamed response, in order (comments skipped)."""

    def __init__(self, response: httpx.Response) -> None:
        self.lines = response.aiter_lines()
        self._reading: asyncio.Task[Event | None] | None = None

    async def next(self, timeout: float = 10.0) -> Event | None:
        """The next event; None when the stream ended. TimeoutError when none came in
        time: the read goes on (cancelling it would close the stream's lines), and the
        next call takes its event."""
        if self._reading is None:
            self._reading = asyncio.ensure_future(self._next())
        done, _ = await asyncio.wait({self._reading}, timeout=timeout)
        if not done:
            raise TimeoutError(f"no event within {timeout} s")
        reading, self._reading = self._reading, None
        return reading.result()

    async def _next(self) -> Event | None:
        fields: dict[str, list[str]] = {}
        async for line in self.lines:
            if line == "":
                if "data" in fields or "event" in fields:
                    text = "\n".join(fields.get("data", []))
                    return Event(
                        event=fields.get("event", ["message"])[-1],
                        id=fields.get("id", [None])[-1],
                        data=json.loads(text),
                        text=text,
                    )
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))
        return None
