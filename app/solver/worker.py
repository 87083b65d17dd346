"""What a solver worker runs, for the service's one pool of CPU work
(``app.services.background.cpu_pool.WorkPool``): a search from a position's bytes, the refusals when
every worker is busy or the player has a search already, and a worker process's tie to
the server that started it.

Workers are processes by default: the native search releases the GIL, but the plan
around it, the conversions and the engine's replay of a line are Python, and in threads
they take turns with the event loop. Threads stay available (tests, or a single-process
deployment).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time

from app.engine import State
from app.solver.plan import solve
from app.solver.result import SolveResult


class SolverBusy(Exception):
    """Every worker is busy and the waiting line is full: retry after ``retry_after`` s."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"the solver is busy; retry after {retry_after} s")
        self.retry_after = retry_after


class SearchInProgress(Exception):
    """The player already has a search running or waiting: retry after ``retry_after`` s
    (when that search's budget ends)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"a search of this player is in progress; retry after {retry_after} s")
        self.retry_after = retry_after


_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_PARENT_POLL_SECONDS = 1.0


def exit_with_parent() -> None:
    """Make this worker process end when the process that started it dies, however it
    dies (`kill -9` included): a pool's initializer. Linux is told to send SIGKILL at the
    parent's death; everywhere, a thread also watches the parent id, since the kernel's
    signal follows the parent *thread* and a worker can be orphaned before it is asked.
    The parent is the process that spawned it (multiprocessing says which), not whoever
    is its parent now: a worker orphaned while still starting ends at once."""
    spawner = multiprocessing.parent_process()
    parent = spawner.pid if spawner is not None and spawner.pid is not None else os.getppid()
    if os.getppid() != parent:
        os._exit(1)
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


def solve_bytes(
    data: bytes,
    max_positions: int,
    max_seconds: float | None,
    table_size: int | None,
) -> SolveResult:
    """Runs in the worker: bytes in (cheap to send to a process), a small result out."""
    return solve(
        State.from_bytes(data),
        max_positions=max_positions,
        max_seconds=max_seconds,
        table_size=table_size,
    )
