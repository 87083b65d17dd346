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
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import dialect_insert, unit_of_work
from app.errors import ApiError, TooManyAuthFailures, retry_after
from app.models import AuthFailure
from app.services.kit.bounded_map import BoundedMap

SLOT_SECONDS = 5
SLOTS = 12  # a minute


class SlotCounts:
    """Counts per client address in slots of `slot_seconds`, the last `slots` of them
    making the window, in a table of (address, slot, count) rows (`AuthFailure`,
    `PlayerCreation`): shared by every instance, exact under any burst (the slot's row
    is locked by the upsert until the unit of work ends)."""

    def __init__(self, model: Any, slot_seconds: int, slots: int) -> None:
        self.model, self.slot_seconds, self.slots = model, slot_seconds, slots

    def first_slot(self, now: float) -> int:
        """The oldest slot in the window that ends now."""
        return int(now // self.slot_seconds) - self.slots + 1

    async def count(self, session: AsyncSession, address: str, now: float) -> tuple[int, float]:
        """Count one for `address` now, within the caller's unit of work (rolled back
        with it): the window's total with it, and when the oldest slot counted leaves the
        window (time.time()), which is when the total first goes down. Slots gone from
        every address's window are deleted."""
        model = self.model
        first = self.first_slot(now)
        slot = first + self.slots - 1
        upsert = (
            dialect_insert(session, model)
            .values(address=address, slot=slot, count=1)
            .on_conflict_do_update(
                index_elements=[model.address, model.slot], set_={"count": model.count + 1}
            )
            .returning(model.count)
        )
        others = select(func.coalesce(func.sum(model.count), 0), func.min(model.slot)).where(
            # Every other slot of the window, a newer one included: a request that began
            # in this slot may commit after others counted in the next.
            model.address == address,
            model.slot >= first,
            model.slot != slot,
        )
        # The slot's row is locked by the upsert: its count is exact under concurrency.
        counted = (await session.execute(upsert)).scalar_one()
        before, oldest = (await session.execute(others)).one()
        await session.execute(delete(model).where(model.slot < first))
        oldest = slot if oldest is None else min(slot, oldest)
        return counted + before, float((oldest + self.slots) * self.slot_seconds)


def refused_until(kind: type[ApiError], until: float, now: float) -> ApiError:
    """The refusal `kind` with a Retry-After of the seconds until `until` (one at least)."""
    return kind(headers=retry_after(max(1, math.ceil(until - now))))


class FailedAuthLimiter:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.counts = SlotCounts(AuthFailure, SLOT_SECONDS, SLOTS)
        # Addresses this instance refused, and until when (time.time()).
        self._refused: BoundedMap[str, float] = BoundedMap(10_000)

    async def failed(self, session: AsyncSession, address: str) -> None:
        """Count a token from `address` that found no player. 429 when this one goes over
        the limit, or the address is still refused; else the caller answers 401."""
        now = time.time()
        until = self._refused.get(address)
        if until is not None and now < until:
            raise refused_until(TooManyAuthFailures, until, now)
        async with unit_of_work(session):
            total, until = await self.counts.count(session, address, now)
        if total > self.per_minute:
            # Free again once the oldest slot counted leaves the window (or sooner).
            self._refused.put(address, until)
            raise refused_until(TooManyAuthFailures, until, now)
        self._refused.pop(address)
