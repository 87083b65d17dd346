"""What the solver knows, shared by every instance through the database.

Two facts are kept about positions, each keyed by a 16-byte BLAKE2b digest of the
position's full bytes (`State.to_bytes`, face-down cards and stock order included, so a
key never leaves the server):

- **won**: the position is move `at` of a winning line (`solver_lines`), whose rest wins
  from it. Every position along a line is keyed, so a player following hints finds the
  next one on any instance without a search. Lines come from searches (hints, finish)
  and from proven deals (`seeds/`, daily and solvable proofs), registered the first time
  a game dealt from such a deal asks for a hint (`learn_deal`).
- **lost**: a complete search proved that no line wins (`line_id` null).

Both facts are true forever (the rules do not change under a position), so a copy in
one instance's memory is never stale: each instance keeps the lines it met last in a
bounded cache in front of the table, and the table is what the others see.

The table is bounded: while the lines' positions are more than
`solver_knowledge_max_positions` the oldest lines go (with their positions), beyond
`solver_knowledge_max_lost` lost positions the oldest go; both looked at every
`_TRIM_EVERY` facts an instance stores. Writes are best effort (the cache has the fact
at once): a failed one costs only a later search, never a hint's answer. A digest
collision (two positions, one key) would need about 2^64 keys to become likely.
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import dialect_insert, unit_of_work
from app.engine import Move, State
from app.models import SolverLine, SolverPosition
from app.seeds import format_line, read_line
from app.solver.result import wins

log = logging.getLogger("app.knowledge")

# Rows per INSERT statement: a finish line may have 14,000 positions.
_CHUNK = 500
# Look at the table's size after this many facts stored by this instance.
_TRIM_EVERY = 50


def position_key(state: State) -> bytes:
    return hashlib.blake2b(state.to_bytes(), digest_size=16).digest()


@dataclass(frozen=True)
class Known:
    """A position's verdict: the rest of a winning line, or lost (`rest` None)."""

    rest: tuple[Move, ...] | None

    @property
    def lost(self) -> bool:
        return self.rest is None


