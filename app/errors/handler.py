"""The one handler that writes the error envelope, and the one map from engine errors
to codes.

Every error answer, whoever raises it (our code, FastAPI's validation, Starlette's
404/405, an unexpected crash), has the body
`{"error": {"code": "<stable_snake_case>", "message": "<human text>"}}` (plus `reason`
where the engine gave one).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.db import is_busy
from app.engine import (
    CorruptState,
    EngineError,
    IllegalMove,
    InvalidDeal,
    InvalidMove,
    InvalidRecord,
)
from app.errors.base import CATALOGUE, ApiError
from app.errors.catalogue import (
    DatabaseBusy,
    GameOver,
    IllegalMoveError,
    InternalError,
    InvalidDealError,
    InvalidMoveError,
    InvalidRecordError,
    ValidationFailed,
)
from app.i18n import N_, translate

log = logging.getLogger("app.errors")


# --- the one map from engine errors to codes ----------------------------------------

# Engine refusals whose code is not their class's: (engine class, reason) -> named type.
# `no_such_pile` is a well-formed pile id this game lacks (`tableau-42`): like any pile
# id that names no pile (`foo`, reason `bad_pile`), the move cannot be read: the engine
# refuses it as an illegal move, the API answers 422 `invalid_move`, reason `no_such_pile`.
_ENGINE_REASONS: dict[tuple[type[EngineError], str], type[ApiError]] = {
    (IllegalMove, "no_such_pile"): InvalidMoveError,
    (IllegalMove, "game_over"): GameOver,
}
_ENGINE_CLASSES: dict[type[EngineError], type[ApiError]] = {
    IllegalMove: IllegalMoveError,
    InvalidMove: InvalidMoveError,
    InvalidDeal: InvalidDealError,
}


def from_engine(exc: EngineError) -> ApiError:
    """The API's answer to an engine error: the one place engine errors become codes.
    A corrupt stored position (or an engine error of no known kind) is a bug: 500."""
    if isinstance(exc, InvalidRecord):
        return InvalidRecordError(
            exc.template,
            params=exc.params,
            reason=exc.code,
            line=exc.line,
            move_number=exc.move_number,
        )
    for cls in type(exc).__mro__:
        if not issubclass(cls, EngineError):
            break
        named = _ENGINE_REASONS.get((cls, exc.code)) or _ENGINE_CLASSES.get(cls)
        if named is not None:
            return named(exc.template, params=exc.params, reason=exc.code)
    log.error("engine error with no API code: %r", exc)
    return InternalError()


# --- the envelope ----------------------------------------------------------------------


def error_body(
    code: str, message: str, reason: str | None = None, fields: dict[str, Any] | None = None
) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if reason is not None:
        error["reason"] = reason
    error.update(fields or {})
    return {"error": error}


def error_response(
    code: str,
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    reason: str | None = None,
    fields: dict[str, Any] | None = None,
) -> JSONResponse:
    return JSONResponse(
        error_body(code, message, reason, fields), status_code=status, headers=headers
    )


def api_error_response(exc: ApiError) -> JSONResponse:
    """The envelope of a named error, its message in the request's language."""
    message = exc.localized()  # first: it words the fields' messages too
    return error_response(exc.code, exc.status, message, exc.headers, exc.reason, exc.fields)


# Starlette and FastAPI raise HTTPException for routing failures (404, 405), a token
# they refuse (401) and a body they cannot read (400: answered 422 below); each status
# they raise has its catalogue code. Nothing in the app raises HTTPException itself.
_HTTP_CODES: dict[int, type[ApiError]] = {
    401: CATALOGUE["unauthorized"],
    404: CATALOGUE["not_found"],
    405: CATALOGUE["method_not_allowed"],
    413: CATALOGUE["payload_too_large"],
}

# Every code an error answer can carry: the catalogue's, each in docs/api.md's table.
ANSWERED_CODES: tuple[str, ...] = tuple(sorted(CATALOGUE))

# The field codes of `validation_error`'s faults that are the service's own (the rest are
# pydantic's error types): the document's `FieldFault.code` and docs/api.md list these.
OWN_FAULTS: tuple[str, ...] = (
    "cursor_and_offset",
    "date_format",
    "deal_and_solvable",
    "deal_type",
    "difficulty_without_solvable",
    "json_invalid",
    "null_body",
    "ply_out_of_range",
    "ply_required",
    "record_not_alone",
)

