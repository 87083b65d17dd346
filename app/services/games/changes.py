"""How a game's committed changes reach the streams that watch it.

Every write of a game goes through the repository's versioned `save`, which calls
`record`: the change (its new version, and the events of the answer where
`write_game` knows them) is kept with the session's unit of work and published to the
app's `Notifier` once that unit commits (nothing is told of a write rolled back).

A `Notifier` wakes the subscribers of a game with its newest change. A subscriber
keeps only the newest one, never a queue: a slow reader misses intermediate changes
and reads the game as it is when it wakes (the database is the authority; a change
carries no state). The notifier also keeps the last changes of recently changed games
(`RecentChanges`, bounded), so that a stream can send the events of the changes it
missed, where it knows all of them. `LocalNotifier` reaches the streams of this process; another kind
(PostgreSQL's LISTEN/NOTIFY, across instances) implements the same two methods.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import on_commit
from app.engine import EV_UNDO

# `session.info` key of the app's notifier (set on the sessionmaker in the lifespan).
NOTIFIER = "notifier"


@dataclass(frozen=True)
class Change:
    """A committed change of a game: from version `before` to `version`, with the
    events its answer carried (None: not known to this process, or none given)."""

    game_id: str
    before: int
    version: int
    events: tuple[dict[str, Any], ...] | None = None


class Subscription:
    """One stream's view of a game's changes: the newest one not yet taken."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self._latest: Change | None = None
        self._woken = asyncio.Event()

    def wake(self, change: Change) -> None:
        if self._latest is None or change.version > self._latest.version:
            self._latest = change
        self._woken.set()

    async def next(self, timeout: float) -> Change | None:
        """The newest change published since the last call, waiting at most `timeout`
        seconds for one; None when none came."""
        if not self._woken.is_set():
            try:
                await asyncio.wait_for(self._woken.wait(), timeout)
            except TimeoutError:
                return None
        self._woken.clear()
        change, self._latest = self._latest, None
        return change


class RecentChanges:
    """The last changes of the games most recently changed, with their events, so that
    a stream that missed some (a slow reader, a reconnect) can still send what happened
    in between. Bounded: `per_game` changes of at most `max_games` games, and no events
    of a change with more than `max_events` (a finish's long line: the state says it)."""

    def __init__(self, max_games: int = 512, per_game: int = 16, max_events: int = 64) -> None:
        self.max_games, self.per_game, self.max_events = max_games, per_game, max_events
        self._games: OrderedDict[str, deque[Change]] = OrderedDict()

    def add(self, change: Change) -> None:
        if change.events is not None and len(change.events) > self.max_events:
            change = replace(change, events=None)
        kept = self._games.pop(change.game_id, None) or deque(maxlen=self.per_game)
        kept.append(change)
        self._games[change.game_id] = kept  # the newest last
        while len(self._games) > self.max_games:
            self._games.popitem(last=False)

    def span(self, game_id: str, before: int, after: int) -> list[Change] | None:
        """Every change of the game from version `before` to `after`, in order; None
        unless each of them is kept here."""
        changes: list[Change] = []
        version = before
        for change in self._games.get(game_id, ()):
            if change.before != version or change.version > after:
                continue  # before the span (or a gap, which the last check reveals)
            changes.append(change)
            version = change.version
        return changes if version == after else None

    def holds(self, game_id: str, before: int, after: int) -> bool:
        """Is every change of the game from version `before` to `after` kept here?"""
        return self.span(game_id, before, after) is not None

    def events_between(self, game_id: str, before: int, after: int) -> list[dict[str, Any]] | None:
        """The events of every change of the game from version `before` to `after`, in
        order; None unless each of them is kept here, with its events, and none but the
        first turns cards face down (an undo, a redeal: it may hide a card an earlier
        change of the span named; a client that missed both gets the state, which does
        not show it)."""
        changes = self.span(game_id, before, after)
        if changes is None:
            return None
        events: list[dict[str, Any]] = []
        for index, change in enumerate(changes):
            if change.events is None or (index and _hides_cards(change)):
                return None
            events.extend(change.events)
        return events


def _hides_cards(change: Change) -> bool:
    """Does the change turn cards face down: an undo, or cards moved to end face down
    (a redeal's, whose `cards` is null)?"""
    return any(
        event.get("type") == EV_UNDO or ("cards" in event and event["cards"] is None)
        for event in change.events or ()
    )


class Notifier(Protocol):
    def publish(self, change: Change) -> None:
        """Wake the subscribers of the change's game (called after the commit)."""

    def subscribe(self, game_id: str) -> AbstractContextManager[Subscription]:
        """A subscription to the game's changes, for the block's duration."""

    def events_between(self, game_id: str, before: int, after: int) -> list[dict[str, Any]] | None:
        """The events from version `before` to `after` where all are known (`RecentChanges`)."""

    def holds(self, game_id: str, before: int, after: int) -> bool:
        """Is every change from version `before` to `after` known here (`RecentChanges`)?"""


class LocalNotifier:
    """Subscribers of this process, by game id. Publishing costs a dict lookup when
    nobody watches the game, and keeps the change among the recent ones."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Subscription]] = {}
        self.recent = RecentChanges()

    def publish(self, change: Change) -> None:
        if change.before >= 0:  # not a wake-up to read the game afresh
            self.recent.add(change)
        self.wake(change)

    def wake(self, change: Change) -> None:
        """Wake this process's subscribers of the change's game, and nobody else: for
        what was found here (a read of the game's version, `before` -1; a reconnection,
        `version` -1 too: read the game afresh), which other instances need not hear."""
        for subscription in self._subscribers.get(change.game_id, ()):
            subscription.wake(change)

    def events_between(self, game_id: str, before: int, after: int) -> list[dict[str, Any]] | None:
        return self.recent.events_between(game_id, before, after)

    def holds(self, game_id: str, before: int, after: int) -> bool:
        return self.recent.holds(game_id, before, after)

    @contextmanager
    def subscribe(self, game_id: str) -> Iterator[Subscription]:
        subscription = Subscription(game_id)
        self._subscribers.setdefault(game_id, set()).add(subscription)
        try:
            yield subscription
        finally:
            watchers = self._subscribers.get(game_id)
            if watchers is not None:
                watchers.discard(subscription)
                if not watchers:
                    del self._subscribers[game_id]

    def watched(self) -> int:
        """Games with at least one subscriber (for tests and figures)."""
        return len(self._subscribers)


class _Pending:
    """The changes of one unit of work, by game, published once it commits."""

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier
        self.changes: dict[str, Change] = {}

    def __call__(self) -> None:
        for change in self.changes.values():
            self.notifier.publish(change)


def _pending(session: AsyncSession) -> _Pending | None:
    notifier: Notifier | None = session.info.get(NOTIFIER)
    if notifier is None:
        return None  # a session of no app (scripts, migrations): nobody to tell
    return on_commit(session, "game_changes", lambda: _Pending(notifier))


def record(session: AsyncSession, game_id: str, before: int, version: int) -> None:
    """A save of the game from `before` to `version` in the session's unit of work."""
    pending = _pending(session)
    if pending is None or before == version:
        return
    earlier = pending.changes.get(game_id)
    start = earlier.before if earlier is not None else before
    pending.changes[game_id] = Change(game_id, start, version)


def describe(session: AsyncSession, game_id: str, events: list[dict[str, Any]]) -> None:
    """The events of the answer to the unit's change of the game (moves, undo)."""
    pending = _pending(session)
    if pending is None or (change := pending.changes.get(game_id)) is None:
        return
    pending.changes[game_id] = replace(change, events=tuple(events))
