"""The error catalogue: one named type per code, with its status and default message.

A code means one condition and has one status on every endpoint; `CATALOGUE` lists
them all (docs/api.md's table is checked against it). Two rules decide between codes
that look alike:

- a name in the path that names nothing is 404 (`game_not_found`, `variant_not_found`);
  a name in a request body that names nothing is 422 (`unknown_variant`);
- a write the game's state refuses as a whole is 409 (`version_conflict`, `game_over`,
  `nothing_to_undo`, `no_win_found`); a move the rules refuse in this position is 422
  (`illegal_move`), one that cannot be read (or names a pile this game lacks) is 422
  (`invalid_move`).
"""

from __future__ import annotations

from typing import Any

from app.errors.base import ApiError, retry_after
from app.i18n import N_

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
