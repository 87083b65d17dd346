"""Bounds a free account cannot multiply (docs/api.md, "Bounds"): players created per
client address, and per player the games dealt, the solvable deals taken, the practice
copies made within an hour and the analyses pending or running at once. Past one, the
request is 429 with its code and a `Retry-After`, and changes nothing: the check runs in
the unit of work that would write, and a refusal rolls it back.

Everything is counted in the database, so every instance of a deployment shares the
bounds:

- players per address in `player_creations` (address, 5-minute slot, count; the last 12
  slots make the hour), counted by an upsert in the transaction that inserts the player.
  The slot's row stays locked until that commits: exact under any burst, on any number
  of instances. An IPv6 address counts by its /64 (one host is given a whole /64), an
  IPv4 address by itself. A request with a trusted front-end's `X-Client-Key` is not
  counted (`TrustedKeys`).
- per player from the player's own rows (`games.created_at`, `source`, `variant`; the
  analysis jobs queued or running), read in the transaction that inserts the game or
  queues the analysis, after the player's row is locked (`hold_player`: FOR NO KEY
  UPDATE on PostgreSQL, which inserts of the player's other rows do not wait for;
  SQLite's write transactions take turns already). A player's requests sent together
  therefore count one after another: exact, on every instance.

A window of an hour frees when the oldest counted entry in it leaves: that is the
`Retry-After` (the slots' window is 55 to 60 minutes long, by the slot boundaries).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.errors import (
    ApiError,
    TooManyAnalyses,
    TooManyGames,
    TooManyPlayers,
    TooManyPracticeCopies,
    TooManySolvableDeals,
    retry_after,
)
from app.models import Game, GameAnalysis, Job, Player, PlayerCreation, utcnow
from app.services.background import jobs
from app.services.kit.auth_failures import SlotCounts, refused_until
from app.services.kit.bounded_map import BoundedMap

HOUR = timedelta(hours=1)
# Players per address: slots of 5 minutes, 12 make the hour.
CREATION_SLOT_SECONDS, CREATION_SLOTS = 300, 12
# Retry-After of too_many_analyses: an analysis has no window; most take seconds, the
# longest a few minutes (ANALYSIS_MAX_POSITIONS). Read the one in progress meanwhile.
ANALYSIS_RETRY_SECONDS = 10
# Game sources with bounds of their own besides the games per hour.
SOLVABLE, PRACTICE = "solvable", "practice"


def address_group(address: str) -> str:
    """What an address counts as: an IPv6 address by its /64, anything else as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]  # not an IP (a test client, a Unix socket): as it is
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class TrustedKeys:
    """TRUSTED_CLIENT_KEYS, kept as SHA-256 digests and compared with
    `hmac.compare_digest` against every one (no early exit): how long a check takes says
    nothing of how much of a key was right."""

    def __init__(self, keys: list[str]) -> None:
        self._digests = [hashlib.sha256(key.encode()).digest() for key in keys]

    def __bool__(self) -> bool:
        return bool(self._digests)

    def trusts(self, key: str) -> bool:
        digest = hashlib.sha256(key.encode()).digest()
        found = False
        for known in self._digests:
            found |= hmac.compare_digest(digest, known)
        return found


class PlayerCreations:
    """The per-address bound of POST /players (`PLAYERS_PER_ADDRESS_PER_HOUR`)."""

    def __init__(self, per_hour: int) -> None:
        self.per_hour = per_hour
        self.counts = SlotCounts(PlayerCreation, CREATION_SLOT_SECONDS, CREATION_SLOTS)
        # Address groups this instance refused, and until when (time.time()): until then
        # the oldest slot counted is still in the window, so the count cannot have gone
        # down; a flood of refused requests costs no write transaction each.
        self._refused: BoundedMap[str, float] = BoundedMap(10_000)

    def check(self, address: str) -> None:
        """429 at once while this instance knows the address to be over the bound."""
        now = time.time()
        until = self._refused.get(address_group(address))
        if until is not None and now < until:
            raise refused_until(TooManyPlayers, until, now)

    async def count(self, session: AsyncSession, address: str) -> None:
        """Count one player created from `address`, in the unit of work that inserts it:
        429 too_many_players past the bound (the unit then rolls back, count included)."""
        group, now = address_group(address), time.time()
        total, until = await self.counts.count(session, group, now)
        if total > self.per_hour:
            self._refused.put(group, until)
            raise refused_until(TooManyPlayers, until, now)
        self._refused.pop(group)


