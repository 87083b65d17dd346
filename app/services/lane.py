"""The request work a client can make long, off the event loop: replaying a game record
or a game's line (thousands of moves), serialising thousands of log rows. On the event
loop a 10,000-move record held every other request of the instance for a second and
more; here it runs in a few threads of its own, and the loop goes on serving.

Bounded both ways: at most `threads` such jobs run at once (Python runs one thread at a
time: more threads would only share the same core among more jobs, and the event loop
with them), and at most `queue` more wait; one more is refused 503 `server_busy` with a
`Retry-After`, at once, with nothing changed. A job in a thread holds the interpreter at
most a switch interval (5 ms) at a time while the loop wants it, so the loop's own
requests wait milliseconds, not seconds.

Work measured under a millisecond (one move, a short line) stays on the loop: handing
it to a thread costs more than it does.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from app.errors import ServerBusy, retry_after

P = ParamSpec("P")
T = TypeVar("T")

# Moves in a line from which its replay goes to the lane: a move costs about 25 µs to
# play and 40 µs to log, so 40 moves are a couple of milliseconds.
LONG_LINE = 40


class Lane:
    """A bounded pool of threads for request work, shared by the process's requests."""

    def __init__(self, threads: int = 1, queue: int = 32) -> None:
        self.threads, self.queue = threads, queue
        self._executor: ThreadPoolExecutor | None = None
        self._admitted = 0  # running or waiting

    def configure(self, threads: int, queue: int) -> None:
        """Sizes from the settings, at start-up (before any job)."""
        self.threads, self.queue = threads, queue

    @property
    def busy(self) -> int:
        return self._admitted

    async def run(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`function(*args, **kwargs)` in one of the lane's threads, with this context
        (the request's log fields), once a place is free. 503 server_busy at once when
        `threads + queue` jobs are admitted already."""
        if self._admitted >= self.threads + self.queue:
            raise ServerBusy(headers=retry_after(1))
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="lane")
        self._admitted += 1
        context = contextvars.copy_context()
        call = functools.partial(context.run, function, *args, **kwargs)
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

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


# The process's lane (threads are per process).
LANE = Lane()
