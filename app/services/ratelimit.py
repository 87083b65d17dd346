"""Failed authentications, limited per client address, counted in the database by every
instance of a deployment together (a guesser gains nothing by spreading its guesses).

Wrong tokens are counted in slots of `SLOT_SECONDS` (`auth_failures`: address, slot,
count); the last `SLOTS` slots make the minute. A client whose count within it reached
`per_minute` is refused (429 with Retry-After) before its token is looked up, right or
wrong: otherwise a guesser would still learn which guess was right.

The check costs no statement for most requests, which come from addresses with no wrong
token at all: each instance knows the addresses it counted itself, and reads the
addresses any instance counted (one small query) at most once per `REFRESH_SECONDS`;
only for such a suspect is the count read. That check is what refuses a known right
token; a guess is never a known token, and every guess is counted before its lookup,
so the limit holds exactly, on any number of instances and under any burst.
"""

from __future__ import annotations

import math
import time

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import dialect_insert, unit_of_work
from app.errors import TooManyAuthFailures, retry_after
from app.models import AuthFailure

SLOT_SECONDS = 5
SLOTS = 12  # a minute
REFRESH_SECONDS = 1.0


def _first_slot(now: float) -> int:
    """The oldest slot in the window that ends now."""
    return int(now // SLOT_SECONDS) - SLOTS + 1


def _refused(oldest: int, now: float) -> TooManyAuthFailures:
    """429, free again once the oldest slot counted leaves the window (or sooner)."""
    wait = (oldest + SLOTS) * SLOT_SECONDS - now
    return TooManyAuthFailures(headers=retry_after(max(1, math.ceil(wait))))


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
                # A right token's count is taken back to 0 (the row stays): not a suspect.
                .where(AuthFailure.slot >= _first_slot(now), AuthFailure.count > 0)
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
            raise _refused(oldest, now)

    async def attempt(self, session: AsyncSession, address: str) -> int:
        """Count a token about to be looked up, before the lookup: guesses sent at once
        are each counted before any is answered. 429 when this one goes over the limit
        (it stays counted: a client that keeps trying stays refused). Returns the slot
        counted in, for `right`."""
        now = time.time()
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
            self.wrong(address)
            raise _refused(slot if oldest is None else min(slot, oldest), now)
        return slot

    def wrong(self, address: str) -> None:
        """A wrong token from `address` (counted by `attempt`): a suspect from now on."""
        self._mine[address] = time.time()
        if len(self._mine) > 10_000:  # many addresses: forget the oldest
            del self._mine[min(self._mine, key=self._mine.__getitem__)]

    async def right(self, session: AsyncSession, address: str, slot: int) -> None:
        """The token was right: it is not a failure, take its count back."""
        async with unit_of_work(session):
            await session.execute(
                update(AuthFailure)
                .where(AuthFailure.address == address, AuthFailure.slot == slot)
                .values(count=AuthFailure.count - 1)
            )
