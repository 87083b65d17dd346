"""Daily deals: parse the request, call the service, return its models."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response

from app.deps import (
    CurrentPlayer,
    DailyDealsDep,
    OptionalPlayer,
    PageCursorsDep,
    PlayerBoundsDep,
    SessionDep,
    SettingsDep,
)
from app.errors import (
    DailyNotAvailable,
    DailyNotReady,
    InvalidCursor,
    TooManyGames,
    Unauthorized,
    VariantNotFound,
)
from app.routers.common import (
    ETAG,
    LOCATION,
    IfNoneMatch,
    PageCursor,
    PageLimit,
    answer_headers,
    errors,
    etag_matches,
    not_modified,
)
from app.schemas import DailyOut, DailyResults, Difficulty, GameState
from app.services.daily import game, results
from app.services.daily.deals import check_difficulty
from app.services.daily.ranking import day_end

router = APIRouter(prefix="/daily", tags=["daily"])

# A date's figures and deal stop changing when it ends (practice games of a past date
# count in neither); a minute later, so that a game committed at midnight is counted.
SETTLED_AFTER = timedelta(minutes=1)
SETTLED_MAX_AGE = 86_400


VariantPath = Annotated[
    str, Path(description="A variant id or alias.", examples=["rank-and-file"], max_length=64)
]
DatePath = Annotated[
    str,
    Path(
        alias="date",
        description="A UTC date `YYYY-MM-DD`, or `today`.",
        examples=["today", "2026-11-29"],
        max_length=10,
        # ASCII digits: `\d` would take other scripts' digits too.
        pattern=r"^(today|[0-9]{4}-[0-9]{2}-[0-9]{2})$",
    ),
]

DifficultyQuery = Annotated[
    Difficulty | None,
    Query(
        description="The date's deal of this rating (each date offers one per rating; the "
        "deal without it is of its own measured rating, and is the one of that rating). "
        "404 daily_not_available where deals are not rated.",
    ),
]

# 404 daily_not_available: a date after today (UTC), or before the first daily deal.
_DAILY_ERRORS: dict[int | str, dict[str, Any]] = errors(DailyNotAvailable, VariantNotFound)
# 503 daily_not_ready: the deal is still being proven (or too many past dates are being
# prepared); retry after `Retry-After` seconds.
_NOT_READY = errors(DailyNotReady)


# The headers of a daily deal's answer, 200 and 304 alike.
_CACHE_HEADERS: dict[str, Any] = {
    "Cache-Control": {
        "description": "`no-cache` while the answer can change (a cache revalidates with "
        "the ETag): the date's figures until it is over, its deal number until the deal is "
        "proven (a past date's, by its first game); a day once nothing can.",
        "schema": {"type": "string"},
    },
    "ETag": {"description": "Of this answer.", "schema": {"type": "string"}},
}


def _settled(day: date) -> bool:
    return datetime.now(UTC) >= day_end(day) + SETTLED_AFTER


def _daily_etag(answer: DailyOut) -> str:
    digest = hashlib.sha256(answer.model_dump_json().encode()).hexdigest()[:32]
    return f'"{digest}"'


@router.get(
    "/{variant}/{date}",
    name="get_daily",
    response_model=DailyOut,
    responses={
        200: {"headers": _CACHE_HEADERS},
        304: not_modified(_CACHE_HEADERS),
        **_DAILY_ERRORS,
    },
    summary="The daily deal of a date: players and wins (no cards)",
)
async def get_daily(
    variant: VariantPath,
    day: DatePath,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    difficulty: DifficultyQuery = None,
    if_none_match: IfNoneMatch = None,
) -> DailyOut | Response:
    check_difficulty(settings, difficulty)
    answer = await results.daily_info(session, variant, day, settings.daily_first_date, difficulty)
    tag = _daily_etag(answer)
    if _settled(date.fromisoformat(answer.date)) and answer.deal is not None:
        cache = f"public, max-age={SETTLED_MAX_AGE}, immutable"
    else:
        # Players and wins change all day; a past date's deal nobody asked for yet is
        # proven by its first game, and then shown: revalidate with the ETag.
        cache = "no-cache"
    headers = {"ETag": tag, "Cache-Control": cache}
    if if_none_match and etag_matches(if_none_match, tag):
        return Response(status_code=304, headers=headers)
    response.headers.update(headers)
    return answer


@router.post(
    "/{variant}/{date}/game",
    name="play_daily",
    response_model=GameState,
    responses={
        200: {
            "model": GameState,
            "description": "The caller's game of that day, created earlier.",
            "headers": {**ETAG, **LOCATION},
        },
        201: {"description": "Created now.", "headers": {**ETAG, **LOCATION}},
        **errors(Unauthorized, TooManyGames),
        **_DAILY_ERRORS,
        **_NOT_READY,
    },
    status_code=201,
    summary="The caller's game of the daily deal (created on the first call)",
)
async def play_daily(
    request: Request,
    response: Response,
    variant: VariantPath,
    day: DatePath,
    session: SessionDep,
    deals: DailyDealsDep,
    player: CurrentPlayer,
    bounds: PlayerBoundsDep,
    difficulty: DifficultyQuery = None,
) -> GameState:
    answer, created = await game.daily_game(
        session, deals, player, variant, day, difficulty, bounds=bounds
    )
    answer_headers(response, answer)
    response.headers["Location"] = str(request.url_for("get_game", game_id=answer.game_id).path)
    response.status_code = 201 if created else 200
    return answer.body


@router.get(
    "/{variant}/{date}/results",
    name="get_daily_results",
    response_model=DailyResults,
    responses={**errors(Unauthorized, InvalidCursor), **_DAILY_ERRORS},
    summary="Who won the daily deal, ranked by moves then time",
    # The token is optional here (it adds the caller's own result): say so, or clients
    # generated from the document demand one.
    openapi_extra={"security": [{"HTTPBearer": []}, {}]},
)
async def get_daily_results(
    variant: VariantPath,
    day: DatePath,
    session: SessionDep,
    player: OptionalPlayer,
    settings: SettingsDep,
    cursors: PageCursorsDep,
    limit: PageLimit = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    cursor: PageCursor = None,
    difficulty: DifficultyQuery = None,
) -> DailyResults:
    check_difficulty(settings, difficulty)
    return await results.daily_results(
        session,
        player,
        variant,
        day,
        first_day=settings.daily_first_date,
        limit=limit,
        offset=offset,
        cursor=cursor,
        cursors=cursors,
        difficulty=difficulty,
    )
