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

Daily games are ordinary games (`games.create_game` with `daily_date`, played
through `games.apply_move`); the unique (player, variant, daily_date) constraint
makes "one game per player per day" hold under any concurrency.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import aliased
from sqlalchemy.sql.elements import ColumnElement

from app.config import Settings
from app.db import unit_of_work
from app.engine import VARIANTS
from app.errors import (
    DailyNotAvailable,
    DailyNotReady,
    InvalidCursor,
    TooManyGames,
    ValidationFailed,
    retry_after,
)
from app.i18n import N_
from app.models import DailyDeal, Game, Player
from app.schemas import DailyOut, DailyOwnResult, DailyResultEntry, DailyResults, GameState
from app.seeds import public_deals
from app.services import games
from app.services.background import jobs
from app.services.background.cpu_pool import AHEAD, DAILY, TODAY, WorkPool
from app.services.background.jobs import Queued, Taken
from app.services.background.proving import Proof, derive_deal
from app.services.daily.ranking import day_end, deal_published, is_ranked, unranked_reason
from app.services.games import Answer
from app.services.kit import account_bounds
from app.services.kit.account_bounds import PlayerBounds
from app.services.kit.page_cursors import PageCursors
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


class DailyDeals:
    """Prepares and stores daily deals for one running app: each deal is a job
    (`services.background.jobs`, kind `daily`, `<variant>|<date>|<slot>`) that one worker proves."""

    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        secret: str,
        prover: WorkPool,
        queued: Queued | None = None,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.secret = secret
        self.prover = prover
        # Told of each job queued here (this process's runner, when it has one).
        self.queued: Queued = queued or jobs.unheard
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


# --- the endpoints' use cases ----------------------------------------------


async def daily_info(
    session: AsyncSession,
    variant_name: str,
    day_text: str,
    first_day: date,
    difficulty: str | None = None,
) -> DailyOut:
    """Who played (while the date was current) and who won ranked; the deal number only
    once the date is over. A past date's answer no longer changes: practice games are
    counted in neither figure. `difficulty`: of the date's deal of that rating."""
    variant, day = playable_day(variant_name, day_text, first_day)
    async with unit_of_work(session, write=False):
        first = await stored_deal(session, variant, day)
    slot = slot_of(first, difficulty)
    contest = and_(
        Game.variant == variant,
        Game.daily_date == day,
        Game.daily_slot == slot,
        Game.created_at < day_end(day),
    )
    async with unit_of_work(session, write=False):
        players, wins = (
            await session.execute(
                select(
                    func.count(Game.id),
                    func.coalesce(func.sum(case((ranked_win(), 1), else_=0)), 0),
                ).where(contest)
            )
        ).one()
        number = None
        if deal_published(day, datetime.now(UTC)):
            stored = await stored_deal(session, variant, day, slot)
            number = int(stored.deal) if stored else None
    return DailyOut(
        variant=variant,
        date=day.isoformat(),
        players=int(players),
        wins=int(wins),
        deal=number,
        ends_at=day_end(day),
        difficulty=difficulty or (first.difficulty if first else None),  # type: ignore[arg-type]
    )


def ranked_win() -> ColumnElement[bool]:
    """A win that counts in the daily results, daily wins and streaks: a ranked game
    (`ranking`: started on its date, no undo, hint or finish, won before the date ended)."""
    return and_(Game.status == "won", Game.ranked.is_(True), Game.assisted.is_(False))


async def _own_game(
    session: AsyncSession, player_id: str, variant: str, day: date, slot: str
) -> Game | None:
    query = select(Game).where(
        Game.player_id == player_id,
        Game.variant == variant,
        Game.daily_date == day,
        Game.daily_slot == slot,
    )
    return (await session.execute(query)).scalar_one_or_none()


async def _pick(
    session: AsyncSession,
    deals: DailyDeals,
    player_id: str,
    variant: str,
    day: date,
    difficulty: str | None,
) -> tuple[games.DailyPick, Game | None]:
    """Which of the date's deals a game of rating `difficulty` (None: the first deal)
    plays, and the player's game of it if there is one. The first deal is prepared first
    when a rating is asked (its own rating decides whether it is the one). A daily deal's
    rating is public (`GET /daily` says it, and the date offers a deal per rating), so its
    game shows it from the start."""
    if difficulty is not None:
        first: DailyDeal | None = await deals.first_deal(session, variant, day)
    async with unit_of_work(session, write=False):
        if difficulty is None:
            first = await stored_deal(session, variant, day)
        slot = slot_of(first, difficulty)
        existing = await _own_game(session, player_id, variant, day, slot)
    rating = difficulty or (first.difficulty if first else None)
    return games.DailyPick(slot, rating, True), existing


