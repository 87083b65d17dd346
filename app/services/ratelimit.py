"""Failed authentications, limited per client address, counted in the database by every
instance of a deployment together (a guesser gains nothing by spreading its guesses).

Wrong tokens are counted in slots of `SLOT_SECONDS` (`auth_failures`: address, slot,
count); the last `SLOTS` slots make the minute. A client whose count within it reached
`per_minute` is refused (429 with Retry-After) before its token is looked up, right or
wrong: otherwise a guesser would still learn which guess was right.

Most requests come from addresses with no wrong token at all, and they cost no
statement here: each instance knows the addresses it counted itself, and reads the
addresses any instance counted (one small query) at most once per `REFRESH_SECONDS`.
Only for such a suspect is the count read. So an address whose failures were all
counted elsewhere in the last moment gets at most one unchecked try per other instance,
and that try is counted: the limit holds to within the number of instances.
"""

from __future__ import annotations

import math
import time

from sqlalchemy import delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.errors import TooManyAuthFailures, retry_after
from app.models import AuthFailure

SLOT_SECONDS = 5
SLOTS = 12  # a minute
REFRESH_SECONDS = 1.0


def _first_slot(now: float) -> int:
    """The oldest slot in the window that ends now."""
    return int(now // SLOT_SECONDS) - SLOTS + 1


class FailedAuthLimiter:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._mine: dict[str, float] = {}  # addresses this instance counted: when
        self._anyone: frozenset[str] = frozenset()  # counted by any instance, as last read
        self._read_at = -math.inf

    async def _suspects(self, session: AsyncSession, now: float) -> frozenset[str]:
        if time.monotonic() - self._read_at >= REFRESH_SECONDS:
            query = (
                select(AuthFailure.address)
                .where(AuthFailure.slot >= _first_slot(now))
                .distinct()
            )
            async with unit_of_work(session, write=False):
                self._anyone = frozenset((await session.execute(query)).scalars())
            self._read_at = time.monotonic()
        return self._anyone

    async def check(self, session: AsyncSession, address: str) -> None:
        """429 `too_many_auth_failures` when `address` is at the limit."""
        now = time.time()
        mine = self._mine.get(address)
        if mine is not None and now - mine > SLOTS * SLOT_SECONDS:
            del self._mine[address]
            mine = None
        if mine is None and address not in await self._suspects(session, now):
            return
        first = _first_slot(now)
        query = select(func.coalesce(func.sum(AuthFailure.count), 0), func.min(AuthFailure.slot))
        query = query.where(AuthFailure.address == address, AuthFailure.slot >= first)
        async with unit_of_work(session, write=False):
            failures, oldest = (await session.execute(query)).one()
        if failures >= self.per_minute:
            # Free again once the oldest slot counted leaves the window (or sooner).
            wait = (oldest + SLOTS) * SLOT_SECONDS - now
            raise TooManyAuthFailures(headers=retry_after(max(1, math.ceil(wait))))

    async def failed(self, session: AsyncSession, address: str) -> None:
        """Count a wrong token from `address` (and drop slots out of every window)."""
        now = time.time()
        first = _first_slot(now)
        dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
        upsert = dialect.insert(AuthFailure).values(
            address=address, slot=first + SLOTS - 1, count=1
        )
        upsert = upsert.on_conflict_do_update(
            index_elements=[AuthFailure.address, AuthFailure.slot],
            set_={"count": AuthFailure.count + 1},
        )
        async with unit_of_work(session):
            await session.execute(upsert)
            await session.execute(delete(AuthFailure).where(AuthFailure.slot < first))
        self._mine[address] = now
        if len(self._mine) > 10_000:  # many addresses: forget the oldest
            del self._mine[min(self._mine, key=self._mine.__getitem__)]
