"""A player's game of the daily deal: found, or created on the first call (its deal
prepared first). Daily games are ordinary games (`games.create_game` with `daily_date`,
played through `games.apply_moves`); the unique (player, variant, daily_date, slot)
constraint makes "one game per player per deal" hold under any concurrency."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import unit_of_work
from app.errors import (
    TooManyGames,
)
from app.models import DailyDeal, Game, Player
from app.schemas import GameState
from app.services import games
from app.services.daily.deals import (
    DailyDeals,
    check_difficulty,
    playable_day,
    slot_of,
    stored_deal,
)
from app.services.games import Answer
from app.services.kit import account_bounds
from app.services.kit.account_bounds import PlayerBounds


async def own_game(
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
        existing = await own_game(session, player_id, variant, day, slot)
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
                existing = await own_game(session, player_id, variant, day, pick.slot)
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
