"""Token buckets kept in Redis, so every worker and node enforces one limit per key (not one each).

Same interface and arithmetic as `RateLimiter` (`wait`, `take`), done atomically by one Lua script that reads
the Redis server's clock, so processes on different machines agree on the refill. When Redis cannot be
reached, the limiter falls back to an in-process bucket (each process enforcing its own share) and logs it; with
a `Breaker` (arena.runtime.shared_state), it then skips Redis for a few seconds instead of waiting for it per request.
"""

from __future__ import annotations

import logging
from typing import Any

from arena.runtime.shared_state import Breaker
from arena.voting.ratelimit import RateLimiter

log = logging.getLogger(__name__)

# KEYS[1] bucket; ARGV: rate per second, burst, take (1) or peek (0). Returns the wait in seconds as a string.
BUCKET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst, take = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local v = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(v[1]) or burst
local at = tonumber(v[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then
  if take == 1 then tokens = tokens - 1 end
else
  wait = (1 - tokens) / rate
end
if take == 1 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 60)
end
return tostring(wait)
"""


class SharedRateLimiter:
    """A `RateLimiter` whose buckets live in Redis under `prefix:name:key`."""

    def __init__(
        self,
        client: Any,
        prefix: str,
        name: str,
        rate_per_minute: int,
        *,
        burst: int | None = None,
        breaker: Breaker | None = None,
    ) -> None:
        self.client = client
        self.breaker = breaker
        self.prefix = f"{prefix}:{name}:"
        self.rate = rate_per_minute / 60.0
        self.burst = float(burst if burst is not None else max(1, rate_per_minute // 3))
        self.local = RateLimiter(rate_per_minute, burst=burst)
        self._script = client.register_script(BUCKET)

    def _call(self, key: str, take: int) -> float:
        if self.breaker is None or not self.breaker.open():
            try:
                return float(self._script(keys=[self.prefix + key], args=[self.rate, self.burst, take]))
            except Exception as exc:  # Redis down or unreachable: keep limiting, per process
                if self.breaker is not None:
                    self.breaker.trip()
                log.warning("rate limit store unavailable (%s); limiting in this process only", exc)
        return self.local.take(key) if take else self.local.wait(key)

    def wait(self, key: str) -> float:
        """Seconds until `key` could take a token (0.0 if it can now), without taking one."""
        return self._call(key, 0)

    def take(self, key: str) -> float:
        """Take one token for `key`: 0.0 when allowed, else the seconds to wait."""
        return self._call(key, 1)
