"""Lines the solver revealed for a daily deal while its date was current, kept in the
database (every instance sees them): the layouts (`ranking.layout_key`) reached by the
moves a finish played or a hint named on a daily game of the current date. A win of
that deal is judged against them (`ranking.revealed_share`): a second account replaying
what the first was shown does not rank.

Bounded: one row per distinct layout per deal (a finish adds at most its line's length,
`FINISH_MAX_MOVES`; a hint one), and the rows of dates that are over are deleted as new
ones come (their games can no longer be ranked).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import dialect_insert, unit_of_work
from app.engine import State
from app.models import Game, RevealedPosition, utcnow
from app.services.daily import ranking

# Rows per INSERT statement (well under SQLite's bound on parameters).
_CHUNK = 500


def _deal_of(game: Game) -> tuple[str, object, str] | None:
    """The daily deal whose revealed lines count for the game, while its date is
    current; None for every other game (nothing of its deal can be ranked)."""
    if not ranking.keeps_rank(game, utcnow()):
        return None
    return game.variant, game.daily_date, game.daily_slot


async def record(session: AsyncSession, game: Game, positions: Iterable[State]) -> None:
    """Keep the layouts of `positions` (each reached by a revealed move) for the game's
    daily deal, in the caller's transaction; nothing for a game that is not a daily game
    of the current date. The won layout is left out: every win ends in it."""
    deal = _deal_of(game)
    if deal is None:
        return
    variant, day, slot = deal
    keys = sorted({ranking.layout_key(state) for state in positions if not state.is_won})
    if not keys:
        return
    now = utcnow()
    # In key order: two instances recording overlapping lines lock the same rows in the
    # same order.
    values = [
        {"variant": variant, "day": day, "slot": slot, "key": key, "created_at": now}
        for key in keys
    ]
    statement = dialect_insert(session, RevealedPosition).on_conflict_do_nothing()
    for i in range(0, len(values), _CHUNK):
        await session.execute(statement, values[i : i + _CHUNK])
    await session.execute(delete(RevealedPosition).where(RevealedPosition.day < now.date()))


async def record_alone(session: AsyncSession, game: Game, positions: Iterable[State]) -> None:
    """`record` in a unit of work of its own (a hint's move)."""
    if _deal_of(game) is None:
        return
    async with unit_of_work(session):
        await record(session, game, positions)


async def revealed_keys(session: AsyncSession, game: Game) -> set[bytes]:
    """The layouts revealed for the game's daily deal (empty for any other game)."""
    if game.daily_date is None:
        return set()
    query = select(RevealedPosition.key).where(
        RevealedPosition.variant == game.variant,
        RevealedPosition.day == game.daily_date,
        RevealedPosition.slot == game.daily_slot,
    )
    return {bytes(key) for key in (await session.execute(query)).scalars()}
