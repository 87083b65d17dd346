"""The request work a client can make long, off the event loop: reading and replaying a
game record, playing a game's line (a practice copy's, a finish's: thousands of moves)
and serialising its log rows. On the event loop a 10,000-move record held every other
request of the instance for a second and more; here it runs in a worker process of its
own (`kind="process"`, the default), and the loop goes on serving. A thread would not
do: Python runs one thread at a time, and every hand-over between the loop, the
database's threads and a busy thread waits up to a switch interval (5 ms), so a
request that crosses a dozen of them waited 150 ms and more.

Bounded both ways: at most `workers` such jobs run at once and at most `queue` more
wait; one more is refused 503 `server_busy` with a `Retry-After`, at once, with nothing
changed. The process starts with the first job (about a second) and ends with the
server (and with it, if the server is killed).

Work measured under a millisecond (one move, a short line) stays on the loop: handing
it over costs more than it does.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import ParamSpec, TypeVar

from app.errors import ServerBusy, retry_after
from app.solver.worker import exit_with_parent

P = ParamSpec("P")
T = TypeVar("T")

# Moves in a line from which its replay goes to the lane: a move costs about 25 µs to
# play and 40 µs to log, so 40 moves are a couple of milliseconds.
LONG_LINE = 40


class Lane:
    """A bounded pool of threads for request work, shared by the process's requests."""

    def __init__(self, workers: int = 1, queue: int = 32, kind: str = "process") -> None:
        self.workers, self.queue, self.kind = workers, queue, kind
        self._executor: Executor | None = None
        self._admitted = 0  # running or waiting
        self._bulk: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    def configure(self, workers: int, queue: int, kind: str) -> None:
        """Sizes from the settings, at start-up (before any job)."""
        self.close()
        self.workers, self.queue, self.kind = workers, queue, kind

    @property
    def busy(self) -> int:
        return self._admitted

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`function(*args, **kwargs)` in the lane (a top-level function, its arguments
        and result picklable), once a place is free; what it raises is raised here. 503
        server_busy at once when `workers + queue` jobs are admitted already."""
        if self._admitted >= self.workers + self.queue:
            raise ServerBusy(headers=retry_after(1))
        if self._executor is None:
            self._executor = self._start()
        self._admitted += 1
        call = functools.partial(function, *args, **kwargs)
        future = asyncio.get_running_loop().run_in_executor(self._executor, call)
        try:
            # Shielded: a request that goes away leaves its job to end in the thread, and
            # the job keeps its place until then (the bound counts what runs).
            return await asyncio.shield(future)
        finally:
            if future.done():
                self._release()
            else:
                future.add_done_callback(self._release)

    def _release(self, _future: object = None) -> None:
        self._admitted -= 1

    @asynccontextmanager
    async def bulk_write(self) -> AsyncIterator[None]:
        """One long line's write at a time in this process, taken before its transaction
        begins: on SQLite, writers wait for the lock in no order, and eight records'
        inserts of 10,000 rows each left a move waiting past the busy timeout; in line
        here, a move waits for one such insert at most."""
        loop = asyncio.get_running_loop()
        if self._bulk is None or self._bulk[0] is not loop:
            self._bulk = (loop, asyncio.Lock())
        async with self._bulk[1]:
            yield

    def _start(self) -> Executor:
        if self.kind == "thread":
            return ThreadPoolExecutor(self.workers, thread_name_prefix="lane")
        spawn = multiprocessing.get_context("spawn")  # never fork a running event loop
        return ProcessPoolExecutor(self.workers, mp_context=spawn, initializer=exit_with_parent)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


# The process's lane (threads are per process).
LANE = Lane()