@dataclass(frozen=True)
class PlayerBounds:
    """The per-player bounds (Settings: `*_PER_PLAYER_*`)."""

    games_per_hour: int
    solvable_per_hour: int
    practice_per_hour: int
    analyses: int

    @classmethod
    def of(cls, settings: Settings) -> PlayerBounds:
        return cls(
            games_per_hour=settings.games_per_player_per_hour,
            solvable_per_hour=settings.solvable_per_player_per_hour,
            practice_per_hour=settings.practice_per_player_per_hour,
            analyses=settings.analyses_per_player,
        )


async def hold_player(session: AsyncSession, player_id: str) -> None:
    """Lock the player's row until the unit of work ends, so that the player's requests
    count their rows one after another. PostgreSQL: FOR NO KEY UPDATE, which the inserts
    of the player's rows elsewhere (their foreign key's KEY SHARE) do not wait for.
    SQLite: the write transaction (BEGIN IMMEDIATE) holds the database already."""
    if session.get_bind().dialect.name == "postgresql":
        query = select(Player.id).where(Player.id == player_id).with_for_update(key_share=True)
        await session.execute(query)


async def _hour_full(
    session: AsyncSession, player_id: str, bound: int, *where: Any
) -> datetime | None:
    """When the player's newest `bound` games matching `where` within the last hour
    were dealt, the oldest of them (the window frees an hour after it); None while fewer
    than `bound` were. One read along the (player_id, created_at) index."""
    query = (
        select(Game.created_at)
        .where(Game.player_id == player_id, Game.created_at > utcnow() - HOUR, *where)
        .order_by(Game.created_at.desc())
        .offset(bound - 1)
        .limit(1)
    )
    result: datetime | None = (await session.execute(query)).scalar_one_or_none()
    return result


def _refused(kind: type[ApiError], oldest: datetime) -> ApiError:
    seconds = (oldest + HOUR - utcnow()).total_seconds()
    return kind(headers=retry_after(max(1, math.ceil(seconds))))


async def check_new_game(
    session: AsyncSession,
    player_id: str,
    bounds: PlayerBounds | None,
    *,
    source: str,
    variant: str,
    lock: bool = True,
) -> None:
    """In the unit of work that inserts a game of `source` and `variant` (call it before
    the insert): 429 too_many_games (too_many_practice_copies for a practice copy,
    too_many_solvable_deals for a solvable game of a variant) past the player's bounds.
    None: no bounds (the service's own games). `lock=False`: a first look in a read,
    before slow work (the unit that inserts looks again, locked)."""
    if bounds is None:
        return
    if lock:
        await hold_player(session, player_id)
    if source == PRACTICE:
        oldest = await _hour_full(
            session, player_id, bounds.practice_per_hour, Game.source == PRACTICE
        )
        if oldest is not None:
            raise _refused(TooManyPracticeCopies, oldest)
        return
    oldest = await _hour_full(session, player_id, bounds.games_per_hour, Game.source != PRACTICE)
    if oldest is not None:
        raise _refused(TooManyGames, oldest)
    if source == SOLVABLE:
        oldest = await _hour_full(
            session,
            player_id,
            bounds.solvable_per_hour,
            Game.source == SOLVABLE,
            Game.variant == variant,
        )
        if oldest is not None:
            raise _refused(TooManySolvableDeals, oldest)


async def check_new_analysis(
    session: AsyncSession, player_id: str, bounds: PlayerBounds | None, *, subject: str
) -> None:
    """Before the analysis job `subject` of the player's is queued (in that unit of work,
    after `hold_player`; or in a first look, in a read before anything is written): 429
    too_many_analyses while `bounds.analyses` of the player's other analysis jobs are
    queued or running (a failed one, given up, counts no more). The job itself is left
    out: a request that raced another for the same analysis is not refused because the
    other queued it first."""
    if bounds is None:
        return
    analyses = GameAnalysis.__table__
    query = (
        select(func.count())
        .select_from(Job)
        .join(analyses, Job.subject == analyses.c.game_id + "|" + analyses.c.line)
        .join(Game, Game.id == analyses.c.game_id)
        .where(
            Job.kind == "analysis",
            Job.state.in_((jobs.QUEUED, jobs.RUNNING)),
            Job.subject != subject,
            Game.player_id == player_id,
        )
    )
    if (await session.execute(query)).scalar_one() >= bounds.analyses:
        raise TooManyAnalyses(headers=retry_after(ANALYSIS_RETRY_SECONDS))
