"""One home for the service's CPU work: players' searches (hints, finish) and the
background proofs of daily and solvable deals.

Built once in the app's lifespan and injected (`Services.work`, app.services.wiring), it runs work off the
event loop in three lanes of workers:

- the **player lane**: `solver_workers` processes (or threads, `solver_kind`) at normal
  priority, for hints and finish;
- the **hint lane**: `solver_hint_workers` more of the same, for hints only;
- the **background lane**: `daily_workers` processes at low priority (`nice` 10), or one
  thread when it is 0, for proofs.

Work waits in one line ordered by priority (by who waits for it), then arrival:

1. `PLAYER`: a player's search (a hint before a finish);
2. `ANALYSIS`: a position of an analysis a player asked for;
3. `DAILY`: a daily deal a player waits for (today's, of any rating, or a past date's);
4. `WAITING`: a solvable deal a player is waiting for (its pool was empty);
5. `TODAY`: today's first daily deals, prepared ahead (the next to be asked for: a
   request for one raises it to `DAILY`);
6. `REFILL`: refilling the solvable pools of the games players ask for, and rating the
   deals dealt before they were rated;
7. `AHEAD`: speculative work nobody waits for: tomorrow's daily deals, ratings of a
   date nobody asked for yet, pools of games nobody asked for.

A piece of work may be given its priority as a function, read whenever the line is
ordered: a proof queued ahead of time moves up when a player starts waiting for it.
A freed worker goes to the first waiting work that may use it: proofs use the
background lane only (a hint never waits behind one on its own lane), and a search may
borrow an idle background process when its own lanes are busy. Background work comes
in units of one candidate's proof (and rating) or one position's search, so work a
player waits for starts within one unit.

Fairness between players. A finish may search for `FINISH_MAX_SECONDS` (20 s), a hint
for `HINT_MAX_SECONDS` (0.4 s); with one worker a finish would hold every hint for its
whole budget. So a finish never runs on the hint lane: a hint runs beside a running
finish there, and waits at most for another hint's short budget. Reserving a worker was
chosen over cutting a finish into slices re-queued behind hints: the plan's full search
is one call whose table would be lost between slices, and the reserved worker costs
only a hint's budget of CPU at a time. And each player (`owner`) has at most one search
running or waiting: another is refused at once (`SearchInProgress`, 429
`solver_search_in_progress`, with `Retry-After` until the running one's budget ends), so
one player's clients cannot fill the line.

Players' searches are bounded: beyond `solver_workers + solver_queue` running or
waiting, a search is refused at once (429 `solver_busy` with `Retry-After`, from how
long searches take here); finishes may not take the last `solver_hint_workers` places of
that bound (at least `solver_workers` remain theirs), which stay for hints.

What it does is told to a `WorkObserver` (the app's metrics, `app.metrics`): each
work's wait for a worker and its run, by kind; `snapshot()` says what waits and runs now.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import multiprocessing
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.config import Settings
from app.services.background.proving import Proof, prove, prove_args, rate
from app.solver.result import SolveResult
from app.solver.worker import SearchInProgress, SolverBusy, exit_with_parent, solve_bytes

# Priorities: lower first (module docstring).
PLAYER = 0
ANALYSIS = 1
DAILY = 2
WAITING = 3
TODAY = 4
REFILL = 5
AHEAD = 6
PRIORITIES = {
    PLAYER: "player",
    ANALYSIS: "analysis",
    DAILY: "daily",
    WAITING: "waiting",
    TODAY: "today",
    REFILL: "refill",
    AHEAD: "ahead",
}
# A priority, or a function that says it now (read each time the line is ordered).
Priority = int | Callable[[], int]
# Told that a piece of work got its worker and runs there (awaited while it runs).
Begun = Callable[[], Awaitable[None]]

_PLAYER_LANE = "player"
_HINT_LANE = "hint"
_BACKGROUND_LANE = "background"
LANES = (_PLAYER_LANE, _HINT_LANE, _BACKGROUND_LANE)

# What a piece of work is, for the observer: a player's hint or finish, a daily or
# solvable deal's proof (and rating), a position of an analysis, a dealt deal's rating.
KINDS = ("hint", "finish", "daily", "solvable", "analysis", "rating")
# How a run ended: a search's verdict ("solved", "unsolvable", "unknown"; a proof that
# found no winning line within its budget is "unknown"), or "error" (it raised), or
# "cancelled" (its caller left: the worker may still finish it).
OUTCOMES = ("solved", "unsolvable", "unknown", "error", "cancelled")


def _outcome(value: Any) -> str:
    if value is None:  # a proof that proved nothing
        return "unknown"
    if isinstance(value, Proof):
        return "solved"
    if isinstance(value, str):  # a rating
        return "solved"
    return str(value.result)  # a SolveResult


class WorkObserver(Protocol):
    """Told of every piece of work the pool runs (`kind` one of `KINDS`)."""

    def waited(self, kind: str, seconds: float) -> None:
        """It got a worker after `seconds` in line (0 when one was free)."""

    def ran(self, kind: str, outcome: str, seconds: float) -> None:
        """It ended on its worker after `seconds`, as `outcome` (one of `OUTCOMES`)."""


class _Unobserved:
    def waited(self, kind: str, seconds: float) -> None:
        pass

    def ran(self, kind: str, outcome: str, seconds: float) -> None:
        pass


@dataclass(frozen=True)
class Snapshot:
    """The pool now: work waiting for a worker by kind, and by kind and priority, the
    longest wait in line now (seconds, by priority), each lane's busy workers and size,
    and the work running by kind."""

    waiting: dict[str, int]
    busy: dict[str, int]
    workers: dict[str, int]
    queued: dict[tuple[str, str], int] = field(default_factory=dict)
    oldest: dict[str, float] = field(default_factory=dict)
    running: dict[str, int] = field(default_factory=dict)


@dataclass(eq=False)
class _Ticket:
    """A piece of work waiting for a worker."""

    priority: Priority
    kind: str
    arrival: int
    since: float
    granted: asyncio.Future[str]
    lanes: tuple[str, ...]

    @property
    def level(self) -> int:
        return self.priority() if callable(self.priority) else self.priority

    def order(self) -> tuple[int, int, int]:
        # A hint before a finish at the same priority.
        return (self.level, 0 if self.kind == "hint" else 1, self.arrival)


def _background(priority: Priority) -> Priority:
    """Background work never takes a player's search's place in line."""
    if callable(priority):
        return lambda: max(priority(), ANALYSIS)
    return max(priority, ANALYSIS)


def _lower_priority() -> None:
    # Background work: requests and hints come first on a busy machine; and it ends
    # with the server, however the server ends.
    os.nice(10)
    exit_with_parent()


class WorkPool:
    """Three lanes, one waiting line."""

    def __init__(self, settings: Settings, observer: WorkObserver | None = None) -> None:
        self.settings = settings
        self.observer: WorkObserver = observer or _Unobserved()
        self._executors: dict[str, Executor] = {}
        self._busy = {_PLAYER_LANE: 0, _HINT_LANE: 0, _BACKGROUND_LANE: 0}
        self._order = itertools.count()
        self._waiting: list[_Ticket] = []
        self._running = dict.fromkeys(KINDS, 0)
        self._players = 0  # players' searches running or waiting
        self._finishes = 0  # of which not hints
        # Players with a search running or waiting -> when its budget ends (monotonic).
        self._owners: dict[str, float] = {}
        self._typical_seconds = 2.0  # a guess until searches have been timed

    # --- capacity

    def _slots(self, lane: str) -> int:
        if lane == _PLAYER_LANE:
            return self.settings.solver_workers
        if lane == _HINT_LANE:
            return self.settings.solver_hint_workers
        return max(1, self.settings.daily_workers)

    def _lanes_for(self, priority: int, hint: bool = False) -> tuple[str, ...]:
        if priority != PLAYER:
            return (_BACKGROUND_LANE,)
        lanes: tuple[str, ...] = (_PLAYER_LANE,)
        if hint and self.settings.solver_hint_workers > 0:
            lanes += (_HINT_LANE,)
        # A search borrows an idle background process (never its thread: a Python
        # search there would hold the event loop's GIL).
        if self.settings.daily_workers > 0:
            lanes += (_BACKGROUND_LANE,)
        return lanes

    def _executor(self, lane: str) -> Executor:
        executor = self._executors.get(lane)
        if executor is None:
            executor = self._executors[lane] = self._new_executor(lane)
        return executor

    def _new_executor(self, lane: str) -> Executor:
        spawn = multiprocessing.get_context("spawn")  # never fork a running event loop
        if lane == _BACKGROUND_LANE:
            if self.settings.daily_workers == 0:
                return ThreadPoolExecutor(1, thread_name_prefix="prover")
            return ProcessPoolExecutor(
                self.settings.daily_workers, mp_context=spawn, initializer=_lower_priority
            )
        if self.settings.solver_kind == "process":
            return ProcessPoolExecutor(
                self._slots(lane), mp_context=spawn, initializer=exit_with_parent
            )
        return ThreadPoolExecutor(self._slots(lane), thread_name_prefix=f"solver-{lane}")

    async def _acquire(self, priority: Priority, hint: bool = False, kind: str = "") -> str:
        level = priority() if callable(priority) else priority
        lanes = self._lanes_for(level, hint)
        for lane in lanes:
            # A free worker nobody waiting may use (those who may have it got it).
            queued = any(lane in w.lanes and not w.granted.done() for w in self._waiting)
            if self._busy[lane] < self._slots(lane) and not queued:
                self._busy[lane] += 1
                return lane
        granted: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        kind = kind or ("hint" if hint else "finish")
        ticket = _Ticket(priority, kind, next(self._order), time.monotonic(), granted, lanes)
        self._waiting.append(ticket)
        try:
            return await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self._release(granted.result())  # the slot came just as we gave up
            raise  # a cancelled entry left in the line is skipped by _release

    def _release(self, lane: str) -> None:
        """The freed worker goes straight to the first waiting work that may use it."""
        # A handful wait at most (the queue bound, a proof per variant and daily slot, an
        # analysis per game): sorting is cheap, and it reads each priority as it is now.
        self._waiting = sorted(
            (w for w in self._waiting if not w.granted.done()), key=_Ticket.order
        )
        for ticket in self._waiting:
            if lane in ticket.lanes:
                self._waiting.remove(ticket)
                ticket.granted.set_result(lane)
                return
        self._busy[lane] -= 1

    async def _run(
        self,
        priority: Priority,
        kind: str,
        function: Any,
        *args: Any,
        hint: bool = False,
        begun: Begun | None = None,
    ) -> Any:
        """`function(*args)` on a worker, when one is free for `priority` (and a hint);
        `begun` is awaited once it runs there."""
        submitted = time.monotonic()
        lane = await self._acquire(priority, hint, kind)
        started = time.monotonic()
        self.observer.waited(kind, started - submitted)
        self._running[kind] += 1
        outcome = "error"
        try:
            executor = self._executor(lane)
            running = asyncio.get_running_loop().run_in_executor(executor, function, *args)
            if begun is not None:
                try:
                    await begun()
                except BaseException:
                    running.cancel()
                    raise
            value = await running
            outcome = _outcome(value)
            return value
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool next time (unless
            # another failure of the same pool already did).
            if self._executors.get(lane) is executor:
                del self._executors[lane]
            raise
        finally:
            self._running[kind] -= 1
            self._release(lane)
            self.observer.ran(kind, outcome, time.monotonic() - started)

    def snapshot(self) -> Snapshot:
        waiting = dict.fromkeys(KINDS, 0)
        queued: dict[tuple[str, str], int] = {}
        oldest: dict[str, float] = {}
        now = time.monotonic()
        for ticket in self._waiting:
            if not ticket.granted.done():
                priority = PRIORITIES.get(ticket.level, "ahead")
                waiting[ticket.kind] += 1
                queued[(ticket.kind, priority)] = queued.get((ticket.kind, priority), 0) + 1
                oldest[priority] = max(oldest.get(priority, 0.0), now - ticket.since)
        workers = {lane: self._slots(lane) for lane in LANES}
        return Snapshot(waiting, dict(self._busy), workers, queued, oldest, dict(self._running))

    # --- the work

    def retry_after(self) -> int:
        return max(1, math.ceil(self._typical_seconds))

    @property
    def searches(self) -> int:
        """Players' searches running or waiting now."""
        return self._players

    def _admit(self, owner: str | None, hint: bool) -> None:
        """Refuse a player's search beyond the bounds (module docstring), at once."""
        s = self.settings
        now = time.monotonic()
        if owner is not None and owner in self._owners:
            raise SearchInProgress(max(1, math.ceil(self._owners[owner] - now)))
        bound = s.solver_workers + s.solver_queue
        if self._players >= bound:
            raise SolverBusy(self.retry_after())
        if not hint and self._finishes >= max(s.solver_workers, bound - s.solver_hint_workers):
            raise SolverBusy(self.retry_after())

    async def search(
        self,
        state_bytes: bytes,
        max_positions: int,
        max_seconds: float | None,
        *,
        owner: str | None = None,
        hint: bool = False,
    ) -> SolveResult:
        """A player's search from `State.to_bytes()`: `owner` names the player (one search
        each), `hint` a hint's search (it may use the hint lane). Raises `SearchInProgress`
        while the owner has one, `SolverBusy` when full."""
        self._admit(owner, hint)
        if owner is not None:
            budget = self._typical_seconds if max_seconds is None else max_seconds
            # When its budget ends, counted from now (time waiting in line comes on
            # top): the Retry-After of the owner's next search meanwhile.
            self._owners[owner] = time.monotonic() + budget
        self._players += 1
        self._finishes += int(not hint)
        try:
            s = self.settings
            args = (state_bytes, max_positions, max_seconds, s.solver_table_size)
            kind = "hint" if hint else "finish"
            result: SolveResult = await self._run(PLAYER, kind, solve_bytes, *args, hint=hint)
        finally:
            self._players -= 1
            self._finishes -= int(not hint)
            if owner is not None:
                del self._owners[owner]
        # Retry-After follows how long searches take here (a moving average).
        self._typical_seconds = 0.8 * self._typical_seconds + 0.2 * result.elapsed_ms / 1000
        return result

    async def prove(
        self, variant: str, number: int, priority: Priority, *, kind: str, rated: bool = True
    ) -> Proof | None:
        """Prove one deal with the configured prover and budget, and (`rated`) rate a
        proven one (`difficulty_games` simulated games): one unit of background work.
        `kind`: "daily" or "solvable", for the observer."""
        args = prove_args(self.settings, variant, number, rated=rated)
        proof: Proof | None = await self._run(_background(priority), kind, prove, *args)
        return proof

    async def rate(self, variant: str, number: int, positions: int, priority: Priority) -> str:
        """Rate a proven deal (`positions`: its proof's size): one unit of background work."""
        s = self.settings
        args = (s.difficulty_rater, variant, number, positions, s.difficulty_games)
        rating: str = await self._run(_background(priority), "rating", rate, *args)
        return rating

    async def analyse(
        self,
        state_bytes: bytes,
        max_positions: int,
        max_seconds: float | None,
        begun: Begun | None = None,
    ) -> SolveResult:
        """One position of a finished game's analysis (`services.analysis.service`): a search in
        the background lane, after players' searches and before every proof; `begun` is
        awaited once it runs on a worker (the analysis is then running, no longer
        waiting)."""
        s = self.settings
        args = (state_bytes, max_positions, max_seconds, s.solver_table_size)
        result: SolveResult = await self._run(ANALYSIS, "analysis", solve_bytes, *args, begun=begun)
        return result

    def close(self) -> None:
        """Waits for running proofs (a candidate's budget at most: no proof outlives the
        app); searches are dropped."""
        for lane, executor in self._executors.items():
            executor.shutdown(wait=lane == _BACKGROUND_LANE, cancel_futures=True)
        self._executors.clear()
