"""A game's live stream: its public state first, then one change after another, read
from the database whenever the game's version moves on.

A stream waits on its subscription only, and learns of a change two ways: this
process's `Notifier` wakes it after a commit (`changes`), and the process's
`VersionWatcher` (`watch`) wakes it when its periodic read of every watched game's
version finds this one moved on (changes made by other processes on the same database).
Either way it then reads the game as it is, and sends it with the events of the changes
in between where the notifier knows them all: nothing is buffered per stream beyond the
newest change. An idle stream reads nothing.

The bounds (`StreamLimits`) and the stream tokens browsers open a stream with
(`StreamTokens`) are here too; the router turns the `StreamEvent`s into Server-Sent
Events.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import time
from collections.abc import AsyncIterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import unit_of_work
from app.errors import StreamsFull, TooManyStreams, Unauthorized
from app.i18n import N_
from app.models import Game
from app.services.games import repository
from app.services.games.changes import Change, Notifier, Subscription
from app.services.games.presenter import stored_game_state
from app.services.games.watch import VersionWatcher

# A game in these states takes no more moves: its stream ends after saying so.
FINAL_STATUSES = frozenset({"won", "stuck", "resigned"})
# How long a stream woken by the watcher's read of a new version waits for that
# change's notice (which brings its events, where it was made in this process).
NOTICE_GRACE_SECONDS = 0.05


@dataclass(frozen=True)
class StreamEvent:
    """One event of the stream: its name (`state`, `change`), id (the game's version)
    and JSON data."""

    event: str
    id: int
    data: dict[str, Any]


# --- bounds -------------------------------------------------------------------------


class StreamLimits:
    """Streams open in this process: at most `per_player` for one player (beyond:
    429 too_many_streams) and `per_instance` in all (beyond: 429 streams_full)."""

    def __init__(self, per_player: int, per_instance: int) -> None:
        self.per_player, self.per_instance = per_player, per_instance
        self._by_player: dict[str, int] = {}
        self._total = 0

    @property
    def open(self) -> int:
        return self._total

    def acquire(self, player_id: str) -> StreamSlot:
        if self._by_player.get(player_id, 0) >= self.per_player:
            raise TooManyStreams()
        if self._total >= self.per_instance:
            raise StreamsFull()
        self._by_player[player_id] = self._by_player.get(player_id, 0) + 1
        self._total += 1
        return StreamSlot(self, player_id)

    def _release(self, player_id: str) -> None:
        self._total -= 1
        left = self._by_player[player_id] - 1
        if left:
            self._by_player[player_id] = left
        else:
            del self._by_player[player_id]


@dataclass
class StreamSlot:
    limits: StreamLimits
    player_id: str
    released: bool = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.limits._release(self.player_id)


# --- stream tokens ------------------------------------------------------------------


@dataclass(frozen=True)
class StreamCaller:
    """Who opens a stream, and until when (the expiry of a stream token, as a Unix time;
    None for a bearer token, which does not expire): the stream ends then."""

    player_id: str
    expires_at: float | None = None


@dataclass(frozen=True)
class IssuedToken:
    token: str
    expires_at: datetime


class StreamTokens:
    """Short-lived tokens for one game's stream, for clients that cannot send an
    `Authorization` header (a browser's EventSource). Signed, not stored: the player,
    the game and the expiry, with an HMAC-SHA256 under a key derived from the server's
    secret, so any instance with the same secret accepts them and nothing is kept."""

    def __init__(self, secret: str, ttl_seconds: float) -> None:
        # Its own key: a stream token's MAC says nothing of the daily deals' digests.
        self._key = hmac.new(secret.encode(), b"stream-token", hashlib.sha256).digest()
        self.ttl_seconds = ttl_seconds

    def _mac(self, payload: bytes) -> str:
        digest = hmac.new(self._key, payload, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def issue(self, player_id: str, game_id: str, now: float | None = None) -> IssuedToken:
        # Whole seconds, rounded up: a token lives at least its stated lifetime.
        expires = math.ceil((time.time() if now is None else now) + self.ttl_seconds)
        payload = f"{player_id}.{game_id}.{expires}".encode()
        body = base64.urlsafe_b64encode(payload).rstrip(b"=").decode()
        return IssuedToken(
            token=f"{body}.{self._mac(payload)}",
            expires_at=datetime.fromtimestamp(expires, UTC),
        )

    def player_for(self, token: str, game_id: str, now: float | None = None) -> StreamCaller:
        """The player a token was issued to, for this game, until it expires; 401 for a
        token that is forged, expired or for another game."""
        try:
            body, mac = token.split(".")
            payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
            player_id, token_game, expires = payload.decode().split(".")
            expiry = int(expires)
        except ValueError as exc:  # binascii.Error and UnicodeDecodeError are ValueErrors
            raise Unauthorized(N_("the stream token cannot be read")) from exc
        if not hmac.compare_digest(mac, self._mac(payload)):
            raise Unauthorized(N_("the stream token is not one this server gave"))
        if token_game != game_id:
            raise Unauthorized(N_("the stream token is for another game"))
        if expiry < (time.time() if now is None else now):
            raise Unauthorized(N_("the stream token has expired"))
        return StreamCaller(player_id, expires_at=float(expiry))


async def issue_stream_token(
    session: AsyncSession, tokens: StreamTokens, player_id: str, game_id: str
) -> IssuedToken:
    """A stream token of the player's game (404 for a game not the player's)."""
    async with unit_of_work(session, write=False):
        await repository.version_of(session, player_id, game_id)  # the owner's, or 404
    return tokens.issue(player_id, game_id)


# --- the stream ---------------------------------------------------------------------


@dataclass
class StreamOptions:
    max_seconds: float
    # A Unix time after which the stream ends (its stream token's expiry), if any.
    ends_at: float | None = None

    def deadline(self) -> float:
        """When the stream ends, on the monotonic clock: its lifetime bound, or its
        token's expiry if sooner (the client asks a new token and resumes)."""
        seconds = self.max_seconds
        if self.ends_at is not None:
            seconds = min(seconds, self.ends_at - time.time())
        return time.monotonic() + seconds


@dataclass
class GameStream:
    """An open stream of one player's game (`open_stream`): the events to send, from
    the version the client has (`seen`, None for none)."""

    sessions: async_sessionmaker[AsyncSession]
    notifier: Notifier
    subscription: Subscription
    held: ExitStack
    player_id: str
    game_id: str
    options: StreamOptions
    first: StreamEvent | None
    version: int
    status: str

    def close(self) -> None:
        """Unsubscribe and give the stream's place back (once; from the stream's end and
        from the response's, whichever comes first)."""
        self.held.close()

    async def events(self) -> AsyncIterator[StreamEvent]:
        # An idle stream holds no state: each event is let go once sent (a state is some
        # 40 KB as Python objects; bench/streams.py measures what a stream keeps).
        try:
            first, self.first = self.first, None
            if first is not None:
                yield first
            del first
            deadline = self.options.deadline()
            while self.status not in FINAL_STATUSES:
                left = deadline - time.monotonic()
                if left <= 0:
                    return  # the lifetime or the token's: the client resumes with its last id
                change = await self.subscription.next(left)
                if change is None:
                    continue  # the deadline: ends above
                event = await self._after(change)
                if event is not None:
                    yield event
                del change, event
        finally:
            self.close()

    async def _after(self, change: Change) -> StreamEvent | None:
        """The `change` event for the game's newest version, if it moved on past the
        stream's (a change the stream has sent already is nothing to read)."""
        if 0 <= change.version <= self.version:
            return None
        if change.before < 0 <= change.version:
            # The watcher can read a commit before its writer has told the notifier: a
            # moment for the notice, which brings the change's events.
            await self.subscription.next(NOTICE_GRACE_SECONDS)
        async with self.sessions() as session, unit_of_work(session, write=False):
            game = await repository.load_owned(session, self.player_id, self.game_id)
        if game.version == self.version:
            return None
        event = _change_event(self.notifier, game, self.version)
        self.version, self.status = game.version, game.status
        return event


def _change_event(notifier: Notifier, game: Game, seen: int) -> StreamEvent:
    """The `change` event from version `seen` to the game as it is: the events of every
    change in between where this process knows them all (`RecentChanges`), else none
    (the state says it all)."""
    events = notifier.events_between(game.id, seen, game.version) or []
    data = {"version": game.version, "events": events, "state": _public(game)}
    return StreamEvent("change", game.version, data)


def _public(game: Game) -> dict[str, Any]:
    """Exactly what GET /games/{id} answers."""
    return stored_game_state(game).model_dump(mode="json", by_alias=True)


def _first_event(notifier: Notifier, game: Game, seen: int | None) -> StreamEvent | None:
    """Nothing for a client at the game's version (it waits for the next change); the
    changes since for one at an earlier version whose changes are all kept here, as one
    `change` event (with their events where they can all be told, `_change_event`);
    else the `state`."""
    if seen == game.version:
        return None
    if seen is not None and seen < game.version and notifier.holds(game.id, seen, game.version):
        return _change_event(notifier, game, seen)
    return StreamEvent("state", game.version, _public(game))


async def open_stream(
    sessions: async_sessionmaker[AsyncSession],
    notifier: Notifier,
    watcher: VersionWatcher,
    limits: StreamLimits,
    *,
    player_id: str,
    game_id: str,
    last_event_id: int | None,
    options: StreamOptions,
) -> GameStream:
    """A stream of the player's game, or the error to answer instead (404 for a game
    not the player's, 429/503 beyond the bounds). Subscribed before the first read, and
    watched from the version read, so that no change between the two is missed."""
    held = ExitStack()  # what the stream holds, given back by `GameStream.close`
    held.callback(limits.acquire(player_id).release)
    try:
        subscription = held.enter_context(notifier.subscribe(game_id))
        async with sessions() as session, unit_of_work(session, write=False):
            game = await repository.load_owned(session, player_id, game_id)
        held.enter_context(watcher.watch(game.id, game.version))
    except BaseException:
        held.close()
        raise
    first = _first_event(notifier, game, last_event_id)
    return GameStream(
        sessions=sessions,
        notifier=notifier,
        subscription=subscription,
        held=held,
        player_id=player_id,
        game_id=game.id,
        options=options,
        first=first,
        version=game.version,
        status=game.status,
    )
