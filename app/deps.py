"""Annotated dependencies shared by the routers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db import Database
from app.errors import ApiError
from app.models import Player
from app.services.players import player_for_token


def get_database(request: Request) -> Database:
    database: Database = request.app.state.db
    return database


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_session(
    database: Annotated[Database, Depends(get_database)],
) -> AsyncIterator[AsyncSession]:
    async with database.sessionmaker() as session:
        yield session


# scope="function": the session (and its pooled connection) is closed before the
# response is sent, not after, so nothing of a request outlives its answer.
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]

_bearer = HTTPBearer(auto_error=False, description="The token from POST /api/v1/players.")


async def get_current_player(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Player:
    unauthorized = ApiError(
        "unauthorized",
        401,
        "a valid bearer token is required",
        headers={"WWW-Authenticate": "Bearer"},
    )
    if credentials is None or not credentials.credentials:
        raise unauthorized
    player = await player_for_token(session, credentials.credentials)
    if player is None:
        raise unauthorized
    return player


CurrentPlayer = Annotated[Player, Depends(get_current_player)]
