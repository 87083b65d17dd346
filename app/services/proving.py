"""Proving deals winnable in the background: the one pool for daily and solvable deals.

A proof is a call of the prover (the solver, `daily_prover`) on one deal number; its
winning line is replayed by the engine before it counts. Proofs are CPU work, so they
run in a process pool at low priority (or in one thread when `daily_workers` is 0) and
the event loop stays free. The pool is built once in the app's lifespan and shared:
at most `daily_workers` proofs run at once, and the waiting ones start in order of
priority (a daily deal before a solvable pool's next deal), then of arrival.

Deal numbers are derived from the server secret (HMAC-SHA256 of a message naming
what the number is for), so only the server can predict them.
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import hmac
import importlib
import itertools
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from app.config import Settings
from app.engine import MAX_DEAL, EngineError, State, deal, get_variant
from app.solver.pool import exit_with_parent

log = logging.getLogger("app.proving")

# Every deal number the server chooses (random, daily, solvable) stays below 2**53, so
# that JavaScript reads it exactly; that is still far too many to guess a deal from its
# face-up cards.
SERVER_DEAL_MAX = min(MAX_DEAL, 2**53 - 1)

# Priorities: lower first.
DAILY = 0
SOLVABLE = 1


def derive_deal(secret: str, message: str) -> int:
    """A deal number only the holder of `secret` can predict; each use names itself in
    `message` (e.g. "solvable|<variant>|<seq>") so that two uses never share numbers."""
    digest = hmac.new(secret.encode(), message.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % SERVER_DEAL_MAX + 1


@dataclass(frozen=True)
class Proof:
    deal: int
    positions: int
    elapsed_ms: int
    line: list[dict[str, Any]]


Prover = Callable[..., Any]


def _load_prover(path: str) -> Prover:
    module, _, name = path.partition(":")
    prover: Prover = getattr(importlib.import_module(module), name)
    return prover


def prove(
    prover_path: str,
    variant: str,
    number: int,
    positions: int,
    seconds: float,
    core: str = "auto",
    table_size: int | None = None,
) -> Proof | None:
    """Try to prove one deal winnable; the line is replayed by the engine before it counts."""
    prover = _load_prover(prover_path)
    start = deal(get_variant(variant), number)
    result = prover(
        start, max_positions=positions, max_seconds=seconds, core=core, table_size=table_size
    )
    if result.result != "solved":
        return None
    state: State = start
    try:
        for move in result.moves:
            state, _ = state.apply(move, auto_finish=False)
    except EngineError:
        pass  # reported below: a line the rules refuse proves nothing
    if not state.is_won:
        # Without the number: a server-chosen deal number is a secret, logs included.
        log.error("a prover line for %s does not win; ignored", variant)
        return None
    return Proof(number, result.positions, result.elapsed_ms, [m.to_json() for m in result.moves])


def _lower_priority() -> None:
    # Background work: requests and hints come first on a busy machine; and it ends
    # with the server, however the server ends.
    os.nice(10)
    exit_with_parent()


class BackgroundProver:
    """The app's pool of background proofs, with priorities."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._executor: Executor | None = None
        self._slots = max(1, settings.daily_workers)
        self._running = 0
        self._order = itertools.count()
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.settings.daily_workers == 0:
                # Our own thread, not the loop's default executor: close() waits for it.
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="prover")
            else:
                # spawn: a fork of a process with a running event loop and threads is unsafe.
                self._executor = ProcessPoolExecutor(
                    self.settings.daily_workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_lower_priority,
                )
        return self._executor

    async def _acquire(self, priority: int) -> None:
        if self._running < self._slots and not self._waiting:
            self._running += 1
            return
        granted = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), granted))
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self._release()  # the slot came just as we gave up: pass it on
            raise  # a cancelled entry left in the heap is skipped by _release

    def _release(self) -> None:
        while self._waiting:
            _, _, granted = heapq.heappop(self._waiting)
            if not granted.done():
                granted.set_result(None)  # the slot goes straight to the next in line
                return
        self._running -= 1

    async def prove(self, variant: str, number: int, priority: int) -> Proof | None:
        """Prove one deal with the configured prover and budget, when a slot is free."""
        s = self.settings
        args = (
            s.daily_prover,
            variant,
            number,
            s.daily_max_positions,
            s.daily_max_seconds,
            s.solver_core,
            s.solver_table_size,
        )
        await self._acquire(priority)
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool(), prove, *args)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool next time.
            self._executor = None
            raise
        finally:
            self._release()

    def close(self) -> None:
        if self._executor is not None:
            # A worker finishes its current candidate (at most daily_max_seconds): no
            # proof outlives the app.
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
