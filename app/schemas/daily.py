"""Daily deals, their results, and the statistics."""

from __future__ import annotations

from pydantic import (
    BaseModel,
    Field,
)

from app.schemas.common import Difficulty, ShownDeal, Timestamp, _WithDeal
from app.schemas.games import UNRANKED_REASON_DOC, GameStatus, UnrankedReason

# --- daily deals and statistics --------------------------------------------------


class DailyOut(_WithDeal):
    variant: str = Field(examples=["rank-and-file"])
    date: str = Field(description="The UTC date, YYYY-MM-DD.", examples=["2026-11-29"])
    players: int = Field(
        description="Players who started this daily game while its date was current "
        "(practice games of a past date are not counted)."
    )
    wins: int = Field(description="Ranked wins: won cleanly (no undo, hint or finish) in time.")
    deal: ShownDeal = Field(
        description="The deal number (up to 2^53 - 1: server-chosen deals stay below it; "
        "`deal_str` carries it as a string); null until the date is over (then no ranked "
        "game of it can be played any more)."
    )
    ends_at: Timestamp = Field(description="When the date is over (the next UTC midnight).")
    difficulty: Difficulty | None = Field(
        description="This deal's measured rating (with `?difficulty=`: the one asked for); "
        "null for a deal proven before ratings."
    )


class DailyResultEntry(BaseModel):
    rank: int = Field(description="1 is best: fewest moves, then the shortest time.")
    name: str | None = Field(description="The player's name, if they gave one.")
    moves: int
    time_ms: int = Field(description="From the game's creation to the winning move.")
    won_at: Timestamp


class DailyOwnResult(BaseModel):
    game_id: str
    status: GameStatus
    moves: int
    assisted: bool = Field(description="The solver helped (hint or finish): the win is not ranked.")
    ranked: bool = Field(
        description="The game counts, or can still count, in the ranking (as the game "
        "state's `ranked`)."
    )
    unranked_reason: UnrankedReason | None = Field(description=UNRANKED_REASON_DOC)
    rank: int | None = Field(description="Null until the game is won, and for an unranked win.")
    time_ms: int | None


class DailyResults(BaseModel):
    variant: str
    date: str
    difficulty: Difficulty | None = Field(
        description="The rating asked for (`?difficulty=`): its deal's ranking; null: the "
        "date's first deal's."
    )
    total: int = Field(
        description="How many players won this daily deal unassisted (the ranked wins)."
    )
    items: list[DailyResultEntry]
    next_offset: int | None = Field(description="Pass as `offset` for the next page; null: end.")
    next_cursor: str | None = Field(
        description="Or pass this as `cursor` for the next page (opaque; pages by cursor "
        "neither repeat nor skip a winner as wins are added); null: end."
    )
    me: DailyOwnResult | None = Field(
        description="The caller's own game of the day (with a bearer token); null otherwise."
    )


class VariantStats(BaseModel):
    variant: str = Field(examples=["rank-and-file"])
    played: int = Field(
        description="Games started, daily ones included; practice games (`practice: true`: "
        "records played again, copies, past dates' daily games) not."
    )
    won: int = Field(
        description="Games won of those `played`, assisted ones (hint or finish) included."
    )
    win_rate: float | None = Field(description="won / played; null when none was played.")
    daily_played: int = Field(description="Daily games started, past dates' (practice) included.")
    daily_wins: int = Field(description="Daily deals won without the solver's help.")
    daily_streak: int = Field(
        description="Consecutive dates with a daily deal won without the solver's help, up "
        "to today (or yesterday while today's is not won yet)."
    )
    longest_daily_streak: int = Field(description="The longest such run of unassisted daily wins.")


class PlayerStats(BaseModel):
    player_id: str
    variants: list[VariantStats]
