"""The daily deal's ranking: which daily games count, and when a deal's number is public.

A ranked win is a clean one: the game was started while its date was current (UTC), was
never helped (no hint, no finish) nor taken back (no undo: an undo would show a drawn
card or a face-down card and take the move back), and was won before its date ended.
At the end of the date the deal's number is published (`GET /daily/...` shows it); no
ranked game can be played from then on, so the number can help nobody's rank. A move
played after that makes the game unranked; a game of a past date is practice from its
start. `Game.ranked` keeps what the game's history decided; `is_ranked` adds the clock.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from app.models import Game


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