# Validation error types (pydantic's `type`) that stand for a catalogue code of their
# own: raised by the schemas' validators (`PydanticCustomError(code, ...)`).
VALIDATION_CODES: dict[str, type[ApiError]] = {InvalidDealError.code: InvalidDealError}


def _field(err: Any) -> str:
    # A body that is not JSON at all: pydantic's location is the character it stopped at.
    return "body" if err.get("type") == "json_invalid" else _location(err)


# The most faults a validation error lists (a body can have thousands).
MAX_LISTED_FAULTS = 20


def _location(err: Any) -> str:
    """A fault's field: its dotted path in the body, or the parameter's name."""
    loc = list(err.get("loc", ()))
    if loc and loc[0] in ("body", "path", "query", "header", "cookie"):
        loc = loc[1:]
    return ".".join(str(part) for part in loc)


# The messages of the schemas' own validators (`PydanticCustomError`), by type and
# whether the error has a context: worded in the request's language with that context;
# pydantic's own messages stay English.
_VALIDATOR_MESSAGES = {
    ("invalid_deal", True): N_("a deal number is a whole number from 1 to {max}"),
    ("deal_type", False): N_("a deal number is a JSON integer or a string of its decimal digits"),
    # A JSON integer above 2^53 - 1 (app.schemas.common._deal_number).
    ("deal_type", True): N_("a deal number above {max} is sent as a string of its decimal digits"),
}


def _validation_message(errors: list[Any]) -> str:
    parts = []
    for err in errors[:5]:
        loc = _location(err)
        template = _VALIDATOR_MESSAGES.get((str(err.get("type")), bool(err.get("ctx"))))
        msg = translate(template, err.get("ctx")) if template else err.get("msg", "invalid")
        parts.append(f"{loc}: {msg}" if loc else str(msg))
    return "; ".join(parts) or translate(ValidationFailed.default_message)


def validation_error(exc: RequestValidationError) -> ApiError:
    """`validation_error`, or the one catalogue code all of the request's errors name
    (`invalid_deal`: a deal number out of range, whether sent as a number or a string)."""
    errors = list(exc.errors())
    kinds = {err.get("type") for err in errors}
    if len(kinds) == 1 and (named := VALIDATION_CODES.get(str(kinds.pop()))) is not None:
        return named(_validation_message(errors), reason=named.code)
    faults = [
        {"field": _field(err), "code": str(err.get("type", "invalid")), "message": err["msg"]}
        for err in errors[:MAX_LISTED_FAULTS]
    ]
    return ValidationFailed(_validation_message(errors), errors=faults)


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
        return api_error_response(exc)

    @app.exception_handler(EngineError)
    async def _engine_error(_request: Request, exc: EngineError) -> JSONResponse:
        # The services map engine errors themselves; this is the net under them.
        if isinstance(exc, CorruptState):
            log.error("corrupt stored position", exc_info=exc)
        return api_error_response(from_engine(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return api_error_response(validation_error(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:
            # FastAPI's answer to a body it could not decode (invalid UTF-8, JSON nested
            # too deep, an integer of thousands of digits): the documented 422.
            return api_error_response(
                ValidationFailed(
                    N_("the body is not valid JSON"), field="body", fault="json_invalid"
                )
            )
        if exc.status_code == 422:
            return api_error_response(ValidationFailed(str(exc.detail)))
        named = _HTTP_CODES.get(exc.status_code)
        if named is None:
            # A status nothing here was written to raise: a bug (no code of its own, which
            # the document would have to list), answered as one.
            return await _crash(request, exc)
        code = named.code
        if exc.detail == HTTPStatus(exc.status_code).phrase:
            # Starlette's own words for a status ("Not Found"): the catalogue's, worded.
            message = translate(named.default_message)
        else:
            message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
        return error_response(code, exc.status_code, message, headers or None)

    @app.exception_handler(SQLAlchemyError)
    async def _database(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        if is_busy(exc):
            # Expected under load or beside an outside writer: nothing was changed.
            log.warning("database busy: %s", type(exc).__name__)
            return api_error_response(DatabaseBusy())
        return await _crash(request, exc)

    @app.exception_handler(Exception)
    async def _crash(_request: Request, exc: Exception) -> JSONResponse:
        # Never show internals (they could include hidden cards); log them instead.
        log.exception("unhandled error", exc_info=exc)
        return error_response("internal_error", 500, translate(InternalError.default_message))
