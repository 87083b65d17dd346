"""Searches that answered ``unknown``, remembered for a while (per process, in memory).

A finish runs out its whole budget (20 s) on an undecided position, and retrying asks
the same search again, which answers the same. Remembering the answer for
``SOLVER_UNKNOWN_TTL_SECONDS`` makes a retry answer at once (finish its 409
``no_win_found``, a hint its heuristic suggestion) without holding a worker. The key is
the position's whole bytes (hidden cards included) digested, with the kind of search and
its budget: another budget may decide, and nothing of the key is ever answered. At most
``SOLVER_UNKNOWN_MAX_ENTRIES`` are kept, the oldest going first. An instance's memory is
its own: others search once each, which bounds the cost as well.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from app.services.kit.bounded_map import BoundedMap

Key = tuple[bytes, str, int, float]


def key(state_bytes: bytes, kind: str, positions: int, seconds: float) -> Key:
    """The key of a search: the position's digest, the kind of search and its budget."""
    return hashlib.sha256(state_bytes).digest(), kind, positions, seconds


class Undecided:
    """Keys and when they stop being remembered, at most `max_entries` (the oldest go)."""

    def __init__(
        self, ttl_seconds: float, max_entries: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._until: BoundedMap[Key, float] = BoundedMap(max_entries)

    def __len__(self) -> int:
        return len(self._until)

    def remember(self, search: Key) -> None:
        if self.ttl_seconds > 0:
            self._until.put(search, self._clock() + self.ttl_seconds)

    def recalls(self, search: Key) -> bool:
        """Whether the search answered unknown within the TTL (an expired entry goes)."""
        until = self._until.get(search)
        if until is None:
            return False
        if self._clock() < until:
            return True
        self._until.pop(search)
        return False