async def daily_game(
    session: AsyncSession,
    deals: DailyDeals,
    player: Player,
    variant_name: str,
    day_text: str,
    difficulty: str | None = None,
    *,
    bounds: PlayerBounds | None = None,
) -> tuple[Answer[GameState], bool]:
    """The player's game of the day (of the date's deal of rating `difficulty`; None:
    the first deal) and whether it was created now. A new one counts among the games
    of the player's `bounds` (services.kit.account_bounds), checked before its deal is prepared and
    again as it is inserted."""
    variant, day = playable_day(variant_name, day_text, deals.settings.daily_first_date)
    check_difficulty(deals.settings, difficulty)
    player_id = player.id  # read once: a rollback expires the ORM object
    pick, existing = await _pick(session, deals, player_id, variant, day, difficulty)
    if existing is None:
        try:
            return await _new_daily_game(session, deals, player, variant, day, pick, bounds), True
        except (IntegrityError, TooManyGames):
            # A concurrent first call created it (create_game rolled back; or it was counted
            # first, and took the player's last game of the hour): use that one.
            async with unit_of_work(session, write=False):
                existing = await _own_game(session, player_id, variant, day, pick.slot)
            if existing is None:
                raise
    return await games.get_game(session, player, existing.id), False


async def _new_daily_game(
    session: AsyncSession,
    deals: DailyDeals,
    player: Player,
    variant: str,
    day: date,
    pick: games.DailyPick,
    bounds: PlayerBounds | None,
) -> Answer[GameState]:
    """The player's game of the date's deal `pick`, created (its deal prepared first)."""
    async with unit_of_work(session, write=False):
        # A first look: a player past the bound makes the server prove nothing.
        await account_bounds.check_new_game(
            session, player.id, bounds, source="daily", variant=variant, lock=False
        )
    number = await deals.deal_for(session, variant, day, pick.slot)
    if pick.difficulty is None and deals.settings.difficulty_games:
        # The first deal, proven just now: its rating.
        async with unit_of_work(session, write=False):
            first = await stored_deal(session, variant, day)
        pick = games.DailyPick("", first.difficulty if first else None, True)
    return await games.create_game(
        session,
        player,
        variant_name=variant,
        deal_number=number,
        solvable=False,
        rules=None,
        settings=None,
        daily_date=day,
        daily=pick,
        bounds=bounds,
    )


def _duration_ms(session: AsyncSession, game: Any) -> ColumnElement[Any]:
    """won_at - created_at in milliseconds, in the database's own date arithmetic."""
    if session.get_bind().dialect.name == "sqlite":
        return (func.julianday(game.won_at) - func.julianday(game.created_at)) * 86_400_000
    return func.extract("epoch", game.won_at - game.created_at) * 1000


def _ms(game: Game) -> int:
    return round((_aware(game.won_at) - _aware(game.created_at)).total_seconds() * 1000)


def _aware(moment: datetime | None) -> datetime:
    assert moment is not None  # only for won games
    # SQLite hands back naive datetimes; every stored time is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


RESULTS_CURSOR = "daily-results"


def _ranks_before(session: AsyncSession, a: Any, b: Any) -> ColumnElement[bool]:
    """Does game `a` rank before game `b` (by moves, then time taken, then id), compared
    in SQL as the results list orders them?"""
    a_ms, b_ms = _duration_ms(session, a), _duration_ms(session, b)
    same_moves = a.move_count == b.move_count
    return or_(
        a.move_count < b.move_count,
        and_(same_moves, a_ms < b_ms),
        and_(same_moves, a_ms == b_ms, a.id < b.id),
    )


