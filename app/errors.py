"""The error catalogue: one named type per code, the one map from engine errors to
codes, and the one handler that writes the envelope.

Every error answer, whoever raises it (our code, FastAPI's validation, Starlette's
404/405, an unexpected crash), has the body
`{"error": {"code": "<stable_snake_case>", "message": "<human text>"}}` (plus `reason`
where the engine gave one). A code means one condition and has one status on every
endpoint; `CATALOGUE` lists them all (docs/api.md's table is checked against it).

Two rules decide between codes that look alike:

- a name in the path that names nothing is 404 (`game_not_found`, `variant_not_found`);
  a name in a request body that names nothing is 422 (`unknown_variant`);
- a write the game's state refuses as a whole is 409 (`version_conflict`, `game_over`,
  `nothing_to_undo`, `no_win_found`); a move the rules refuse in this position is 422
  (`illegal_move`), one that cannot be read (or names a pile this game lacks) is 422
  (`invalid_move`).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any, ClassVar

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
from app.i18n import N_, translate

log = logging.getLogger("app.errors")

# code -> its named type; filled by ApiError.__init_subclass__.
CATALOGUE: dict[str, type[ApiError]] = {}


class ApiError(Exception):
    """An expected failure: a stable code, an HTTP status and a message for humans.

    Raise a named subclass (`GameNotFound()`, `VersionConflict("...")`); each has its code,
    status and a default message. A message is English, and a template where it names
    values (`DailyNotAvailable("... {date} ...", params={"date": ...})`): the handler
    answers it in the request's language (app.i18n), formatted with `params`."""

    code: ClassVar[str] = "internal_error"
    status: ClassVar[int] = 500
    default_message: ClassVar[str] = "internal server error"
    # Where the answer comes from when no handler of ours raises it (documentation only).
    answered_by: ClassVar[str] = "the service"
    # The answer carries `Retry-After` (declared in the API document where it is answered).
    sends_retry_after: ClassVar[bool] = False

    def __init__(
        self,
        message: str | None = None,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        reason: str | None = None,
    ) -> None:
        self.template = message or self.default_message
        self.params = params or {}
        # In English (logs, tests); `localized()` in the request's language.
        self.message = self.template.format(**self.params) if self.params else self.template
        super().__init__(self.message)
        self.headers = headers
        # For engine refusals: the engine's own reason code (e.g. "wrong_colour").
        self.reason = reason
        # More of the envelope's fields, where a type has them (`invalid_record`'s place).
        self.fields: dict[str, Any] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled whole: an error raised in the lane's process is answered here.
        return (_restored, (type(self), self.args, self.__dict__))

    def localized(self) -> str:
        """The message in the language of the request being answered."""
        return translate(self.template, self.params)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.code in CATALOGUE:
            raise TypeError(f"two error types with the code {cls.code!r}")
        CATALOGUE[cls.code] = cls


def _restored(kind: type[ApiError], args: tuple[Any, ...], fields: dict[str, Any]) -> ApiError:
    error = kind.__new__(kind)
    error.args = args
    error.__dict__.update(fields)
    return error


# --- 4xx answered before a route runs (HTTP server, middleware, routing) ---------


class BadRequest(ApiError):
    code, status, default_message = "bad_request", 400, N_("the request could not be read")
    answered_by = "app.server"


class CorsRefused(ApiError):
    code, status, default_message = "cors_refused", 400, N_("CORS preflight refused")
    answered_by = "the CORS middleware"


class RouteNotFound(ApiError):
    code, status, default_message = "not_found", 404, N_("not found")
    answered_by = "routing"


class MethodNotAllowed(ApiError):
    code, status, default_message = "method_not_allowed", 405, N_("method not allowed")
    answered_by = "routing"


class RequestTimeout(ApiError):
    code, status, default_message = "request_timeout", 408, N_("the request did not arrive in time")
    answered_by = "app.server and the body-limit middleware"


class PayloadTooLarge(ApiError):
    code, status, default_message = "payload_too_large", 413, N_("the request body is too large")
    answered_by = "the body-limit middleware"


class RequestHeaderTooLarge(ApiError):
    code, status = "request_header_too_large", 431
    default_message = N_("the request head is too large")
    answered_by = "app.server"


# --- authentication ---------------------------------------------------------------


class Unauthorized(ApiError):
    code, status, default_message = "unauthorized", 401, N_("a valid bearer token is required")

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message, headers={"WWW-Authenticate": "Bearer"})


class TooManyAuthFailures(ApiError):
    code, status = "too_many_auth_failures", 429
    default_message = N_("too many wrong tokens from this address; retry later")
    sends_retry_after = True


# --- not found (a name in the path) -------------------------------------------------


class GameNotFound(ApiError):
    # One answer for unknown ids and other players' games: never reveal existence.
    code, status, default_message = "game_not_found", 404, N_("no such game")


