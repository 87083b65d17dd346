"""The deal of the day: one proven-winnable deal per variant and UTC date.

Choosing: candidate `attempt` of (variant, date) is HMAC-SHA256(secret,
"variant|date|attempt") read as a deal number; candidates in the public
`seeds/<variant>.json` list are skipped (anyone could recognise those from their
face-up cards), the others go to the prover (the solver) in turn until one is
solved within the budget. The first proof is stored in `daily_deals` and from then
on read, never recomputed, so a new secret, solver or budget cannot change a
day's deal. Each deal is a job of the queue (`services.background.jobs`, kind `daily`,
`<variant>|<date>|<slot>`): one worker proves it, whoever queued it reads its row (a
job whose worker died is taken again); and the unique (variant, day, slot) constraint
would keep the first of two proofs.

Solving is CPU work: each candidate is one proof in the `WorkPool` of the process that
runs the job, so the event loop stays free. `DailyDeals.run_ahead` queues today's and
the next `daily_days_ahead` days' deals at start-up and after each UTC midnight (their
ratings' deals too, with `daily_ratings_ahead`, once each first deal is known): today's
first deals at `TODAY` priority, the rest at `AHEAD`, after the work players wait for
(`services.background.cpu_pool`); a deal a player asks for moves up to `DAILY`, its queued proof
included. A request for a deal not ready yet queues its job (or raises it to `DAILY`)
and waits up to `daily_wait_seconds` for its row, holding no database connection
between looks, then answers 503 `daily_not_ready` with Retry-After. The work a request can start is bounded: dates before `daily_first_date`
are not daily deals (404), and beyond `daily_max_pending` past dates waited for in this
process a request for another is refused at once (503).

Ratings. Each proven deal is rated (`easy` .. `expert`, app/solver/difficulty.py) in the
same piece of work as its proof, and a date offers one deal per rating: its first deal
(chosen as above, the one without `?difficulty=`, slot "") is of its measured rating, and
each other rating gets a deal of its own (slot = the rating), from candidates
HMAC-SHA256(secret, "variant|date|rating|attempt") proven and rated in turn until one
has that rating (at most `daily_max_attempts`). So `?difficulty=` of the first deal's
rating is the first deal, and a player has one game per deal. A date's first deal
proven before ratings has none: then all four ratings get deals of their own.

The player's game of a deal is `daily.game`'s; who played, won and ranks, `daily.results`'s.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.db import unit_of_work
from app.engine import VARIANTS
from app.errors import (
    DailyNotAvailable,
    DailyNotReady,
    ValidationFailed,
    retry_after,
)
from app.i18n import N_
from app.models import DailyDeal
from app.seeds import public_deals
from app.services.background import jobs
from app.services.background.cpu_pool import AHEAD, DAILY, TODAY
from app.services.background.deal_prover import DealProver
from app.services.background.jobs import Taken
from app.services.background.proving import Proof, derive_deal
from app.services.daily.ranking import day_end
from app.services.variants import find_variant
from app.solver.difficulty import LEVELS

log = logging.getLogger("app.daily")

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
KIND = "daily"  # its jobs' kind
# How often a request waiting for a day's deal looks whether it is stored.
DEAL_POLL_SECONDS = 0.25
# After the database failed to queue the days ahead, try again after this long.
FAILURE_PAUSE_SECONDS = 10.0


# --- dates -------------------------------------------------------------------


def utc_today() -> date:
    return datetime.now(UTC).date()


def parse_day(text: str) -> date:
    """`YYYY-MM-DD` or `today` (UTC); anything else is 422 validation_error."""
    if text == "today":
        return utc_today()
    if _DATE.fullmatch(text):
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    raise ValidationFailed(
        N_("date: expected YYYY-MM-DD or 'today', not {text!r}"),
        params={"text": text},
        field="date",
        fault="date_format",
    )


def playable_day(variant_name: str, day_text: str, first_day: date) -> tuple[str, date]:
    """The canonical variant id and the date, refusing dates that have not begun and
    dates before the first daily deal (`daily_first_date`)."""
    variant = find_variant(variant_name).name
    day = parse_day(day_text)
    if day > utc_today():
        raise DailyNotAvailable(
            N_("the daily deal of {date} is not out yet"), params={"date": day.isoformat()}
        )
    if day < first_day:
        raise DailyNotAvailable(
            N_("there are daily deals from {first} on, not {date}"),
            params={"first": first_day.isoformat(), "date": day.isoformat()},
        )
    return variant, day


# --- choosing ------------------------------------------------------------------


def candidate(secret: str, variant: str, day: date, attempt: int, slot: str = "") -> int:
    """The `attempt`-th candidate deal number of a date's deal `slot` ("": the first;
    a rating); below 2**53 so JavaScript reads it exactly."""
    if slot:
        return derive_deal(secret, f"{variant}|{day.isoformat()}|{slot}|{attempt}")
    return derive_deal(secret, f"{variant}|{day.isoformat()}|{attempt}")


def check_difficulty(settings: Settings, difficulty: str | None) -> None:
    """A daily deal of a rating exists only where deals are rated."""
    if difficulty is not None and settings.difficulty_games == 0:
        raise DailyNotAvailable(N_("daily deals are not rated on this server"))


# --- storage -------------------------------------------------------------------


async def stored_deal(
    session: AsyncSession, variant: str, day: date, slot: str = ""
) -> DailyDeal | None:
    query = select(DailyDeal).where(
        DailyDeal.variant == variant, DailyDeal.day == day, DailyDeal.slot == slot
    )
    return (await session.execute(query)).scalar_one_or_none()


def slot_of(first: DailyDeal | None, difficulty: str | None) -> str:
    """The slot of a date's deal of rating `difficulty` (None: the first deal), given the
    date's first deal: "" when it is of that rating, else the rating."""
    if difficulty is None or (first is not None and first.difficulty == difficulty):
        return ""
    return difficulty