class ResultsPage:
    """Where a page of the results starts: after `offset` winners, or after the winner a
    cursor names (its rank found again, so ranks stay right as wins are added)."""

    def __init__(self, *, offset: int, cursor: str | None, cursors: PageCursors | None) -> None:
        if cursor and offset:
            raise ValidationFailed(
                N_("give `cursor` or `offset`, not both (offset 0 is its default)"),
                field="cursor",
                fault="cursor_and_offset",
            )
        self.offset, self.cursor, self.cursors = offset, cursor, cursors

    def _after_id(self, variant: str, day: date) -> str | None:
        if not self.cursor:  # `cursor=` empty: the first page, as for `GET /games`
            return None
        if self.cursors is None:
            raise InvalidCursor()
        match self.cursors.open(RESULTS_CURSOR, _results_context(variant, day), self.cursor):
            case [str(game_id)]:
                return game_id
        raise InvalidCursor()

    async def rows(
        self, session: AsyncSession, variant: str, day: date, won: ColumnElement[bool], limit: int
    ) -> tuple[int, list[Any]]:
        """The rank before the page's first winner, and the page's (game, name) rows."""
        query = (
            select(Game, Player.name)
            .join(Player, Player.id == Game.player_id)
            .where(won)
            .order_by(Game.move_count, _duration_ms(session, Game), Game.id)
            .limit(limit)
        )
        after_id = self._after_id(variant, day)
        if after_id is None:
            rows = (await session.execute(query.offset(self.offset))).all()
            return self.offset, list(rows)
        mark = (await session.execute(select(Game).where(Game.id == after_id, won))).scalar()
        if mark is None:  # sealed by this server, so only a winner that is gone
            raise InvalidCursor()
        before = await _rank(session, mark, won) + 1
        last = aliased(Game)
        query = query.join(last, last.id == mark.id).where(_ranks_before(session, last, Game))
        return before, list((await session.execute(query)).all())

    def next_cursor(self, variant: str, day: date, game: Game) -> str | None:
        if self.cursors is None:
            return None
        return self.cursors.seal(RESULTS_CURSOR, _results_context(variant, day), [game.id])


def _results_context(variant: str, day: date) -> str:
    return f"{variant}|{day.isoformat()}"


async def daily_results(
    session: AsyncSession,
    player: Player | None,
    variant_name: str,
    day_text: str,
    *,
    first_day: date,
    limit: int,
    offset: int,
    cursor: str | None = None,
    cursors: PageCursors | None = None,
    difficulty: str | None = None,
) -> DailyResults:
    """Ranked winners (`ranked_win`) by moves, then time taken, then who was first to the
    game. The caller's own game is shown whatever it is; an unranked win has no rank.
    A page starts after `offset` winners, or after the winner of a `cursor` (a page's
    `next_cursor`; `offset` then stays 0). `difficulty`: the ranking of the date's deal
    of that rating."""
    page = ResultsPage(offset=offset, cursor=cursor, cursors=cursors)
    variant, day = playable_day(variant_name, day_text, first_day)
    async with unit_of_work(session, write=False):
        slot = slot_of(await stored_deal(session, variant, day), difficulty)
    won = and_(
        Game.variant == variant, Game.daily_date == day, Game.daily_slot == slot, ranked_win()
    )
    async with unit_of_work(session, write=False):
        total = (await session.execute(select(func.count(Game.id)).where(won))).scalar_one()
        before, rows = await page.rows(session, variant, day, won, limit)
        items = [
            DailyResultEntry(
                rank=before + i + 1,
                name=name,
                moves=game.move_count,
                time_ms=_ms(game),
                won_at=_aware(game.won_at),
            )
            for i, (game, name) in enumerate(rows)
        ]
        me = await _own_result(session, player, variant, day, slot, won)
    end = before + len(rows)
    more = bool(rows) and end < total
    return DailyResults(
        variant=variant,
        date=day.isoformat(),
        difficulty=difficulty,  # type: ignore[arg-type]  # a Difficulty, checked by the router
        total=int(total),
        items=items,
        next_offset=end if more else None,
        next_cursor=page.next_cursor(variant, day, rows[-1][0]) if more else None,
        me=me,
    )


async def _own_result(
    session: AsyncSession,
    player: Player | None,
    variant: str,
    day: date,
    slot: str,
    won: ColumnElement[bool],
) -> DailyOwnResult | None:
    """The caller's own game of the day, ranked or not (none without a token)."""
    if player is None:
        return None
    mine = await _own_game(session, player.id, variant, day, slot)
    if mine is None:
        return None
    won_mine = mine.status == "won"
    now = datetime.now(UTC)
    rank = None
    if won_mine and mine.ranked and not mine.assisted:
        rank = await _rank(session, mine, won) + 1
    return DailyOwnResult(
        game_id=mine.id,
        status=mine.status,  # type: ignore[arg-type]  # a Status, as stored
        moves=mine.move_count,
        assisted=mine.assisted,
        ranked=is_ranked(mine, now),
        unranked_reason=unranked_reason(mine, now),  # type: ignore[arg-type]  # one of UNRANKED
        rank=rank,
        time_ms=_ms(mine) if won_mine else None,
    )


async def _rank(session: AsyncSession, mine: Game, won: ColumnElement[bool]) -> int:
    """How many winners rank before `mine`, compared in SQL as the list orders them."""
    me = aliased(Game)
    query = (
        select(func.count(Game.id))
        .join(me, me.id == mine.id)
        .where(won, _ranks_before(session, Game, me))
    )
    return int((await session.execute(query)).scalar_one())
