"""A bounded pool that runs searches off the event loop.

``await pool.solve(state_bytes, max_positions=..., max_seconds=...)`` runs one search in a
worker and returns its :class:`SolveResult`. At most ``workers`` searches run and at most
``queue`` more wait; past that :class:`SolverBusy` is raised at once (the service answers
429 ``solver_busy`` with ``Retry-After``) instead of queueing without bound.

Processes by default: the Python search holds the GIL, so in threads it starves the
event loop (``bench/solver.py`` measures the loop's lag both ways); the native search
releases it, but the plan around it, the conversions and the replay of a line are
Python. Threads stay available behind the same interface (tests, or a single-process
deployment).
"""

from __future__ import annotations

import asyncio
import ctypes
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Literal

from app.engine import State
from app.solver.plan import DEFAULT_MAX_POSITIONS, CoreChoice, resolve_core, solve
from app.solver.search import SolveResult

Kind = Literal["process", "thread"]


class SolverBusy(Exception):
    """Every worker is busy and the waiting line is full: retry after ``retry_after`` s."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"the solver is busy; retry after {retry_after} s")
        self.retry_after = retry_after


_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_PARENT_POLL_SECONDS = 1.0


def exit_with_parent() -> None:
    """Make this worker process end when the process that started it dies, however it
    dies (`kill -9` included): a pool's initializer. Linux is told to send SIGKILL at the
    parent's death; everywhere, a thread also watches the parent id, since the kernel's
    signal follows the parent *thread* and a worker can be orphaned before it is asked."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watcher below still ends it

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _solve_bytes(
    data: bytes,
    max_positions: int,
    max_seconds: float | None,
    core: CoreChoice,
    table_size: int | None,
) -> SolveResult:
    # Runs in the worker: bytes in (cheap to send to a process), a small result out.
    return solve(
        State.from_bytes(data),
        max_positions=max_positions,
        max_seconds=max_seconds,
        core=core,
        table_size=table_size,
    )


class SolverPool:
    def __init__(
        self,
        workers: int = 1,
        queue: int = 0,
        kind: Kind = "process",
        core: CoreChoice = "auto",
        table_size: int | None = None,
    ) -> None:
        if workers < 1 or queue < 0:
            raise ValueError("workers must be at least 1 and queue at least 0")
        resolve_core(core)  # refuse a core that is not there now, not in a worker later
        self.workers, self.queue, self.kind = workers, queue, kind
        self.core, self.table_size = core, table_size
        self._running = 0
        self._executor: Executor | None = None
        self._typical_seconds = 2.0  # a guess until searches have been timed

    @property
    def running(self) -> int:
        """Searches running or waiting now."""
        return self._running

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.kind == "process":
                # Never fork a process that runs an event loop: spawn clean workers.
                ctx = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=ctx, initializer=exit_with_parent
                )
            else:
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="solver")
        return self._executor

    def retry_after(self) -> int:
        return max(1, math.ceil(self._typical_seconds))

    async def solve(
        self,
        state_bytes: bytes,
        max_positions: int = DEFAULT_MAX_POSITIONS,
        max_seconds: float | None = None,
    ) -> SolveResult:
        """Search from the position ``State.to_bytes()`` gave; raises :class:`SolverBusy`."""
        if self._running >= self.workers + self.queue:
            raise SolverBusy(self.retry_after())
        self._running += 1
        try:
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(
                self._pool(),
                _solve_bytes,
                state_bytes,
                max_positions,
                max_seconds,
                self.core,
                self.table_size,
            )
        finally:
            self._running -= 1
        # Retry-After follows how long searches take here (a moving average).
        self._typical_seconds = 0.8 * self._typical_seconds + 0.2 * result.elapsed_ms / 1000
        return result

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def __aenter__(self) -> SolverPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
