"""Daily deals: parse the request, call the service, return its models."""

from __future__ import annotations

from datetime import UTC, date, datetime
from email.utils import format_datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from app.deps import CurrentPlayer, OptionalPlayer, SessionDep, SettingsDep
from app.errors import DailyNotAvailable, DailyNotReady, Unauthorized, VariantNotFound
from app.routers.common import answer_headers, errors
from app.schemas import DailyOut, DailyResults, GameState
from app.services import daily
from app.services.daily import DailyDeals

router = APIRouter(prefix="/daily", tags=["daily"])

# Past days change only by new players and wins; a day is long enough to cache them.
PAST_MAX_AGE = 86_400


async def get_daily_deals(request: Request) -> DailyDeals:
    deals: DailyDeals = request.app.state.daily
    return deals


DailyDealsDep = Annotated[DailyDeals, Depends(get_daily_deals)]

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

# 404 daily_not_available: a date after today (UTC), or before the first daily deal.
_DAILY_ERRORS: dict[int | str, dict[str, Any]] = errors(DailyNotAvailable, VariantNotFound)
# 503 daily_not_ready: the deal is still being proven (or too many past dates are being
# prepared); retry after `Retry-After` seconds.
_NOT_READY = errors(DailyNotReady)


def _cache_headers(day: date) -> dict[str, str]:
    """Today's answer holds until midnight UTC (the deal number appears then)."""
    now = datetime.now(UTC)
    if day < now.date():
        return {"Cache-Control": f"public, max-age={PAST_MAX_AGE}"}
    end = daily.day_end(day)
    seconds = max(0, int((end - now).total_seconds()))
    return {
        "Cache-Control": f"public, max-age={seconds}",
        "Expires": format_datetime(end, usegmt=True),
    }


@router.get(
    "/{variant}/{date}",
    name="get_daily",
    response_model=DailyOut,
    responses={
        200: {
            "headers": {
                "Cache-Control": {
                    "description": "Until the next UTC midnight (today), a day (past dates).",
                    "schema": {"type": "string"},
                }
            }
        },
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
) -> DailyOut:
    answer = await daily.daily_info(session, variant, day, settings.daily_first_date)
    response.headers.update(_cache_headers(date.fromisoformat(answer.date)))
    return answer


@router.post(
    "/{variant}/{date}/game",
    name="play_daily",
    response_model=GameState,
    responses={
        200: {"description": "The caller's game of that day, created earlier."},
        201: {
            "description": "Created now.",
            "headers": {
                "Location": {"description": "The game's URL", "schema": {"type": "string"}}
            },
        },
        **errors(Unauthorized),
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
) -> GameState:
    answer, created = await daily.daily_game(session, deals, player, variant, day)
    answer_headers(response, answer)
    response.headers["Location"] = str(request.url_for("get_game", game_id=answer.game_id).path)
    response.status_code = 201 if created else 200
    return answer.body


@router.get(
    "/{variant}/{date}/results",
    name="get_daily_results",
    response_model=DailyResults,
    responses={**errors(Unauthorized), **_DAILY_ERRORS},
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
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> DailyResults:
    return await daily.daily_results(
        session,
        player,
        variant,
        day,
        first_day=settings.daily_first_date,
        limit=limit,
        offset=offset,
    )
