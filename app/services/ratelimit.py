"""Failed authentications, limited per client address, counted in the database by every
instance of a deployment together (a guesser gains nothing by spreading its guesses).

Wrong tokens are counted in slots of `SLOT_SECONDS` (`auth_failures`: address, slot,
count); the last `SLOTS` slots make the minute. A client whose count within it reached
`per_minute` is refused (429 with Retry-After) whatever token it sends, right or wrong:
otherwise a guesser would still learn which guess was right. The count and the token's
player are read by one statement (no round trip more per request); a wrong token adds
one upsert, which also drops slots that fell out of every window.
"""

from __future__ import annotations

import math
import time

from sqlalchemy import delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.errors import TooManyAuthFailures, Unauthorized, retry_after
from app.models import AuthFailure, Player
from app.services.players import hash_token

SLOT_SECONDS = 5
SLOTS = 12  # a minute


class FailedAuthLimiter:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute

    async def authenticate(self, session: AsyncSession, token: str, address: str) -> Player:
        """The token's player; 401 for a wrong token (counted), 429 past the limit."""
        now = time.time()
        first = int(now // SLOT_SECONDS) - SLOTS + 1
        counted = (
            select(
                func.coalesce(func.sum(AuthFailure.count), 0).label("failures"),
                func.min(AuthFailure.slot).label("oldest"),
            )
            .where(AuthFailure.address == address, AuthFailure.slot >= first)
            .subquery()
        )
        query = (
            select(counted.c.failures, counted.c.oldest, Player)
            .select_from(counted)
            .outerjoin(Player, Player.token_hash == hash_token(token))
        )
        async with unit_of_work(session, write=False):
            failures, oldest, player = (await session.execute(query)).one()
        if failures >= self.per_minute:
            # Free again once the oldest slot counted leaves the window (or sooner).
            wait = (oldest + SLOTS) * SLOT_SECONDS - now
            raise TooManyAuthFailures(headers=retry_after(max(1, math.ceil(wait))))
        if player is None:
            await self._count(session, address, first + SLOTS - 1, first)
            raise Unauthorized()
        # Detached, so that a rolled-back write later in the request cannot expire it.
        session.expunge(player)
        return player  # type: ignore[no-any-return]

    async def _count(self, session: AsyncSession, address: str, slot: int, first: int) -> None:
        dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(AuthFailure).values(address=address, slot=slot, count=1)
        upsert = upsert.on_conflict_do_update(
            index_elements=[AuthFailure.address, AuthFailure.slot],
            set_={"count": AuthFailure.count + 1},
        )
        async with unit_of_work(session):
            await session.execute(upsert)
            await session.execute(delete(AuthFailure).where(AuthFailure.slot < first))
