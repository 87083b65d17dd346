"""Wrong tokens, limited per client address, counted in the database by every instance
of a deployment together (a guesser gains nothing by spreading its guesses).

A token is looked up first, and a token that finds its player is answered whatever its
address's count: one client guessing behind a NAT or a proxy must not lock out everyone
behind it. Only a token that finds nobody is counted, in slots of `SLOT_SECONDS`
(`auth_failures`: address, slot, count; the last `SLOTS` slots make the minute); past
`per_minute` within it the answer is 429 `too_many_auth_failures` with Retry-After
instead of 401. Until that Retry-After the instance that refused goes on refusing the
address's wrong tokens from memory, uncounted: a flood of guesses then costs a lookup
each, not a write transaction (on SQLite writes wait in line with every game's moves).

What a guesser learns: a 429, like a 401, says only "no such token", and a right token
would be answered 200 even past the limit. So the limit does not hide which guess was
right; it cannot without refusing right tokens too. It need not: tokens are 256 random
bits stored as SHA-256 hashes, and at a million guesses a second against a million
players the expected wait for one hit is above 10^57 years. What the limit does is tell
a client that keeps sending wrong tokens (a stale token in a loop, a scanner) to wait,
and keep what its guesses cost the server small.

Right tokens cost no statement here: nothing is read or written for them, however
many wrong tokens their address sent. Each wrong token counted costs one transaction
(the count's upsert and the window's sum), exact under any burst and on any number of
instances: the slot's row is locked by the upsert.
"""

from __future__ import annotations

import math
import time

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import dialect_insert, unit_of_work
from app.errors import TooManyAuthFailures, retry_after
from app.models import AuthFailure
from app.services.bounded import BoundedMap

SLOT_SECONDS = 5
SLOTS = 12  # a minute


def _first_slot(now: float) -> int:
    """The oldest slot in the window that ends now."""
    return int(now // SLOT_SECONDS) - SLOTS + 1


def _refused(until: float, now: float) -> TooManyAuthFailures:
    return TooManyAuthFailures(headers=retry_after(max(1, math.ceil(until - now))))


class FailedAuthLimiter:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        # Addresses this instance refused, and until when (time.time()).
        self._refused: BoundedMap[str, float] = BoundedMap(10_000)

    async def failed(self, session: AsyncSession, address: str) -> None:
        """Count a token from `address` that found no player. 429 when this one goes over
        the limit, or the address is still refused; else the caller answers 401."""
        now = time.time()
        until = self._refused.get(address)
        if until is not None and now < until:
            raise _refused(until, now)
        first = _first_slot(now)
        slot = first + SLOTS - 1
        upsert = (
            dialect_insert(session, AuthFailure)
            .values(address=address, slot=slot, count=1)
            .on_conflict_do_update(
                index_elements=[AuthFailure.address, AuthFailure.slot],
                set_={"count": AuthFailure.count + 1},
            )
            .returning(AuthFailure.count)
        )
        others = select(
            func.coalesce(func.sum(AuthFailure.count), 0), func.min(AuthFailure.slot)
        ).where(
            # Every other slot of the window, a newer one included: a request that began
            # in this slot may commit after others counted in the next.
            AuthFailure.address == address,
            AuthFailure.slot >= first,
            AuthFailure.slot != slot,
        )
        async with unit_of_work(session):
            # The slot's row is locked by the upsert: its count is exact under concurrency.
            counted = (await session.execute(upsert)).scalar_one()
            before, oldest = (await session.execute(others)).one()
            await session.execute(delete(AuthFailure).where(AuthFailure.slot < first))
        if counted + before > self.per_minute:
            # Free again once the oldest slot counted leaves the window (or sooner).
            oldest = slot if oldest is None else min(slot, oldest)
            until = (oldest + SLOTS) * SLOT_SECONDS
            self._refused.put(address, until)
            raise _refused(until, now)
        self._refused.pop(address)
