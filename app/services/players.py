"""Players and their bearer tokens."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.models import Player
from app.schemas import PlayerCreated, PlayerOut


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def create_player(session: AsyncSession, name: str | None) -> PlayerCreated:
    """A new player and its token; the token is returned once and stored only hashed."""
    token = secrets.token_urlsafe(32)
    player = Player(name=name, token_hash=hash_token(token))
    async with unit_of_work(session):
        session.add(player)
    return PlayerCreated(id=player.id, name=player.name, token=token)


def player_out(player: Player) -> PlayerOut:
    return PlayerOut(id=player.id, name=player.name, created_at=player.created_at)


# Built once (every authenticated request runs it).
_BY_TOKEN_HASH = select(Player).where(Player.token_hash == bindparam("token_hash"))


async def player_for_token(session: AsyncSession, token: str) -> Player | None:
    # Looking up by hash: a timing difference could only reveal a hash prefix, not a token.
    async with unit_of_work(session, write=False):
        result = await session.execute(_BY_TOKEN_HASH, {"token_hash": hash_token(token)})
        player = result.scalar_one_or_none()
    if player is not None:
        # Detached, so that a rolled-back write later in the request cannot expire it.
        session.expunge(player)
    return player
