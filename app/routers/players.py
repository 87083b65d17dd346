from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Header, Request

from app.deps import (
    AuthLimiterDep,
    CurrentPlayer,
    NoNullBody,
    PlayerCreationsDep,
    SessionDep,
    TrustedKeysDep,
    client_address,
)
from app.errors import InvalidClientKey, TooManyAuthFailures, TooManyPlayers, Unauthorized
from app.routers.common import errors
from app.schemas import PlayerCreate, PlayerCreated, PlayerOut
from app.services import players

router = APIRouter(prefix="/players", tags=["players"])

ClientKey = Annotated[
    str | None,
    Header(
        alias="X-Client-Key",
        max_length=512,
        description="For a trusted front-end's server only (never a browser: CORS does not "
        "allow it), one of the server's `TRUSTED_CLIENT_KEYS`: the player is not counted "
        "against its address's bound of new players. A key the server does not trust is "
        "403 `invalid_client_key` (counted as a wrong token of the address).",
    ),
]


@router.post(
    "",
    name="create_player",
    status_code=201,
    response_model=PlayerCreated,
    responses={
        422: {"description": "Refused"},
        **errors(InvalidClientKey, TooManyPlayers, TooManyAuthFailures),
    },
    dependencies=[NoNullBody],
    summary="Register a player and get its bearer token (shown once)",
)
async def create_player(
    request: Request,
    session: SessionDep,
    creations: PlayerCreationsDep,
    trusted: TrustedKeysDep,
    limiter: AuthLimiterDep,
    client_key: ClientKey = None,
    body: Annotated[PlayerCreate | None, Body()] = None,
) -> PlayerCreated:
    address: str | None = client_address(request)
    if client_key is not None:
        if not trusted.trusts(client_key):
            await limiter.failed(session, client_address(request))  # 429 past the limit
            raise InvalidClientKey()
        address = None  # a trusted front-end's players are not counted per address
    name = body.name if body else None
    return await players.create_player(session, name, creations=creations, address=address)


@router.get(
    "/me",
    name="get_current_player",
    response_model=PlayerOut,
    responses=errors(Unauthorized),
    summary="The signed-in player",
)
async def get_me(player: CurrentPlayer) -> PlayerOut:
    return players.player_out(player)
