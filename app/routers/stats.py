"""Player statistics."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.deps import CurrentPlayer, SessionDep
from app.routers.common import errors
from app.schemas import PlayerStats
from app.services import stats

router = APIRouter(prefix="/players", tags=["players"])


@router.get(
    "/me/stats",
    name="get_player_stats",
    response_model=PlayerStats,
    responses=errors(401),
    summary="The caller's statistics per variant",
)
async def get_player_stats(session: SessionDep, player: CurrentPlayer) -> dict[str, Any]:
    return await stats.player_stats(session, player)
