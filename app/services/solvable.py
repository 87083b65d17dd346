"""Solvable games: deals proven winnable that only this server can predict.

Candidate `seq` of a variant is HMAC-SHA256(secret, "solvable|<variant>|<seq>") read
as a deal number (the daily deals' messages begin with the variant, so the two
streams never share a message); numbers of the public `seeds/` lists are skipped.
Each candidate goes to the app's `WorkPool` (after the daily deals), and a
proof is stored in `solvable_deals` with its winning line. The next candidate to try
is one past the variant's highest stored `seq`, so a restart resumes; several servers
filling at once prove each candidate once: the one that claims it (`claims`) proves it,
the others go on to the next (and the unique (variant, seq) constraint would keep one).

Each proof comes with the deal's rating (`difficulty_games` simulated games of a
human-like player, app/solver/difficulty.py), measured in the same piece of background
work, and a pool per variant and rating is kept: `SolvableDeals` keeps
`solvable_pool_size` unused proven deals of each rating per variant (candidates are
proven and rated in turn, each stored in its rating's pool, until every rating has its
size; a rating that already has `RATING_CAP` times the size unused keeps no more, so
that a rating the candidates seldom give fills in the end without making the others grow
without end, and `MAX_UNKEPT` proofs in a row that are not kept end a fill until its next
wake-up), at start-up and after each claim, so that a request never waits for a search.
With ratings off (`difficulty_games` 0) a variant keeps `solvable_pool_size` deals in
all, unrated. `claim` takes one unused row in the transaction that inserts the game (FOR
UPDATE SKIP LOCKED on PostgreSQL, the write lock of BEGIN IMMEDIATE on SQLite), so each
deal goes to one game only; an empty pool is 503 `no_solvable_deals` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db import unit_of_work
from app.engine import VARIANTS, EngineError, Move, Rules, State, Variant, deal
from app.errors import NoSolvableDeals, retry_after
from app.i18n import N_
from app.models import SolvableDeal
from app.seeds import public_deals
from app.services import claims
from app.services.proving import Proof, derive_deal
from app.services.work import SOLVABLE, WorkPool
from app.solver.difficulty import LEVELS
from app.solver.result import wins

log = logging.getLogger("app.solvable")

# A rating's unused deals, at most, in pool sizes (module docstring).
RATING_CAP = 3
# Proofs in a row of full ratings after which a fill stops until its next wake-up (a
# claim, or `RECHECK_SECONDS`): bounds the solver time a rating that no candidate gets
# (thresholds that leave a rating empty) can take.
MAX_UNKEPT = 64

# Without news of a claim (another server's, say), look at the pool this often.
RECHECK_SECONDS = 60.0
# After an unexpected failure (a broken worker, the database away), wait before going on.
FAILURE_PAUSE_SECONDS = 10.0


def solvable_candidate(secret: str, variant: str, seq: int) -> int:
    return derive_deal(secret, f"solvable|{variant}|{seq}")


def no_solvable_deals(variant: str, seconds: int, difficulty: str | None = None) -> NoSolvableDeals:
    if difficulty is None:
        return NoSolvableDeals(
            N_("no proven-winnable deal of {variant} is ready on this server; retry later"),
            params={"variant": variant},
            headers=retry_after(seconds),
        )
    return NoSolvableDeals(
        N_(
            "no proven-winnable deal of {variant} rated {difficulty} is ready on this "
            "server; retry later"
        ),
        params={"variant": variant, "difficulty": difficulty},
        headers=retry_after(seconds),
    )


# Unused deals looked at for one claim: a game under house rules takes only a deal whose
# proof still wins under them (see `claim`), and most proofs do.
CLAIM_SCAN = 20


def wins_under(start: State, line: list[dict[str, Any]]) -> bool:
    """Does the stored winning `line` win from `start` (the deal under a game's own house
    rules), every move checked by the engine?"""
    try:
        moves = [Move.from_json(move) for move in line]
    except EngineError:
        return False
    return wins(start, moves)


async def claim(
    session: AsyncSession, variant: Variant, rules: Rules, difficulty: str | None = None
) -> tuple[SolvableDeal, State] | None:
    """An unused proven deal of `variant` (of rating `difficulty`; None: any) and its
    opening under `rules`, locked for this write transaction (the caller marks it dealt
    before committing); None when the pool has none.

    Deals are proven under the variant's own rules. A house rule that adds moves
    (`foundation_return` on) keeps every proof; one that takes moves away may not, so
    then the proof is replayed under the game's rules and a deal is dealt only if its
    line still wins: a solvable game is winnable whatever its rules.
    """
    skipped = -1
    for _ in range(CLAIM_SCAN):
        # One row at a time: each stays locked until the transaction ends, and locking
        # more than the one dealt would turn concurrent claims away from free deals.
        query = select(SolvableDeal).where(
            SolvableDeal.variant == variant.name,
            SolvableDeal.dealt_at.is_(None),
            SolvableDeal.seq > skipped,
        )
        if difficulty is not None:
            query = query.where(SolvableDeal.difficulty == difficulty)
        query = (
            query.order_by(SolvableDeal.seq)
            .limit(1)
            # Concurrent claims take different rows instead of queueing on the first one.
            .with_for_update(skip_locked=True)
        )
        row = (await session.execute(query)).scalar_one_or_none()
        if row is None:
            return None
        start = deal(variant, int(row.deal), rules)
        if start.variant is variant or wins_under(start, row.line):
            return row, start
        skipped = row.seq
    return None


class SolvableDeals:
    """The pools of proven deals of one running app."""

    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        secret: str,
        prover: WorkPool,
        owner: str | None = None,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.secret = secret
        self.prover = prover
        self.owner = owner or claims.new_owner()  # this instance, in its claims
        self._wake = {variant: asyncio.Event() for variant in VARIANTS}
        self._next: dict[str, int] = {}  # this server's next candidate, per variant
        # Seconds from starting to look for a deal to storing it, per variant (a guess
        # until measured): what an empty pool's Retry-After says.
        self._seconds_per_deal = dict.fromkeys(VARIANTS, 10.0)
        self._tasks: list[asyncio.Task[None]] = []

    def retry_after(self, variant: str, difficulty: str | None = None) -> int:
        """Seconds until the pool may have a deal again (of one rating: about one
        candidate in four is of it)."""
        seconds = self._seconds_per_deal.get(variant, 10.0) * (len(LEVELS) if difficulty else 1)
        return min(300, max(1, math.ceil(seconds)))

    def claimed(self, variant: str) -> None:
        """A deal of `variant` was dealt: top its pool up again."""
        if variant in self._wake:
            self._wake[variant].set()

    async def _pool_state(self, variant: str) -> tuple[dict[str | None, int], int]:
        """How many unused deals `variant` has of each rating (None: unrated), and the
        next candidate to try."""
        unused = func.sum(case((SolvableDeal.dealt_at.is_(None), 1), else_=0))
        async with self.sessionmaker() as session:
            counts = {
                difficulty: int(count)
                for difficulty, count in await session.execute(
                    select(SolvableDeal.difficulty, func.coalesce(unused, 0))
                    .where(SolvableDeal.variant == variant)
                    .group_by(SolvableDeal.difficulty)
                )
            }
            top = (
                await session.execute(
                    select(func.max(SolvableDeal.seq)).where(SolvableDeal.variant == variant)
                )
            ).scalar()
        stored_next = 0 if top is None else int(top) + 1
        return counts, max(stored_next, self._next.get(variant, 0))

    def _full(self, counts: dict[str | None, int], target: int) -> bool:
        """Does a variant with `counts` unused deals per rating need no more?"""
        if self.settings.difficulty_games == 0:
            return sum(counts.values()) >= target
        return all(counts.get(level, 0) >= target for level in LEVELS)

    def _kept(self, counts: dict[str | None, int], proof: Proof, target: int) -> bool:
        """Is there room for `proof` in its rating's pool (`RATING_CAP`)?"""
        if self.settings.difficulty_games == 0:
            return True
        return counts.get(proof.difficulty, 0) < RATING_CAP * target

    async def _store(self, variant: str, seq: int, proof: Proof) -> bool:
        row = SolvableDeal(
            variant=variant,
            seq=seq,
            deal=str(proof.deal),
            positions=proof.positions,
            elapsed_ms=proof.elapsed_ms,
            line=proof.line,
            difficulty=proof.difficulty,
        )
        async with self.sessionmaker() as session:
            try:
                async with unit_of_work(session):
                    session.add(row)
            except IntegrityError:
                # Another server stored this candidate first: it is in the pool all the same.
                return False
        return True

    async def fill(self, variant: str, target: int) -> None:
        """Prove (and rate) candidates of `variant` until it has `target` unused deals of
        each rating (`_full`)."""
        public = set(public_deals(self.settings.seeds_dir, variant))
        started, unkept = time.monotonic(), 0
        while True:
            counts, seq = await self._pool_state(variant)
            if self._full(counts, target):
                return
            if unkept >= MAX_UNKEPT:
                log.warning("solvable %s: %d proofs in a row of full ratings", variant, unkept)
                return
            self._next[variant] = seq + 1
            number = solvable_candidate(self.secret, variant, seq)
            if number in public:
                continue
            # One instance proves each candidate; the others go on to the next one. Done
            # either way: a candidate that failed here is not tried again elsewhere.
            subject, ttl = f"{variant}|{seq}", claims.proof_ttl(self.settings)
            async with self.sessionmaker() as session:
                if not await claims.claim(session, claims.SOLVABLE, subject, self.owner, ttl):
                    continue
            async with claims.working(self.sessionmaker, claims.SOLVABLE, subject, self.owner, ttl):
                proof = await self.prover.prove(variant, number, SOLVABLE)
                kept = proof is not None and self._kept(counts, proof, target)
                stored = kept and proof is not None and await self._store(variant, seq, proof)
            unkept = 0 if stored else unkept + (proof is not None and not kept)
            if not stored or proof is None:
                continue
            took = time.monotonic() - started
            self._seconds_per_deal[variant] = 0.5 * self._seconds_per_deal[variant] + 0.5 * took
            started = time.monotonic()
            log.info(
                "solvable %s: candidate %d proven (%d positions, %d ms), %s",
                variant,
                seq,
                proof.positions,
                proof.elapsed_ms,
                proof.difficulty or "unrated",
            )

    async def _keep_filled(self, variant: str) -> None:
        wake = self._wake[variant]
        while True:
            # Cleared before looking, so a claim made while filling is not missed.
            wake.clear()
            try:
                await self.fill(variant, self.settings.solvable_pool_size)
            except Exception as exc:
                log.error("solvable %s: preparation failed: %s", variant, exc, exc_info=exc)
                await asyncio.sleep(FAILURE_PAUSE_SECONDS)
                continue
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for drops a cancel that
            # comes as the wake-up does, and the app's shutdown would wait a minute.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(RECHECK_SECONDS):
                    await wake.wait()

    def start(self) -> None:
        if self.settings.solvable_prepare_ahead and not self._tasks:
            self._tasks = [
                asyncio.create_task(self._keep_filled(variant), name=f"solvable {variant}")
                for variant in VARIANTS
            ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
