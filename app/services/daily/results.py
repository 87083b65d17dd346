"""What a daily deal's page shows: who played and who won (`daily_info`), and the ranked
winners by moves, then time taken (`daily_results`), paged by offset or by a sealed
cursor, with the caller's own game and rank."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased
from sqlalchemy.sql.elements import ColumnElement

from app.db import unit_of_work
from app.errors import (
    InvalidCursor,
    ValidationFailed,
)
from app.i18n import N_
from app.models import Game, Player
from app.schemas import DailyOut, DailyOwnResult, DailyResultEntry, DailyResults
from app.services.daily.deals import playable_day, slot_of, stored_deal
from app.services.daily.game import own_game
from app.services.daily.ranking import (
    day_end,
    deal_published,
    is_ranked,
    ranked_win,
    unranked_reason,
)
from app.services.kit.page_cursors import PageCursors


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
    mine = await own_game(session, player.id, variant, day, slot)
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
