"""The daily deal's ranking: which daily games count, and when a deal's number is public.

A ranked win is a clean one: the game was started while its date was current (UTC), was
never helped (no hint, no finish) nor taken back (no undo: an undo would show a drawn
card or a face-down card and take the move back), and was won before its date ended.
At the end of the date the deal's number is published (`GET /daily/...` shows it); no
ranked game can be played from then on, so the number can help nobody's rank. A move
played after that makes the game unranked; a game of a past date is practice from its
start. `Game.ranked` keeps what the game's history decided; `is_ranked` adds the clock.

A win is judged when it is played (`judge_win`): one that mostly follows a line the
solver revealed for the deal that day (a finish's moves, hinted moves: `revealed_share`,
at least `REVEALED_SHARE` of its layouts) or that was played faster than a person plays
(`pace_ms`, a median under `MIN_MOVE_MS` per move) is not ranked. Why a daily game is not
ranked is kept with it (`Game.unranked_reason`, one of `UNRANKED`) and shown
(`unranked_reason`). docs/decisions/0001-daily-ranking.md gives the measures' reasons.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final

from sqlalchemy import and_
from sqlalchemy.sql.elements import ColumnElement

from app.engine import State
from app.models import Game

# Why a daily game is not ranked (`unranked_reason`), the first reason it met:
PAST_DATE: Final = "past_date"  # started once its date was over: practice
ASSISTED: Final = "assisted"  # a hint, a finish, or a position the solver said is lost
UNDONE: Final = "undone"  # an undo
RESIGNED: Final = "resigned"
LATE: Final = "late"  # in play (or moved) once its date was over
STUCK: Final = "stuck"  # no move left but an undo (shown, not kept: an undo unranks)
REVEALED_LINE: Final = "revealed_line"  # won along a line the solver showed that day
TOO_FAST: Final = "too_fast"  # won faster than a person plays
UNRANKED: Final = (PAST_DATE, ASSISTED, UNDONE, RESIGNED, LATE, STUCK, REVEALED_LINE, TOO_FAST)

# A win at least this share of whose layouts lie on lines the solver revealed for its
# deal that day followed them (docs/decisions/0001-daily-ranking.md: an honest win's
# share, measured, stays far below; a replay is 1, a replay with its independent moves
# swapped in pairs 1/2).
REVEALED_SHARE: Final = 1 / 3
# A win whose median time per move (the player's own moves: draws and redeals aside) is
# below this was not played by a person: a pointed tap at a new card takes more.
MIN_MOVE_MS: Final = 250


def day_end(day: date) -> datetime:
    """The moment `day` is over (the next UTC midnight): its ranked games end, its deal's
    number is published."""
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=UTC)


def deal_published(day: date, now: datetime) -> bool:
    """Is the daily deal of `day` public at `now` (no ranked game of it can be played)?"""
    return now >= day_end(day)


def starts_ranked(daily_date: date | None, now: datetime) -> bool:
    """A new game is ranked when it plays the daily deal of the date that is current."""
    return daily_date is not None and now < day_end(daily_date) and daily_date <= now.date()


def keeps_rank(game: Game, now: datetime) -> bool:
    """May a move played at `now` leave a ranked game ranked (its date not over)?"""
    return game.daily_date is not None and not deal_published(game.daily_date, now)


def is_ranked(game: Game, now: datetime) -> bool:
    """What the game state shows as `ranked`: a won game that counts in its day's
    results, or a game in play that still can (its date is current and it is not stuck:
    a stuck game goes on only through an undo)."""
    if not game.ranked:
        return False
    if game.status == "won":
        return True
    return game.status == "playing" and keeps_rank(game, now)


def unranked(game: Game, reason: str) -> dict[str, Any]:
    """The marks that take the game's rank away (`save`'s values), with `reason` kept
    where the game was ranked until now (the first reason stays)."""
    if game.ranked:
        return {"ranked": False, "unranked_reason": reason}
    return {"ranked": False}


def unranked_reason(game: Game, now: datetime) -> str | None:
    """Why a daily game is not ranked (`UNRANKED`) at `now`; None when it is ranked (or
    can still be), and for every other game."""
    if game.daily_date is None or is_ranked(game, now):
        return None
    if game.ranked:  # its history left it ranked: the clock or the position says no
        return STUCK if game.status == "stuck" else LATE
    if game.unranked_reason:
        return game.unranked_reason
    # Unranked before the reasons were kept: what the row still tells.
    if game.assisted:
        return ASSISTED
    return RESIGNED if game.status == "resigned" else None


# --- judging a win ------------------------------------------------------------------


def layout_key(state: State) -> bytes:
    """A 16-byte digest of the position's layout: the tableau (with its face-down
    counts), the foundations and the reserve; not the stock, the waste nor the redeals
    left, which a player can cycle through without changing the line played."""
    layout = (state.tableau, state.hidden, state.foundations, state.reserve)
    return hashlib.blake2b(repr(layout).encode(), digest_size=16).digest()


def revealed_share(layouts: Iterable[bytes], revealed: Collection[bytes]) -> float:
    """The share of a game's distinct layouts (`layouts`: after each of its moves, its
    deal and its won end aside) that lie on a revealed line; 0 for none."""
    distinct = set(layouts)
    if not distinct:
        return 0.0
    return len(distinct.intersection(revealed)) / len(distinct)


def pace_ms(start: datetime, moves: Sequence[tuple[datetime, bool]]) -> float | None:
    """The median time, in ms, a player took for a move of their own: for each move
    (`moves`: its time, and whether it counts: draws and redeals, a tap on the same
    spot, do not), the time since the move before it (or since the game began); None
    where no move counts."""
    intervals = []
    before = start
    for at, counts in moves:
        if counts:
            intervals.append((at - before).total_seconds() * 1000)
        before = at
    return statistics.median(intervals) if intervals else None


def judge_win(share: float, pace: float | None) -> str | None:
    """Why a win that kept its rank to the end is not ranked after all: it followed a
    revealed line (`share`), or it was too fast (`pace`); None: it ranks."""
    if share >= REVEALED_SHARE:
        return REVEALED_LINE
    if pace is not None and pace < MIN_MOVE_MS:
        return TOO_FAST
    return None


def ranked_win() -> ColumnElement[bool]:
    """A win that counts in the daily results, daily wins and streaks: a ranked game
    (`ranking`: started on its date, no undo, hint or finish, won before the date ended)."""
    return and_(Game.status == "won", Game.ranked.is_(True), Game.assisted.is_(False))