async def _store(
    session: AsyncSession, variant: str, day: date, slot: str, attempt: int, proof: Proof
) -> DailyDeal:
    """Keep the first choice: on a unique violation, another chooser won; read its deal."""
    row = DailyDeal(
        variant=variant,
        day=day,
        slot=slot,
        deal=str(proof.deal),
        attempt=attempt,
        positions=proof.positions,
        elapsed_ms=proof.elapsed_ms,
        line=proof.line,
        difficulty=proof.difficulty,
    )
    try:
        async with unit_of_work(session):
            session.add(row)
            await session.flush()
        return row
    except IntegrityError:
        stored = await stored_deal(session, variant, day, slot)
        if stored is None:
            raise
        return stored


def subject_of(variant: str, day: date, slot: str = "") -> str:
    """A daily deal's job subject."""
    return f"{variant}|{day.isoformat()}|{slot}"


def not_ready(variant: str, day: date, seconds: int) -> DailyNotReady:
    return DailyNotReady(
        N_("the daily deal of {variant} for {date} is still being prepared"),
        params={"variant": variant, "date": day.isoformat()},
        headers=retry_after(seconds),
    )


class DailyDeals(DealProver):
    """Prepares and stores daily deals for one running app: each deal is a job
    (`services.background.jobs`, kind `daily`, `<variant>|<date>|<slot>`) that one worker proves."""

    def _own_state(self) -> None:
        # Past dates' deals requests here wait for, and how many wait for each.
        self._past: dict[tuple[str, date, str], int] = {}
        self._ahead: asyncio.Task[None] | None = None

    # --- the job

    async def run_job(self, job: Taken) -> None:
        """Prove (and rate) the job's deal, unless it is stored already; a first deal
        prepared ahead queues its date's deals of the other ratings (`AHEAD`)."""
        variant, day_text, slot = job.subject.split("|")
        day = date.fromisoformat(day_text)
        async with self.sessionmaker() as session, unit_of_work(session, write=False):
            first = await stored_deal(session, variant, day, slot)
        if first is None:
            await self._prove_day(variant, day, slot, job)
        if slot == "" and self._ahead_of_time(day):
            await self._queue_ratings(variant, day)

    def _ahead_of_time(self, day: date) -> bool:
        """Is `day` one whose deals of every rating are prepared ahead?"""
        s = self.settings
        if not (s.daily_prepare_ahead and s.daily_ratings_ahead and s.difficulty_games):
            return False
        today = utc_today()
        return today <= day <= today + timedelta(days=s.daily_days_ahead)

    async def _queue_ratings(self, variant: str, day: date) -> None:
        async with self.sessionmaker() as session:
            async with unit_of_work(session, write=False):
                first = await stored_deal(session, variant, day)
            for slot in sorted(
                {slot_of(first, level) for level in LEVELS} - {""}, key=LEVELS.index
            ):
                await jobs.enqueue(session, KIND, subject_of(variant, day, slot), AHEAD)
        self.queued(KIND, "", AHEAD)

    async def _prove_day(self, variant: str, day: date, slot: str, job: Taken) -> int:
        """Prove (and rate) candidates until one is proven, of rating `slot` for a slot."""
        public = set(public_deals(self.settings.seeds_dir, variant))
        for attempt in range(self.settings.daily_max_attempts):
            number = candidate(self.secret, variant, day, attempt, slot)
            if number in public:
                continue
            proof = await self.prover.prove(variant, number, lambda: job.priority, kind="daily")
            if proof is None or (slot and proof.difficulty != slot):
                log.debug(
                    "daily %s %s%s: candidate %d not taken",
                    variant,
                    day,
                    f" {slot}" if slot else "",
                    attempt,
                )
                continue
            async with self.sessionmaker() as session:
                row = await _store(session, variant, day, slot, attempt, proof)
            log.info(
                "daily %s %s%s: deal chosen at attempt %d (%d positions, %d ms), %s",
                variant,
                day,
                f" {slot}" if slot else "",
                attempt,
                proof.positions,
                proof.elapsed_ms,
                proof.difficulty or "unrated",
            )
            return int(row.deal)
        raise RuntimeError(
            f"no daily deal of {variant} for {day} {slot} proven in "
            f"{self.settings.daily_max_attempts} attempts"
        )

    # --- requests

    def retry_after(self) -> int:
        return max(1, math.ceil(self.settings.daily_wait_seconds))

    async def first_deal(self, session: AsyncSession, variant: str, day: date) -> DailyDeal:
        """The day's first deal (slot ""), choosing it now if nobody has yet."""
        await self.deal_for(session, variant, day)
        async with unit_of_work(session, write=False):
            first = await stored_deal(session, variant, day)
        if first is None:  # stored before deal_for returned; never deleted
            raise not_ready(variant, day, self.retry_after())
        return first

    async def deal_for(self, session: AsyncSession, variant: str, day: date, slot: str = "") -> int:
        """The day's deal number of `slot`: stored, or queued now at `DAILY` priority (or
        raised to it) and waited for, up to `daily_wait_seconds`, with no database
        connection held between looks. Past dates are any number and each costs a
        search: beyond `daily_max_pending` of them waited for here, one more is 503 at
        once; today's are prepared ahead and few (four per variant), so never refused."""
        # The read ends with its unit of work (the authentication's too): the connection
        # goes back to the pool instead of idling for seconds while the prover works.
        async with unit_of_work(session, write=False):
            stored = await stored_deal(session, variant, day, slot)
        if stored is not None:
            return int(stored.deal)
        key = (variant, day, slot)
        past = day < utc_today()
        if past and key not in self._past and len(self._past) >= self.settings.daily_max_pending:
            raise not_ready(variant, day, self.retry_after())
        if past:
            self._past[key] = self._past.get(key, 0) + 1
        try:
            return await self._wait_for(session, variant, day, slot)
        finally:
            if past:
                self._past[key] -= 1
                if not self._past[key]:
                    del self._past[key]

    async def _wait_for(self, session: AsyncSession, variant: str, day: date, slot: str) -> int:
        subject = subject_of(variant, day, slot)
        await jobs.enqueue(session, KIND, subject, DAILY)
        self.queued(KIND, subject, DAILY)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.daily_wait_seconds
        while True:
            async with unit_of_work(session, write=False):
                stored = await stored_deal(session, variant, day, slot)
            if stored is not None:
                return int(stored.deal)
            if await jobs.state_of(session, KIND, subject) == jobs.FAILED:
                # Logged by its worker; the next request queues it afresh.
                raise not_ready(variant, day, 60)
            if loop.time() >= deadline:
                raise not_ready(variant, day, self.retry_after())
            await asyncio.sleep(min(DEAL_POLL_SECONDS, max(0.0, deadline - loop.time())))

    # --- ahead of time

    async def prepare(self, days: list[date]) -> None:
        """Queue each day's first deals: today's at `TODAY` priority (after the work
        players wait for, a request raises its deal to `DAILY`), later days' at `AHEAD`
        (each first deal then queues its date's other ratings, `run_job`)."""
        today = utc_today()
        async with self.sessionmaker() as session:
            for day in days:
                priority = TODAY if day == today else AHEAD
                for variant in VARIANTS:
                    await jobs.enqueue(session, KIND, subject_of(variant, day, ""), priority)
        self.queued(KIND, "", TODAY)

    async def _run_ahead(self) -> None:
        while True:
            today = utc_today()
            days = [today + timedelta(days=n) for n in range(self.settings.daily_days_ahead + 1)]
            days = [d for d in days if d >= self.settings.daily_first_date]
            try:
                await self.prepare(days)
                names = ", ".join(str(d) for d in days)
                log.info("daily deals: %s queued for %d variants", names, len(VARIANTS))
            except SQLAlchemyError as exc:  # the database away: try again soon
                log.warning("daily deals: not queued (%s)", exc)
                await asyncio.sleep(FAILURE_PAUSE_SECONDS)
                continue
            # Wake a little after midnight: then a new day is the one to prepare.
            delay = (day_end(today) - datetime.now(UTC)).total_seconds() + 5
            await asyncio.sleep(max(delay, 5))

    def start(self) -> None:
        if self.settings.daily_prepare_ahead and self._ahead is None:
            self._ahead = asyncio.create_task(self._run_ahead(), name="daily ahead")

    async def close(self) -> None:
        if self._ahead is not None:
            self._ahead.cancel()
            await asyncio.gather(self._ahead, return_exceptions=True)
            self._ahead = None
