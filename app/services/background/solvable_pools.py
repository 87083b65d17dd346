"""Solvable games: deals proven winnable that only this server can predict.

Candidate `seq` of a variant is HMAC-SHA256(secret, "solvable|<variant>|<seq>") read
as a deal number (the daily deals' messages begin with the variant, so the two
streams never share a message); numbers of the public `seeds/` lists are skipped.
A game's pools are one job of the queue (`services.background.jobs`, kind `solvable`, subject the
variant), so one worker at a time fills them: each candidate goes to its `WorkPool` at
the job's priority, and a proof is stored in `solvable_deals` with its winning line.
The next candidate to try is one past the variant's highest stored `seq`, so a job
taken again (its worker died) resumes; the unique (variant, seq) constraint keeps one
of two proofs of a candidate.

Each proof comes with the deal's rating (`difficulty_games` simulated games of a
human-like player, app/solver/difficulty.py), measured in the same piece of background
work, and a pool per variant and rating is kept: `SolvableDeals` keeps
`solvable_pool_size` unused proven deals of each rating per variant (candidates are
proven and rated in turn, each stored in its rating's pool, until every rating has its
size; a rating that already has `RATING_CAP` times the size unused keeps no more, so
that a rating the candidates seldom give fills in the end without making the others grow
without end, and `MAX_UNKEPT` proofs in a row that are not kept end the job until the
next deal dealt queues it again), queued at start-up and after each deal dealt. With
ratings off (`difficulty_games` 0) a variant keeps `solvable_pool_size` deals in all,
unrated. `claim` takes one unused row in
the transaction that inserts the game (FOR UPDATE SKIP LOCKED on PostgreSQL, the write
lock of BEGIN IMMEDIATE on SQLite), so each deal goes to one game only.

Who waits comes first (`services.background.cpu_pool`). A request without a difficulty that finds the
pool empty waits (`wait_for_deal`, at most `solvable_wait_seconds`, holding no database
connection) while its variant's filler proves candidates for it at `WAITING` priority,
unrated (a proof takes milliseconds, a rating seconds): each proof is stored at once
and dealt, and rated later (`REFILL`), its game's rating filled in then. The rated
pools of the games players ask for fill at `REFILL` priority, the others' at `AHEAD`,
with the daily deals of the days ahead. A request with a difficulty whose pool is empty is 503
`no_solvable_deals` at once, with a Retry-After from what this instance measured: the
time a candidate takes, over the share of candidates of that rating.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from typing import Any

from sqlalchemy import case, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.engine import VARIANTS, EngineError, Move, Rules, State, Variant, deal
from app.errors import NoSolvableDeals, retry_after
from app.i18n import N_
from app.models import Game, SolvableDeal
from app.seeds import public_deals
from app.services.background import jobs
from app.services.background.cpu_pool import AHEAD, REFILL, WAITING
from app.services.background.deal_prover import DealProver
from app.services.background.jobs import Taken
from app.services.background.proving import Proof, derive_deal
from app.solver.difficulty import LEVELS
from app.solver.result import wins

log = logging.getLogger("app.solvable")

# A rating's unused deals, at most, in pool sizes (module docstring).
RATING_CAP = 3
# Proofs in a row of full ratings after which a fill's job ends (until the next deal
# dealt queues it again): bounds the solver time a rating that no candidate gets
# (thresholds that leave a rating empty) can take.
MAX_UNKEPT = 64

# A candidate's proof and rating, in seconds, until one is measured (a rating takes
# 0.1-4 s: docs/benchmarks.md).
UNIT_SECONDS_GUESS = 3.0
# The longest Retry-After (and estimate) given for an empty pool.
MAX_RETRY_SECONDS = 300

KIND = "solvable"  # its jobs' kind
# How often a request waiting for a deal looks whether one is stored, and how often the
# requests of one process waiting for a game's deals raise its job in the queue again.
WAIT_POLL_SECONDS = 0.25
RAISE_SECONDS = 1.0


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


class SolvableDeals(DealProver):
    """The pools of proven deals of one running app: each game's pools are a job
    (`services.background.jobs`, kind `solvable`, subject the variant) that one worker fills."""

    def _own_state(self) -> None:
        # Set (and replaced) each time a deal of the variant is stored here: wakes the
        # requests waiting here at once (those on other instances look every
        # `WAIT_POLL_SECONDS`).
        self._stored = {variant: asyncio.Event() for variant in VARIANTS}
        self._next: dict[str, int] = {}  # this process's next candidate, per variant
        self._raised: dict[str, float] = {}  # when a waiter here last raised a job
        # Seconds one candidate takes (proof and rating), per variant (a guess until
        # measured), and how many proofs of each rating were seen: an empty pool's
        # Retry-After.
        self._unit_seconds = dict.fromkeys(VARIANTS, UNIT_SECONDS_GUESS)
        self._seen: dict[str, dict[str, int]] = {
            variant: dict.fromkeys(LEVELS, 0) for variant in VARIANTS
        }
        # Unused deals per variant and rating as last counted here (the metrics).
        self._levels: dict[str, dict[str | None, int]] = {}

    def levels(self) -> dict[tuple[str, str], int]:
        """Unused deals by (variant, rating) as this process last counted them; every
        rating of every variant, "unrated" for deals proven for a waiting request."""
        ratings: list[str | None] = [*LEVELS, None] if self.settings.difficulty_games else [None]
        return {
            (variant, rating or "unrated"): self._levels.get(variant, {}).get(rating, 0)
            for variant in VARIANTS
            for rating in ratings
        }

    async def retry_after(self, variant: str, difficulty: str | None = None) -> int:
        """Seconds until a deal of `variant` (of rating `difficulty`) may be ready
        (`estimate`), its pool asked for (`demand`) first."""
        async with self.sessionmaker() as session:
            filling = await self.filling(session)
        return self.estimate(variant, difficulty, filling)

    async def filling(self, session: AsyncSession) -> set[str]:
        """The games whose pools fill at once now (their jobs queued or running at
        `REFILL` or more urgent): what `estimate` counts."""
        return await jobs.busy(session, KIND, REFILL)

    def estimate(self, variant: str, difficulty: str | None, filling: set[str]) -> int:
        """Seconds until a deal of `variant` (of rating `difficulty`) may be ready, its
        pool filling beside those of the games in `filling`: the time a candidate takes,
        times the games whose pools fill at once (each unit takes its turn in the one
        line), over the share of candidates of that rating seen so far. Each candidate is
        a fresh draw, so the wait still ahead does not shrink with the time waited: a
        retry refused again gets the same estimate, brought up to date."""
        seconds = self._unit_seconds.get(variant, UNIT_SECONDS_GUESS)
        seconds *= len(filling | {variant})
        if difficulty is not None and variant in self._seen:
            seen = self._seen[variant]
            # One of each rating assumed beside those seen: no rating is ever "never".
            share = (seen.get(difficulty, 0) + 1) / (sum(seen.values()) + len(LEVELS))
            seconds /= share
        return min(MAX_RETRY_SECONDS, max(1, math.ceil(seconds)))

    # --- requests

    async def demand(self, variant: str, priority: int) -> None:
        """Queue the variant's pools' job at `priority` (or raise it): `REFILL` once a
        player asked for one of its deals, `WAITING` while a request waits for one."""
        async with self.sessionmaker() as session:
            await jobs.enqueue(session, KIND, variant, priority)
        self.queued(KIND, variant, priority)

    async def claimed(self, variant: str) -> None:
        """A deal of `variant` was dealt: top its pool up again."""
        await self.demand(variant, REFILL)

    async def wait_for_deal(self, variant: str, seconds: float) -> None:
        """Raise the variant's job to `WAITING` and wait until a deal of it is stored
        here, or `WAIT_POLL_SECONDS`, or `seconds`, whichever comes first (the caller
        then tries to claim one again, and waits again while it has time)."""
        if variant not in self._stored or seconds <= 0:
            return
        stored = self._stored[variant]
        # Told to this process's runner every time (free), written to the queue at most
        # every `RAISE_SECONDS` per variant here (a waiter on another instance's job).
        now = time.monotonic()
        if now - self._raised.get(variant, -RAISE_SECONDS) >= RAISE_SECONDS:
            self._raised[variant] = now
            await self.demand(variant, WAITING)
        else:
            self.queued(KIND, variant, WAITING)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(min(seconds, WAIT_POLL_SECONDS)):
                await stored.wait()

    def _announce(self, variant: str) -> None:
        stored, self._stored[variant] = self._stored[variant], asyncio.Event()
        stored.set()

    # --- the job

    async def prepare(self) -> None:
        """Queue every game's pools (`AHEAD`: the games players ask for are raised to
        `REFILL` by their requests)."""
        async with self.sessionmaker() as session:
            for variant in VARIANTS:
                await jobs.enqueue(session, KIND, variant, AHEAD)
        self.queued(KIND, "", AHEAD)

    async def run_job(self, job: Taken) -> None:
        target = self.settings.solvable_pool_size if self.settings.solvable_prepare_ahead else 0
        await self.fill(job.subject, target, job)

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
        self._levels[variant] = counts
        return counts, max(stored_next, self._next.get(variant, 0))

    def _full(self, counts: dict[str | None, int], target: int) -> bool:
        """Does a variant with `counts` unused deals per rating need no more?"""
        if self.settings.difficulty_games == 0:
            return sum(counts.values()) >= target
        return all(counts.get(level, 0) >= target for level in LEVELS)

    def _kept(self, counts: dict[str | None, int], proof: Proof, target: int) -> bool:
        """Is there room for `proof` in its rating's pool (`RATING_CAP`)? An unrated
        proof (for a waiting request) always is."""
        if self.settings.difficulty_games == 0 or proof.difficulty is None:
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

    async def _rate_one(self, variant: str, job: Taken) -> bool:
        """Rate the variant's oldest deal proven unrated for a waiting request (dealt or
        not), and its game's rating with it; False when there is none."""
        async with self.sessionmaker() as session:
            row = (
                await session.execute(
                    select(SolvableDeal.seq, SolvableDeal.deal, SolvableDeal.positions)
                    .where(SolvableDeal.variant == variant, SolvableDeal.difficulty.is_(None))
                    .order_by(SolvableDeal.seq)
                    .limit(1)
                )
            ).one_or_none()
        if row is None:
            return False
        seq, number, positions = row
        rating = await self.prover.rate(variant, int(number), positions, lambda: job.priority)
        self._seen[variant][rating] = self._seen[variant].get(rating, 0) + 1
        async with self.sessionmaker() as session, unit_of_work(session):
            dealt = (
                await session.execute(
                    update(SolvableDeal)
                    .where(SolvableDeal.variant == variant, SolvableDeal.seq == seq)
                    .values(difficulty=rating)
                    .returning(SolvableDeal.game_id)
                )
            ).scalar_one_or_none()
            if dealt is not None:
                # Shown once the game is over (a solvable game's rating is hidden in
                # play): a game over already shows it as a change of its own.
                await session.execute(
                    update(Game)
                    .where(Game.id == dealt, Game.difficulty.is_(None))
                    .values(
                        difficulty=rating,
                        version=case(
                            (Game.status != "playing", Game.version + 1), else_=Game.version
                        ),
                    )
                )
        log.info("solvable %s: candidate %d rated %s after it was proven", variant, seq, rating)
        return True

    async def fill(self, variant: str, target: int, job: Taken | None = None) -> None:
        """Prove (and rate) candidates of `variant` until it has `target` unused deals of
        each rating (`_full`); while a request waits (the job at `WAITING`), prove for
        it first, unrated, and rate the deals proven so after (module docstring)."""
        job = job or Taken(KIND, variant, REFILL, 0)  # a fill called directly
        public = set(public_deals(self.settings.seeds_dir, variant))
        unkept = 0
        rated = self.settings.difficulty_games > 0
        while True:
            counts, seq = await self._pool_state(variant)
            waiting = job.priority <= WAITING
            if not waiting and rated and await self._rate_one(variant, job):
                continue
            if not waiting and self._full(counts, target):
                return
            if not waiting and unkept >= MAX_UNKEPT:
                log.warning("solvable %s: %d proofs in a row of full ratings", variant, unkept)
                return
            self._next[variant] = seq + 1
            number = solvable_candidate(self.secret, variant, seq)
            if number in public:
                continue
            proof, stored = await self._prove(variant, seq, number, counts, target, job)
            unkept = 0 if stored else unkept + (proof is not None and not waiting)
            if waiting and stored:
                await self._served(job)

    async def _served(self, job: Taken) -> None:
        """A deal was stored for the requests waiting: the job back to `REFILL`, until
        one still waiting (its deal taken by another) raises it again: here at once,
        from another instance within `RAISE_SECONDS`, so the job looks that long before
        it goes on (rating first) at `REFILL`."""
        async with self.sessionmaker() as session:
            await jobs.lower(session, job, below=REFILL, to=REFILL)
        deadline = time.monotonic() + RAISE_SECONDS + 0.25
        while job.priority > WAITING and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if job.priority > WAITING:
            async with self.sessionmaker() as session:
                now = await jobs.priority_of(session, job.kind, job.subject)
            if now is not None:
                job.priority = min(job.priority, now)

    async def _prove(
        self,
        variant: str,
        seq: int,
        number: int,
        counts: dict[str | None, int],
        target: int,
        job: Taken,
    ) -> tuple[Proof | None, bool]:
        """Prove (and rate, unless a request waits for it) candidate `seq`, and store it
        where its pool has room: the proof, and whether it was stored."""
        rated = self.settings.difficulty_games > 0 and job.priority > WAITING
        started = time.monotonic()
        proof = await self.prover.prove(
            variant, number, lambda: job.priority, kind="solvable", rated=rated
        )
        kept = proof is not None and self._kept(counts, proof, target)
        stored = kept and proof is not None and await self._store(variant, seq, proof)
        if rated:  # a unit as a refill runs it: what a rating's Retry-After counts on
            took = time.monotonic() - started
            self._unit_seconds[variant] = 0.7 * self._unit_seconds[variant] + 0.3 * took
            if proof is not None and proof.difficulty in self._seen[variant]:
                self._seen[variant][proof.difficulty] += 1
        if proof is not None and stored:
            self._announce(variant)
            log.info(
                "solvable %s: candidate %d proven (%d positions, %d ms), %s",
                variant,
                seq,
                proof.positions,
                proof.elapsed_ms,
                proof.difficulty or "unrated",
            )
        return proof, bool(stored)