class AnalysisNotFound(ApiError):
    code, status = "analysis_not_found", 404
    default_message = N_("no analysis of this game was asked for (POST it first)")


class VariantNotFound(ApiError):
    code, status, default_message = "variant_not_found", 404, N_("no such variant")


class DailyNotAvailable(ApiError):
    code, status, default_message = "daily_not_available", 404, N_("no daily deal for that date")


# --- conflicts with the game's state ------------------------------------------------


class VersionConflict(ApiError):
    code, status, default_message = "version_conflict", 409, N_("the game changed; reload it")


class NothingToUndo(ApiError):
    code, status, default_message = "nothing_to_undo", 409, N_("no move to take back")


class GameOver(ApiError):
    """A move or an undo on a won (or resigned) game: 409 `game_over`, reason `game_over`. The engine
    refuses a move on a won game as an illegal move with that reason; `_ENGINE_REASONS`
    maps it here."""

    code, status = "game_over", 409
    default_message = N_("the game is won; no move is left to make or take back")

    def __init__(
        self,
        message: str | None = None,
        *,
        params: dict[str, Any] | None = None,
        reason: str | None = "game_over",
    ) -> None:
        super().__init__(message, params=params, reason=reason)


class GameAlreadyOver(ApiError):
    """A resign of a game that is over already: won, stuck (only an undo leads on, and a
    stuck game counts as not won as it is) or resigned. 409: reload the game."""

    code, status = "game_already_over", 409
    default_message = N_("the game is over already; only a game in play can be resigned")


class GameNotOver(ApiError):
    """An analysis of a game still in play: the analysis tells of hidden cards, which only
    a game that is over (won, stuck or resigned) may learn."""

    code, status = "game_not_over", 409
    default_message = N_("the game is still in play; resign it (or finish it) first")


class DailyNotOver(ApiError):
    """An analysis of a daily game while its date is current: everyone plays that deal
    until its date is over, so nothing of its hidden cards is told before."""

    code, status = "daily_not_over", 409
    default_message = N_("a daily game is analysed only once its date is over")


class AnalysisNotDone(ApiError):
    """A practice copy asked for before the game's analysis is done (or of a line the
    analysis is not of: a stuck game played on since): read the analysis (GET) until its
    state is done, or ask for it again (POST)."""

    code, status = "analysis_not_done", 409
    default_message = N_("the game's analysis is not done yet; read it (GET) until it is done")


class NoWinFound(ApiError):
    code, status, default_message = "no_win_found", 409, N_("no winning line was found")


class RecordNotAvailable(ApiError):
    """A game's record names its deal: refused while the deal is secret (a deal the server
    chose, until the game is won; a daily deal, until its date is over). 409, not 403:
    the same player gets it once the game's state (or the date) changes."""

    code, status = "record_not_available", 409
    default_message = N_("the game's deal is secret until the game is won")


# --- refused requests -------------------------------------------------------------


class ValidationFailed(ApiError):
    """422 `validation_error`: the message says it all in one line, and `errors` lists
    each fault as `{field, code, message}` (`field` dotted, as `settings.auto_play`;
    `code` pydantic's error type, as `missing` or `bool_parsing`, or ours)."""

    code, status, default_message = "validation_error", 422, N_("invalid request")
    answered_by = "request validation"

    def __init__(
        self,
        message: str | None = None,
        *,
        params: dict[str, Any] | None = None,
        field: str = "",
        fault: str = "invalid",
        errors: list[dict[str, str]] | None = None,
    ) -> None:
        super().__init__(message, params=params)
        # One fault of ours (no list given) is worded as the message is.
        self._one_fault = errors is None
        if errors is None:
            errors = [{"field": field, "code": fault, "message": self.message}]
        self.fields = {"errors": errors}

    def localized(self) -> str:
        text = super().localized()
        if self._one_fault:
            self.fields["errors"][0]["message"] = text
        return text


class IllegalMoveError(ApiError):
    code, status, default_message = "illegal_move", 422, N_("the rules refuse this move")


class InvalidMoveError(ApiError):
    code, status, default_message = "invalid_move", 422, N_("the move cannot be read")


class AutoPlayOff(ApiError):
    code, status = "auto_play_off", 422
    default_message = N_("clicks are off for this game (setting auto_play)")


class UnknownVariantError(ApiError):
    code, status, default_message = "unknown_variant", 422, N_("no such variant")


class InvalidDealError(ApiError):
    code, status = "invalid_deal", 422
    default_message = N_("a deal number is a whole number from 1 to 99999999999999999999")


