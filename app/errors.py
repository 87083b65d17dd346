"""One exception type for expected failures and one envelope for every error.

Every error answer, whoever raises it (our code, FastAPI's validation, Starlette's
404/405, an unexpected crash), has the body
`{"error": {"code": "<stable_snake_case>", "message": "<human text>"}}`.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

log = logging.getLogger("app.errors")


class ApiError(Exception):
    """An expected failure: a stable code, an HTTP status and a message for humans."""

    def __init__(
        self,
        code: str,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        self.headers = headers
        # For engine refusals: the engine's own reason code (e.g. "wrong_colour").
        self.reason = reason


def error_body(code: str, message: str, reason: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if reason is not None:
        error["reason"] = reason
    return {"error": error}


def error_response(
    code: str,
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    reason: str | None = None,
) -> JSONResponse:
    return JSONResponse(error_body(code, message, reason), status_code=status, headers=headers)


# Starlette raises HTTPException for routing failures; give them stable codes.
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "too_many_requests",
}


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{loc}: {err.get('msg', 'invalid')}" if loc else str(err.get("msg")))
    return "; ".join(parts) or "invalid request"


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app takes at this path, for a 405's Allow header
    (Starlette names only the first matching route's). Asked of the router itself, so
    included routers and their prefixes are matched as they are for a request."""
    routes = request.app.router.routes

    def takes(method: str) -> bool:
        scope = {**request.scope, "method": method}
        return any(route.matches(scope)[0] == Match.FULL for route in routes)

    return [method for method in _METHODS if takes(method)]


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.code, exc.status, exc.message, exc.headers, exc.reason)

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response("validation_error", 422, _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:
            # FastAPI's answer to a body it could not decode (invalid UTF-8, JSON nested
            # too deep, an integer of thousands of digits): the documented 422.
            return error_response("validation_error", 422, "the body is not valid JSON")
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
        return error_response(code, exc.status_code, message, headers or None)

    @app.exception_handler(Exception)
    async def _crash(_request: Request, exc: Exception) -> JSONResponse:
        # Never show internals (they could include hidden cards); log them instead.
        log.exception("unhandled error", exc_info=exc)
        return error_response("internal_error", 500, "internal server error")
