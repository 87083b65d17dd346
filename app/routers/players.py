from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body

from app.deps import CurrentPlayer, NoNullBody, SessionDep
from app.errors import Unauthorized
from app.routers.common import errors
from app.schemas import PlayerCreate, PlayerCreated, PlayerOut
from app.services import players

router = APIRouter(prefix="/players", tags=["players"])


@router.post(
    "",
    name="create_player",
    status_code=201,
    response_model=PlayerCreated,
    responses={422: {"description": "Refused"}},
    dependencies=[NoNullBody],
    summary="Register a player and get its bearer token (shown once)",
)
async def create_player(
    session: SessionDep, body: Annotated[PlayerCreate | None, Body()] = None
) -> PlayerCreated:
    return await players.create_player(session, body.name if body else None)


@router.get(
    "/me",
    name="get_current_player",
    response_model=PlayerOut,
    responses=errors(Unauthorized),
    summary="The signed-in player",
)
async def get_me(player: CurrentPlayer) -> PlayerOut:
    return players.player_out(player)
