from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body

from app.deps import CurrentPlayer, SessionDep
from app.routers.common import errors
from app.schemas import PlayerCreate, PlayerCreated, PlayerOut
from app.services import players

router = APIRouter(prefix="/players", tags=["players"])


@router.post(
    "",
    name="create_player",
    status_code=201,
    response_model=PlayerCreated,
    responses=errors(422),
    summary="Register a player and get its bearer token (shown once)",
)
async def create_player(
    session: SessionDep, body: Annotated[PlayerCreate | None, Body()] = None
) -> PlayerCreated:
    player, token = await players.create_player(session, body.name if body else None)
    return PlayerCreated(id=player.id, name=player.name, token=token)


@router.get(
    "/me",
    name="get_current_player",
    response_model=PlayerOut,
    responses=errors(401),
    summary="The signed-in player",
)
async def get_me(player: CurrentPlayer) -> PlayerOut:
    return PlayerOut(id=player.id, name=player.name, created_at=player.created_at)