class SolverKnowledge:
    """The table and this instance's cache in front of it."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        *,
        max_positions: int,
        max_lost: int,
        cached_positions: int = 50_000,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.max_positions, self.max_lost = max_positions, max_lost
        self.cached_positions = cached_positions
        # key -> (a whole line, the position's index in it): one tuple shared by every
        # position along the line (a copy of the rest per position cost the square of
        # the length, seconds for a line of 14,000 moves)
        self._won: OrderedDict[bytes, tuple[tuple[Move, ...], int]] = OrderedDict()
        self._lost: OrderedDict[bytes, None] = OrderedDict()
        self._stored_since_trim = 0
        # Openings of proven deals whose line this instance registered (or found unfit).
        self._learned: set[bytes] = set()

    # --- reading

    def cached(self, state: State) -> Known | None:
        key = position_key(state)
        if key in self._lost:
            return Known(None)
        entry = self._won.get(key)
        if entry is None:
            return None
        self._won.move_to_end(key)
        line, at = entry
        return Known(line[at:])

    async def lookup(self, state: State) -> Known | None:
        """The cache, then the table (one short read); None when nothing is known."""
        known = self.cached(state)
        if known is not None:
            return known
        key = position_key(state)
        async with self.sessionmaker() as session, unit_of_work(session, write=False):
            row = (
                await session.execute(
                    select(SolverPosition.line_id, SolverPosition.at, SolverLine.moves)
                    .outerjoin(SolverLine, SolverLine.id == SolverPosition.line_id)
                    .where(SolverPosition.key == key)
                )
            ).one_or_none()
        if row is None:
            return None
        line_id, at, moves = row
        if line_id is None:
            self._cache_lost(key)
            return Known(None)
        rest = tuple(read_line(moves)[at:])
        self._cache_line(state, rest)
        return Known(rest)

    # --- learning

    async def remember_line(
        self, variant: str, start: State, moves: Sequence[Move], source: str
    ) -> None:
        """Keep a winning line from `start`, for every position along it. Best effort: the
        cache has it at once; a failed write (a lock, a deadlock between two instances
        storing overlapping lines) is logged and costs only a later search."""
        line = tuple(moves)
        keys = self._cache_line(start, line)
        if not keys:
            return
        try:
            async with self.sessionmaker() as session:
                async with unit_of_work(session):
                    row = SolverLine(
                        variant=variant, source=source, moves=format_line(line), length=len(keys)
                    )
                    session.add(row)
                    await session.flush()
                    statement = dialect_insert(session, SolverPosition).on_conflict_do_nothing()
                    # In key order: two instances inserting overlapping lines lock the
                    # shared keys in the same order, so they cannot deadlock.
                    values = [
                        {"key": k, "line_id": row.id, "at": at}
                        for at, k in sorted(keys, key=lambda pair: pair[1])
                    ]
                    for i in range(0, len(values), _CHUNK):
                        await session.execute(statement, values[i : i + _CHUNK])  # type: ignore[call-overload]
                await self._maybe_trim(session)
        except SQLAlchemyError as exc:
            # The class only: the statement's parameters are position keys.
            log.warning("a winning line was not stored (%s); kept here only", type(exc).__name__)

    async def remember_lost(self, state: State) -> None:
        key = position_key(state)
        self._cache_lost(key)
        try:
            async with self.sessionmaker() as session:
                async with unit_of_work(session):
                    statement = dialect_insert(session, SolverPosition).on_conflict_do_nothing()
                    await session.execute(statement, [{"key": key, "line_id": None, "at": None}])  # type: ignore[call-overload]
                await self._maybe_trim(session)
        except SQLAlchemyError as exc:
            log.warning("a lost position was not stored (%s); kept here only", type(exc).__name__)

    async def _maybe_trim(self, session: AsyncSession) -> None:
        self._stored_since_trim += 1
        if self._stored_since_trim >= _TRIM_EVERY:
            self._stored_since_trim = 0
            await self.trim(session)

    async def learn_deal(
        self,
        variant: str,
        source: str,
        number: str,
        start: State,
        line: Sequence[Move] | None,
    ) -> None:
        """Register a proven deal's line once (by this instance; the table ignores the
        positions another instance registered first). A line that does not win from
        `start` (a game under other house rules) is not kept."""
        tag = position_key(start)  # the deal under the game's own rules
        if line is None or tag in self._learned:
            return
        if not wins(start, line):
            self._learned.add(tag)  # never wins from here: not worth replaying again
            return
        if await self.lookup(start) is None:  # else registered already, here or elsewhere
            await self.remember_line(variant, start, line, source)
        self._learned.add(tag)

    async def trim(self, session: AsyncSession) -> None:
        """Drop the oldest lines while their positions are more than `max_positions`, and
        the oldest lost positions beyond `max_lost`."""
        async with unit_of_work(session):
            total = (
                await session.execute(select(func.coalesce(func.sum(SolverLine.length), 0)))
            ).scalar_one()
            excess = int(total) - self.max_positions
            oldest: list[int] = []
            if excess > 0:
                for line_id, length in await session.execute(
                    select(SolverLine.id, SolverLine.length).order_by(SolverLine.id)
                ):
                    if excess <= 0:
                        break
                    oldest.append(line_id)
                    excess -= length
                for i in range(0, len(oldest), _CHUNK):
                    chunk = oldest[i : i + _CHUNK]
                    # Positions first: not every backend cascades.
                    await session.execute(
                        delete(SolverPosition).where(SolverPosition.line_id.in_(chunk))
                    )
                    await session.execute(delete(SolverLine).where(SolverLine.id.in_(chunk)))
            lost = (
                await session.execute(select(func.count()).where(SolverPosition.line_id.is_(None)))
            ).scalar_one()
            if lost > self.max_lost:
                oldest_lost = (
                    select(SolverPosition.key)
                    .where(SolverPosition.line_id.is_(None))
                    .order_by(SolverPosition.created_at)
                    .limit(lost - self.max_lost)
                ).scalar_subquery()
                await session.execute(
                    delete(SolverPosition).where(SolverPosition.key.in_(oldest_lost))
                )
        if oldest or lost > self.max_lost:
            log.info(
                "solver knowledge trimmed: %d oldest lines dropped, lost positions at most %d",
                len(oldest),
                self.max_lost,
            )

    # --- the cache

    def _cache_line(self, start: State, line: tuple[Move, ...]) -> list[tuple[int, bytes]]:
        """Every position along the line (before each move) into the cache; their keys."""
        keys: list[tuple[int, bytes]] = []
        seen: set[bytes] = set()
        state = start
        for at, move in enumerate(line):
            key = position_key(state)
            if key not in seen:  # a line met twice keeps its first (longer) rest
                seen.add(key)
                keys.append((at, key))
                self._won[key] = (line, at)
                self._won.move_to_end(key)
            state, _ = state.apply(move, auto_finish=False, validate=False)
        while len(self._won) > self.cached_positions:
            self._won.popitem(last=False)
        return keys

    def _cache_lost(self, key: bytes) -> None:
        self._lost[key] = None
        self._lost.move_to_end(key)
        while len(self._lost) > self.cached_positions:
            self._lost.popitem(last=False)
