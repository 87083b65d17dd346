"""Things every router shares: documented error answers."""

from __future__ import annotations

from typing import Any

from app.schemas import ErrorResponse

_DESCRIPTIONS = {
    401: "Missing or wrong bearer token (`unauthorized`).",
    404: "Not found (`game_not_found`, `variant_not_found`, `not_found`).",
    409: "Conflict (`version_conflict`, `nothing_to_undo`, `game_over`).",
    422: "Refused (`validation_error`, `illegal_move`, `invalid_move`, `auto_play_off`, ...).",
    429: "Too many requests.",
    503: "Unavailable: `no_solvable_deals` (no proven deal of the variant is ready; "
    "retry after `Retry-After` seconds).",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for the given error statuses, all with the envelope."""
    return {
        status: {"model": ErrorResponse, "description": _DESCRIPTIONS[status]}
        for status in statuses
    }
