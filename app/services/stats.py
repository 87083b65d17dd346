"""A player's statistics, per variant, computed from their games (nothing stored twice).
Practice games (a game record played again, a copy of a game, a daily game of a past
date: `Game.practice`) are not counted, but in `daily_played`, which counts every daily
game."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.engine import VARIANTS
from app.models import Game, Player
from app.schemas import PlayerStats, VariantStats
from app.services.daily.deals import utc_today
from app.services.daily.ranking import ranked_win


def streaks(days: set[date], today: date) -> tuple[int, int]:
    """(current, longest) runs of consecutive dates. The current run ends today, or
    yesterday when today's deal is not won yet (the streak is not broken before the
    day is over)."""
    current = 0
    end = today if today in days else today - timedelta(days=1)
    while end - timedelta(days=current) in days:
        current += 1
    longest = 0
    for day in days:
        if day - timedelta(days=1) not in days:  # the first day of a run
            length = 1
            while day + timedelta(days=length) in days:
                length += 1
            longest = max(longest, length)
    return current, longest


async def player_stats(session: AsyncSession, player: Player) -> PlayerStats:
    counted = Game.practice.is_(False)
    one_played = case((counted, 1), else_=0)
    won = case((and_(counted, Game.status == "won"), 1), else_=0)
    daily = case((Game.daily_date.is_not(None), 1), else_=0)
    # Daily wins and streaks count only wins without the solver's help (as the results
    # rank them); `won` counts every win.
    won_days: dict[str, set[date]] = defaultdict(set)
    async with unit_of_work(session, write=False):
        totals = {
            variant: (int(played), int(wins), int(daily_played))
            for variant, played, wins, daily_played in await session.execute(
                select(Game.variant, func.sum(one_played), func.sum(won), func.sum(daily))
                .where(Game.player_id == player.id, or_(counted, Game.daily_date.is_not(None)))
                .group_by(Game.variant)
            )
        }
        for variant, day in await session.execute(
            select(Game.variant, Game.daily_date).where(
                Game.player_id == player.id,
                Game.daily_date.is_not(None),
                ranked_win(),
            )
        ):
            if day is not None:  # excluded by the query; for the type checker
                won_days[variant].add(day)
    today = utc_today()
    items = []
    # Every variant, in the catalogue's order, so clients see a stable shape.
    for variant in VARIANTS:
        played, wins, daily_played = totals.get(variant, (0, 0, 0))
        current, longest = streaks(won_days[variant], today)
        items.append(
            VariantStats(
                variant=variant,
                played=played,
                won=wins,
                win_rate=round(wins / played, 4) if played else None,
                daily_played=daily_played,
                daily_wins=len(won_days[variant]),
                daily_streak=current,
                longest_daily_streak=longest,
            )
        )
    return PlayerStats(player_id=player.id, variants=items)
