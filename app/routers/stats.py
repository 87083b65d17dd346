"""Player statistics."""

from __future__ import annotations

from fastapi import APIRouter

from app.deps import CurrentPlayer, SessionDep
from app.errors import Unauthorized
from app.routers.common import errors
from app.schemas import PlayerStats
from app.services import stats

router = APIRouter(prefix="/players", tags=["players"])


@router.get(
    "/me/stats",
    name="get_player_stats",
    response_model=PlayerStats,
    responses=errors(Unauthorized),
    summary="The caller's statistics per variant",
)
async def get_player_stats(session: SessionDep, player: CurrentPlayer) -> PlayerStats:
    return await stats.player_stats(session, player)
