"""The one retry policy of every outbound call: generation (the backfill), judging (the judge client's HTTP and
schema retries) and polling (a queue adapter's status requests). It says how many attempts, how long to wait
between them (reading the server's Retry-After) and which failures are worth another attempt; callers only loop.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

#: HTTP statuses worth another attempt when a caller reads raw responses (the judge): a timeout, a conflict the
#: server may resolve, rate limiting and the gateway / availability 5xx. Provider adapters type the same answers
#: as retryable errors (`arena.generation.providers.base`: ProviderTimeout, RateLimited, ServerError).
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """At most `max_attempts` tries; before retry k (0-based) wait `base_delay * multiplier**k` seconds capped at
    `max_delay`, drawn uniformly below that with `jitter` (full jitter), and never less than the server's
    Retry-After (itself capped at `max_delay`)."""

    max_attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    multiplier: float = 2.0
    jitter: bool = True

    def delay(
        self, attempt: int, rng: random.Random | None = None, retry_after: float | None = None
    ) -> float:
        """Seconds to wait before retry number `attempt` (0-based); Retry-After wins when larger."""
        backoff = min(self.max_delay, self.base_delay * self.multiplier**attempt)
        if self.jitter:
            backoff = (rng or random.Random()).uniform(0, backoff)
        return max(backoff, min(retry_after or 0.0, self.max_delay))

    def may_retry(self, attempts: int) -> bool:
        """Whether another try is allowed after `attempts` tries."""
        return attempts < self.max_attempts


def is_retryable(error: BaseException) -> bool:
    """Whether a failed call is worth another attempt: the error says so (`retryable`, set on the typed
    provider errors: timeouts, rate limits, server errors and connection failures)."""
    return bool(getattr(error, "retryable", False))


def retryable_status(status: int) -> bool:
    """Whether an HTTP status is worth another attempt."""
    return status in RETRYABLE_STATUSES


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Retry-After (seconds or an HTTP date) or retry-after-ms, as seconds; None when absent or unreadable.
    `headers` is looked up with lower-case names (httpx.Headers is case-insensitive)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