class InvalidRecordError(ApiError):
    """A game record that cannot be read, or whose moves the rules refuse: `reason` is
    the engine's code, `line` and `move_number` (1-based) say where."""

    code, status, default_message = "invalid_record", 422, N_("the game record is invalid")

    def __init__(
        self,
        message: str | None = None,
        *,
        params: dict[str, Any] | None = None,
        reason: str | None = None,
        line: int | None = None,
        move_number: int | None = None,
    ) -> None:
        super().__init__(message, params=params, reason=reason)
        self.fields = {
            name: value
            for name, value in (("line", line), ("move_number", move_number))
            if value is not None
        }


class InvalidRules(ApiError):
    code, status, default_message = "invalid_rules", 422, N_("invalid house rules")


class InvalidCursor(ApiError):
    code, status, default_message = "invalid_cursor", 422, N_("the cursor is not one this API gave")


class IdempotencyKeyReused(ApiError):
    code, status = "idempotency_key_reused", 422
    default_message = N_("this Idempotency-Key was already used for a different request")


# --- busy, unavailable, broken --------------------------------------------------------


class SolverBusy(ApiError):
    code, status, default_message = "solver_busy", 429, N_("the solver is busy; retry later")
    sends_retry_after = True


class SolverSearchInProgress(ApiError):
    # One search per player: a player's clients cannot fill the solver's line.
    code, status = "solver_search_in_progress", 429
    default_message = N_("a search of yours (hint or finish) is still running; retry later")
    sends_retry_after = True


class TooManyStreams(ApiError):
    # Per player and process: one player's tabs cannot take every stream of an instance.
    # A place frees when one of the player's streams ends (closed by the client: a page
    # reloaded opens its new stream as the server learns the old one is gone), so a
    # short wait, as for `streams_full`; beyond it the client has to close one.
    code, status = "too_many_streams", 429
    default_message = N_("too many live streams of yours are open; close one")
    sends_retry_after = True

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message, headers=retry_after(5))


class InternalError(ApiError):
    code, status, default_message = "internal_error", 500, N_("internal server error")
    answered_by = "the crash handler"


class NoSolvableDeals(ApiError):
    code, status, default_message = "no_solvable_deals", 503, N_("no proven deal is ready")
    sends_retry_after = True


class DailyNotReady(ApiError):
    code, status, default_message = "daily_not_ready", 503, N_("the daily deal is being prepared")
    sends_retry_after = True


class TooManyConnections(ApiError):
    code, status = "too_many_connections", 503
    default_message = N_("the server has too many open connections; retry later")
    answered_by = "app.server"


class StreamsFull(ApiError):
    code, status = "streams_full", 429
    default_message = N_("the server holds as many live streams as it can; retry later")
    sends_retry_after = True

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message, headers=retry_after(5))


class DatabaseBusy(ApiError):
    # A lock waited for past its bound (SQLITE_BUSY_TIMEOUT_MS, POSTGRES_LOCK_TIMEOUT_MS) or
    # no connection free in time: nothing was changed, the request may be sent again.
    code, status = "database_busy", 503
    default_message = N_("the database is busy; nothing was changed, retry later")
    sends_retry_after = True

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message, headers=retry_after(DATABASE_BUSY_RETRY_SECONDS))


# What a client is told to wait after database_busy: a lock held past the wait bound is
# seldom freed within a second.
DATABASE_BUSY_RETRY_SECONDS = 2


class ServerBusy(ApiError):
    # The lane of long request work (a record's replay, a practice copy) is full.
    code, status = "server_busy", 503
    default_message = N_("the server is busy with long requests; retry later")
    sends_retry_after = True


# --- bounds a free account cannot multiply (services.kit.account_bounds) ---------------------------


class InvalidClientKey(ApiError):
    """`X-Client-Key` sent, but not one of TRUSTED_CLIENT_KEYS: refused rather than taken
    as no key, so a front-end with a wrong key learns it at once (and counted as a wrong
    token of its address)."""

    code, status = "invalid_client_key", 403
    default_message = N_("the X-Client-Key is not one this server trusts")


class TooManyPlayers(ApiError):
    code, status = "too_many_players", 429
    default_message = N_("too many players were created from this address; retry later")
    sends_retry_after = True


class TooManyGames(ApiError):
    code, status = "too_many_games", 429
    default_message = N_("you dealt too many games within the last hour; retry later")
    sends_retry_after = True


class TooManySolvableDeals(ApiError):
    code, status = "too_many_solvable_deals", 429
    default_message = N_(
        "you were dealt too many solvable games of this variant within the last hour; retry later"
    )
    sends_retry_after = True


class TooManyPracticeCopies(ApiError):
    code, status = "too_many_practice_copies", 429
    default_message = N_("you made too many practice copies within the last hour; retry later")
    sends_retry_after = True


class TooManyAnalyses(ApiError):
    code, status = "too_many_analyses", 429
    default_message = N_(
        "an analysis of another of your games is still pending or running; "
        "ask again once it is done"
    )
    sends_retry_after = True


def retry_after(seconds: int) -> dict[str, str]:
    return {"Retry-After": str(seconds)}


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
