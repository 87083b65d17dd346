"""Things every router shares: documented error answers, from the error catalogue."""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Any

from fastapi import Header, Query, Response

from app.errors import ApiError
from app.schemas import ErrorResponse
from app.services.games import Answer, etag

# A list's cursor beside its offset (the move log, the daily results).
PageCursor = Annotated[
    str | None,
    Query(
        max_length=512,
        description="A page's `next_cursor`: the next page starts after it (`offset` must "
        "then be left at 0).",
    ),
]

# A conditional GET's validator (docs/api.md, "Conditional requests").
IfNoneMatch = Annotated[str | None, Header(alias="If-None-Match")]
# A page's size where a list allows up to 100 (default 20).
PageLimit = Annotated[int, Query(ge=1, le=100)]

# The extension of a documented error answer that lists its codes (read by app.main).
ERROR_CODES = "x-error-codes"

ETAG: dict[str, Any] = {"ETag": {"description": '`"<id>.<version>"`', "schema": {"type": "string"}}}
LOCATION: dict[str, Any] = {
    "Location": {"description": "The game's URL", "schema": {"type": "string"}}
}


def not_modified(headers: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI entry of a conditional GET's 304: no body, and the headers it carries
    (its ETag), so that generated clients type it (docs/api.md, "Conditional requests")."""
    return {
        "description": "Not modified: `If-None-Match` matched the current ETag. No body: "
        "keep the copy you have (openapi-fetch answers `data` undefined and `error` "
        '`""`: test `response.status === 304` first).',
        "headers": headers,
    }


def answer_headers(response: Response, answer: Answer[Any]) -> None:
    """The headers of an answer showing a game: its ETag, and whether it was replayed."""
    response.headers["ETag"] = etag(answer.game_id, answer.version)
    if answer.replayed:
        response.headers["Idempotent-Replayed"] = "true"


def etag_matches(if_none_match: str, current: str) -> bool:
    """Does an `If-None-Match` value match the ETag `current` (weakly, as for GET)?"""
    if if_none_match.strip() == "*":
        return True
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return current in tags


_TITLES = {
    401: "Unauthorized",
    404: "Not found",
    409: "Conflict with the game's state",
    422: "Refused",
    429: "Too many requests (`Retry-After`)",
    503: "Unavailable (`Retry-After`)",
}


RETRY_AFTER: dict[str, Any] = {
    "Retry-After": {
        "description": "Seconds to wait before asking again.",
        "schema": {"type": "integer", "minimum": 0},
    }
}


def errors(*kinds: type[ApiError]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for the named errors an operation answers, grouped by
    status: the envelope, the codes it may carry (`x-error-codes`, which app.main turns
    into the envelope's `code` narrowed to them; `validation_error` is added to every 422
    there), and `Retry-After` where one of them sends it."""
    by_status: dict[int, list[type[ApiError]]] = defaultdict(list)
    for kind in kinds:
        by_status[kind.status].append(kind)
    responses: dict[int | str, dict[str, Any]] = {}
    for status, named in sorted(by_status.items()):
        codes = [kind.code for kind in named]
        listed = ", ".join(f"`{code}`" for code in codes)
        response: dict[str, Any] = {
            "model": ErrorResponse,
            "description": f"{_TITLES.get(status, 'Error')}: {listed}.",
            ERROR_CODES: codes,
        }
        if any(kind.sends_retry_after for kind in named):
            response["headers"] = RETRY_AFTER
        responses[status] = response
    return responses
