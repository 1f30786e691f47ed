"""In-process token buckets for rate limits per voter session and per client address.

One bucket per key refills continuously at `rate_per_minute`; a request that finds the bucket empty is refused
with the seconds until the next token. State is per process: behind several workers, each enforces its share.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    """Token buckets keyed by string, with a bounded number of keys (oldest forgotten first)."""

    def __init__(
        self,
        rate_per_minute: int,
        *,
        burst: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        self.rate = rate_per_minute / 60.0
        self.burst = float(burst if burst is not None else max(1, rate_per_minute // 3))
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _tokens(self, key: str, now: float) -> float:
        """`key`'s tokens at `now`: what it had, refilled since, capped at the burst (caller holds the lock)."""
        tokens, last = self._buckets.get(key, (self.burst, now))
        return min(self.burst, tokens + (now - last) * self.rate)

    def wait(self, key: str) -> float:
        """Seconds until `key` could take a token (0.0 if it can now), without taking one."""
        with self._lock:
            tokens = self._tokens(key, self.clock())
            return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def take(self, key: str) -> float:
        """Take one token for `key`: 0.0 when allowed, else the seconds to wait."""
        with self._lock:
            now = self.clock()
            tokens = self._tokens(key, now)
            self._buckets.pop(key, None)  # re-inserted below: the dict's order is least recently used first
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                wait = 0.0
            else:
                self._buckets[key] = (tokens, now)
                wait = (1.0 - tokens) / self.rate
            while len(self._buckets) > self.max_keys:
                self._buckets.pop(next(iter(self._buckets)))
            return wait
