"""Failed authentications, limited per client address (the `limits` package).

A client that sent `per_minute` wrong tokens within the last minute is refused (429
with Retry-After) before its next token is even looked up, right or wrong: otherwise a
guesser would still learn which guess was right. Counted in this process's memory;
each instance of a deployment counts its own.
"""

from __future__ import annotations

import math
import time

from limits.limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

_NAMESPACE = "auth_failures"


class FailedAuthLimiter:
    def __init__(self, per_minute: int) -> None:
        self._item = RateLimitItemPerMinute(per_minute)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def retry_after(self, address: str) -> int | None:
        """Seconds until `address` may try again; None while it is under the limit."""
        if self._limiter.test(self._item, _NAMESPACE, address):
            return None
        reset = self._limiter.get_window_stats(self._item, _NAMESPACE, address).reset_time
        return max(1, math.ceil(reset - time.time()))

    def failed(self, address: str) -> None:
        self._limiter.hit(self._item, _NAMESPACE, address)
