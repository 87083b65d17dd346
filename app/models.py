"""Tables. Only the service layer uses them."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Stable constraint names so that migrations can refer to them on every backend.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(TypeDecorator[datetime]):
    """A moment in UTC, read back aware on every database. SQLite keeps no offset and
    hands back naive datetimes; every time stored here is UTC, so that is what they are."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(UTC)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return str(uuid.uuid4())


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Player(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str | None] = mapped_column(String(64))
    # SHA-256 hex of the bearer token; the token itself is never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (
        Index(None, "player_id", "created_at"),
        # One game per player per daily deal, whatever the concurrency (NULLs never clash):
        # a date has a deal per `daily_slot` (services.daily.deals).
        UniqueConstraint("player_id", "variant", "daily_date", "daily_slot"),
        Index(None, "variant", "daily_date"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    variant: Mapped[str] = mapped_column(String(32))
    # Decimal text: deal numbers go up to 10**20 - 1, past BIGINT and SQLite's integers.
    deal: Mapped[str] = mapped_column(String(24))
    # deal | random | solvable | daily | practice (who chose the deal number; practice: a
    # copy of another game at a position of its line)
    source: Mapped[str] = mapped_column(String(16))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16))
    # Bumped by every change (move, undo, settings): the ETag and the optimistic lock.
    version: Mapped[int] = mapped_column(Integer, default=0)
    move_count: Mapped[int] = mapped_column(Integer, default=0)
    # The engine's to_bytes(): the current position, hidden cards included.
    state: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    # The UTC date whose daily deal this game plays (source "daily"); null otherwise.
    daily_date: Mapped[date | None] = mapped_column(Date)
    # When the winning move was played: results rank by the time it took.
    won_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # The solver helped (a hint was answered, or finish played): such a win is not ranked.
    assisted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The move_count of the earliest position of the current line of play that the
    # solver proved lost. Every later position descends from it, so it is lost too (no
    # search needed); undo below it clears it. Null: none known.
    lost_at: Mapped[int | None] = mapped_column(Integer)
    # A daily game that can still count in its day's ranking: started while its date was
    # current, no undo, hint or finish, and no move after the ranked window closed
    # (services.daily.deals). False for every other game.
    ranked: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Which of its date's daily deals a daily game plays: "" the date's first deal, else
    # the rating of a deal chosen for it (services.daily.deals); "" for every other game.
    daily_slot: Mapped[str] = mapped_column(String(8), default="", server_default="")
    # The proven deal's rating (easy, medium, hard, expert), for solvable and daily games
    # whose deal was rated; shown from the start when it was asked for
    # (`difficulty_asked`), else once the game is over (won, stuck or resigned).
    difficulty: Mapped[str | None] = mapped_column(String(8))
    difficulty_asked: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A game not dealt fresh by the server: a game record played again (`POST /games`
    # `{"record"}`) or a copy of a game at a position of its line (source "practice",
    # `POST /games/{id}/analysis/practice`). Never ranked, not counted in the statistics.
    practice: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A copy made while its original's deal was secret (a stuck game the server dealt):
    # its deal and record stay secret for good (it shows no more than the original did).
    deal_secret: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Why a daily game lost its rank, kept when it did (`services.daily.ranking.UNRANKED`:
    # past_date, assisted, undone, late, resigned, revealed_line, too_fast); null while
    # ranked and for every other game.
    unranked_reason: Mapped[str | None] = mapped_column(String(16))


class Move(Base):
    """One accepted move. The rows of a game, in `seq` order, lead from its deal to its
    current state; undo deletes the last row (and restores its `state_before`)."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    # 1-based position in the line of play (= the game's move_count after it).
    seq: Mapped[int] = mapped_column(Integer)
    # The game's version once this move was applied.
    version: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(64))
    move: Mapped[dict[str, Any]] = mapped_column(JSON)
    events: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    # Exact position before the move, so undo restores it bit for bit.
    state_before: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class IdempotencyKey(Base):
    """The first successful answer to a request sent with an `Idempotency-Key`, bounded
    by age and number per player (services.kit.idempotency)."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (
        UniqueConstraint("player_id", "key"),
        # A player's oldest answers go first beyond the bound; expired ones by age.
        Index(None, "player_id", "created_at"),
        Index(None, "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    # SHA-256 of method, path and body: the same key with another request is refused.
    fingerprint: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class DailyDeal(Base):
    """The deal of the day of one variant, stored when first chosen so that it never
    changes afterwards (whatever later code, solver or secret would choose)."""

    __tablename__ = "daily_deals"
    __table_args__ = (UniqueConstraint("variant", "day", "slot"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    variant: Mapped[str] = mapped_column(String(32))
    # The UTC date.
    day: Mapped[date] = mapped_column(Date)
    deal: Mapped[str] = mapped_column(String(24))
    # Which HMAC attempt gave the first proven deal, and the proof's size.
    attempt: Mapped[int] = mapped_column(Integer)
    positions: Mapped[int] = mapped_column(Integer)
    elapsed_ms: Mapped[int] = mapped_column(Integer)
    # The solver's winning line (move JSON): the proof, never shown to players.
    line: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    # "": the date's first deal (the one without `?difficulty=`); a rating: the deal
    # chosen for that rating when the first deal is of another one.
    slot: Mapped[str] = mapped_column(String(8), default="", server_default="")
    # The deal's measured rating; null for deals proven before ratings (or unrated).
    difficulty: Mapped[str | None] = mapped_column(String(8))


class SolvableDeal(Base):
    """A deal proven winnable for solvable games: candidate `seq` of its variant (derived
    from the server secret), stored when proven, dealt to one game at most."""

    __tablename__ = "solvable_deals"
    __table_args__ = (
        UniqueConstraint("variant", "seq"),
        UniqueConstraint("variant", "deal"),
        # The claim: the first unused deal of a variant (dealt_at IS NULL), by seq.
        Index(None, "variant", "dealt_at", "seq"),
        # ... and of a variant and rating.
        Index(None, "variant", "difficulty", "dealt_at", "seq"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    variant: Mapped[str] = mapped_column(String(32))
    seq: Mapped[int] = mapped_column(Integer)
    deal: Mapped[str] = mapped_column(String(24))
    positions: Mapped[int] = mapped_column(Integer)
    elapsed_ms: Mapped[int] = mapped_column(Integer)
    # The solver's winning line (move JSON): the proof, never shown to players.
    line: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    proven_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    # Set once, when dealt; the game's id is kept as a record, without a foreign key, so
    # the deal stays used when the game goes.
    dealt_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    game_id: Mapped[str | None] = mapped_column(String(36))
    # The deal's measured rating (easy, medium, hard, expert); null for deals proven
    # before ratings (or unrated): those go to games that ask for no rating.
    difficulty: Mapped[str | None] = mapped_column(String(8))


class SolverLine(Base):
    """A winning line, shared by every instance: from a position (its first), the moves
    in their text form separated by spaces (`seeds/` format). `source`: `search` (a hint
    or finish found it), `seed`, `daily`, `solvable` (a proven deal's line)."""

    __tablename__ = "solver_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    variant: Mapped[str] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(String(16))
    moves: Mapped[str] = mapped_column(Text)
    length: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)


class SolverPosition(Base):
    """What the solver knows of one position, keyed by a 16-byte digest of its full
    bytes (face-down cards included: the key never leaves the server). Won: the position
    is move `at` of `line_id`, whose rest wins from it. Lost (`line_id` null): a complete
    search proved that no line wins."""

    __tablename__ = "solver_positions"

    key: Mapped[bytes] = mapped_column(LargeBinary(16), primary_key=True)
    line_id: Mapped[int | None] = mapped_column(
        ForeignKey("solver_lines.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)


class Job(Base):
    """A piece of background work in the one queue (`services.background.jobs`), shared by every
    process that works it: `kind` (`daily`, `solvable`, `analysis`) and `subject`
    (`<variant>|<date>|<slot>`, `<variant>`, `<game id>|<line>`) name it, one row each.
    Taken by one worker at a time in `priority` order (lower first), then age; the
    worker (`owner`) renews `lease_until` while it works, and a job whose lease ran out
    (its worker died) is taken again, at most `MAX_ATTEMPTS` times before `failed`."""

    __tablename__ = "jobs"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    subject: Mapped[str] = mapped_column(String(96), primary_key=True)
    priority: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(8))  # queued, running, done, failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    owner: Mapped[str | None] = mapped_column(String(36))
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime)
    run_after: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    queued_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    error: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index(None, "state", "priority", "queued_at"),)


class AuthFailure(Base):
    """Wrong tokens per client address and 5-second slot, counted by every instance
    together (`AUTH_FAILURES_PER_MINUTE`, services.kit.auth_failures)."""

    __tablename__ = "auth_failures"

    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)  # Unix time // 5
    count: Mapped[int] = mapped_column(Integer, default=0)


class PlayerCreation(Base):
    """Players created per client address (an IPv6 address by its /64) and 5-minute
    slot, counted by every instance together (`PLAYERS_PER_ADDRESS_PER_HOUR`,
    services.kit.account_bounds)."""

    __tablename__ = "player_creations"

    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    slot: Mapped[int] = mapped_column(Integer, primary_key=True)  # Unix time // 300
    count: Mapped[int] = mapped_column(Integer, default=0)


class GameAnalysis(Base):
    """The analysis of a game that is over (`services.analysis.service`): one per game, for the
    line of play it was asked for (`line`: `<move_count>.<version of the last move>`; a
    stuck game played on after an undo is a new line, analysed anew). `plies`: each
    position's verdict (`winnable`, `lost`, `undecided`), ply 0 the deal, once `state` is
    `done`; `winning_line` (move JSON) from the position before `losing_ply` (no losing
    ply: from the last winnable one). Its work is
    a job of the queue (`jobs`: `analysis`, `<game id>|<line>`)."""

    __tablename__ = "game_analyses"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    line: Mapped[str] = mapped_column(String(24))
    # pending (asked, not started) | running | done
    state: Mapped[str] = mapped_column(String(16))
    move_count: Mapped[int] = mapped_column(Integer)
    # Plies decided so far (from the end backwards) and positions searched so far.
    decided: Mapped[int] = mapped_column(Integer, default=0)
    positions: Mapped[int] = mapped_column(Integer, default=0)
    plies: Mapped[list[str] | None] = mapped_column(JSON)
    losing_ply: Mapped[int | None] = mapped_column(Integer)
    losing_move: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    winning_line: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class RevealedPosition(Base):
    """A position the solver showed a player of a daily deal while its date was current:
    the layout (`services.daily.ranking.layout_key`: tableau, face-down counts, foundations,
    reserve) reached by a move a hint named or a finish played. A win of that deal that
    mostly passes through such layouts followed a revealed line and is not ranked
    (`services.daily.revealed`). Rows of dates that are over are deleted."""

    __tablename__ = "revealed_positions"
    __table_args__ = (Index(None, "day"),)

    variant: Mapped[str] = mapped_column(String(32), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    slot: Mapped[str] = mapped_column(String(8), primary_key=True)
    key: Mapped[bytes] = mapped_column(LargeBinary(16), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
