"""Players and their bearer tokens."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.models import Player
from app.schemas import PlayerCreated, PlayerOut
from app.services.kit.account_bounds import PlayerCreations
from app.services.kit.bounded_map import BoundedMap


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def create_player(
    session: AsyncSession,
    name: str | None,
    *,
    creations: PlayerCreations | None = None,
    address: str | None = None,
) -> PlayerCreated:
    """A new player and its token; the token is returned once and stored only hashed.
    With `address`, counted against its bound (`creations`) in the same unit of work:
    past it 429 too_many_players, and nothing is written. Without: not counted (a
    trusted front-end's request)."""
    token = secrets.token_urlsafe(32)
    player = Player(name=name, token_hash=hash_token(token))
    if creations is not None and address is not None:
        creations.check(address)  # refused lately by this instance: no transaction
    async with unit_of_work(session):
        if creations is not None and address is not None:
            await creations.count(session, address)
        session.add(player)
    return PlayerCreated(id=player.id, name=player.name, token=token)


def player_out(player: Player) -> PlayerOut:
    return PlayerOut(id=player.id, name=player.name, created_at=player.created_at)


# Built once (every authenticated request runs it).
_BY_TOKEN_HASH = select(Player).where(Player.token_hash == bindparam("token_hash"))


class KnownTokens:
    """The players found by token lately, in this process's memory, so that a player's
    requests in a row look the token up once (the lookup was a transaction of its own on
    every request: three statements, more than a move's own work on SQLite).

    Safe with several instances: a player row never changes once created and is never
    deleted by the service, so a remembered player is the row as it is. Only found
    tokens are kept (a wrong token is looked up, and counted by the failure limit, each
    time); by token hash, at most `size` of them, each for `ttl_s` seconds."""

    def __init__(self, ttl_s: float = 60.0, size: int = 10_000) -> None:
        self.ttl_s, self.size = ttl_s, size
        self._players: BoundedMap[str, tuple[float, Player]] = BoundedMap(size)
        # Lookups under way, by token hash: what they found (None: nothing, or failed).
        self._pending: dict[str, asyncio.Future[Player | None]] = {}

    def get(self, token_hash: str) -> Player | None:
        entry = self._players.get(token_hash)
        if entry is None:
            return None
        if time.monotonic() - entry[0] > self.ttl_s:
            self._players.pop(token_hash)
            return None
        return entry[1]

    async def find(
        self, token_hash: str, look_up: Callable[[], Awaitable[Player | None]]
    ) -> Player | None:
        """The player of a token: remembered, or found by `look_up` once for all the
        requests that ask at once (a client's first burst with a new token is one lookup,
        however many requests it sends together). A request that comes while a lookup
        finds nothing, or fails, looks up itself (and each wrong token is counted by the
        failure limit, request by request)."""
        player = self.get(token_hash)
        if player is not None:
            return player
        pending = self._pending.get(token_hash)
        if pending is not None:
            player = await asyncio.shield(pending)
            if player is not None:
                return player
            return await look_up()
        future: asyncio.Future[Player | None] = asyncio.get_running_loop().create_future()
        self._pending[token_hash] = future
        try:
            player = await look_up()
        finally:
            # Those waiting get the player, or None (still None here when the lookup
            # raised: a 429, a cancelled request); with None they look up themselves.
            del self._pending[token_hash]
            future.set_result(player)
        return player

    def put(self, token_hash: str, player: Player) -> None:
        # Full: the oldest entry goes; a token held already is renewed (its time, and
        # made the newest), and nothing else goes.
        self._players.put(token_hash, (time.monotonic(), player))


async def player_for_hash(
    session: AsyncSession, token_hash: str, known: KnownTokens | None = None
) -> Player | None:
    """The database's answer for a token's hash (remembered in `known` when found).
    Looked up by hash: a timing difference could only reveal a hash prefix, not a token."""
    async with unit_of_work(session, write=False):
        result = await session.execute(_BY_TOKEN_HASH, {"token_hash": token_hash})
        player = result.scalar_one_or_none()
    if player is not None:
        # Detached, so that a rolled-back write later in the request cannot expire it
        # (and shared, read-only, by the requests that find it in `known`).
        session.expunge(player)
        if known is not None:
            known.put(token_hash, player)
    return player
