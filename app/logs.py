"""JSON logs and request ids.

Every log line is one JSON object: `time` (UTC, ISO 8601 with milliseconds), `level`,
`logger`, `message`, and, for a line written while a request is handled, its
`request_id`; the access line of each request adds `method`, `path`, `status` and
`duration_ms` (`status` 499, nginx's "client closed request", when the client left
before an answer was sent: not a server error); a line with an exception adds
`exception` (the traceback, as text).

A request's id is the incoming `X-Request-ID` when it is safe to log and echo (1 to
`MAX_REQUEST_ID` characters of `A-Z a-z 0-9 - _ . :`), else one generated here (32 hex
digits); `RequestContextMiddleware` echoes it in the `X-Request-ID` header of every
answer, errors and 500s included.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID_HEADER = "X-Request-ID"
MAX_REQUEST_ID = 128
_SAFE_ID = re.compile(rf"[A-Za-z0-9._:-]{{1,{MAX_REQUEST_ID}}}")

access_log = logging.getLogger("app.access")
# The status logged for a request whose client left before it was answered.
CLIENT_CLOSED = 499

# The id of the request being handled (None outside a request), for every log line.
request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_id", default=None
)

# The fields a record may carry (`extra=`) that go into the JSON line as they are.
_FIELDS = ("request_id", "method", "path", "status", "duration_ms")


def new_request_id() -> str:
    return uuid.uuid4().hex


def request_id_from(value: str | None) -> str:
    """The incoming id when it is safe to log and echo, else a new one."""
    if value is not None and _SAFE_ID.fullmatch(value):
        return value
    return new_request_id()


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record that has none."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = request_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in _FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False, default=str)


def log_config(fmt: str = "json", level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` for the server: uvicorn's loggers, the app's
    (`app.*`) and the root, through one handler on stderr, JSON (`fmt="json"`) or plain
    text; uvicorn's own access log is off (`app.access` writes one line per request)."""
    formatter = (
        {"()": "app.logs.JsonFormatter"}
        if fmt == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "app.logs.RequestIdFilter"}},
        "formatters": {"default": formatter},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "default",
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["default"], "level": level},
        "loggers": {
            "uvicorn": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.error": {"handlers": [], "level": level, "propagate": True},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
            "app": {"handlers": [], "level": level, "propagate": True},
            "alembic.runtime.plugins": {"handlers": [], "level": "WARNING", "propagate": True},
        },
    }


class RequestContextMiddleware:
    """The outermost layer: gives each request its id (kept in `request_id_var` and
    `scope["state"]["request_id"]`), echoes it in `X-Request-ID` on the answer, and
    writes the access line when the answer is sent.

    Installed outside Starlette's ServerErrorMiddleware (see `app.main`), so a crash's
    500 carries the header and is logged like any other answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(Headers(scope=scope).get(REQUEST_ID_HEADER))
        scope.setdefault("state", {})["request_id"] = request_id
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status: int | None = None
        disconnected = False

        async def receive_watched() -> Message:
            nonlocal disconnected
            message = await receive()
            if message["type"] == "http.disconnect":
                disconnected = True
            return message

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        try:
            await self.app(scope, receive_watched, send_with_id)
        finally:
            path = scope.get("path", "")
            method = scope.get("method", "")
            if status is None:  # nothing answered: uvicorn sends 500 unless the client left
                status = CLIENT_CLOSED if disconnected else 500
            gone = " (client disconnected)" if status == CLIENT_CLOSED else ""
            access_log.info(
                "%s %s %d%s",
                method,
                path,
                status,
                gone,
                extra={
                    "method": method,
                    "path": path,
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
            request_id_var.reset(token)
