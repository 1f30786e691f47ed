"""How a queue adapter polls a job: waits that start at `poll_interval_ms` and grow by `poll_backoff` (with
jitter) up to `poll_max_interval_ms`, a 429's Retry-After honoured, and failed or timed-out status requests
counted against an error budget instead of ending the job at the first one. The job's own deadline (timeout_s,
enforced by the caller) bounds it all.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from arena.generation.providers.base import ProviderError, RateLimited
from arena.generation.providers.http_common import fetch
from arena.generation.providers.params import SubmitPollParams
from arena.runtime.retry import is_retryable

Sleep = Callable[[float], Awaitable[None]]
# Consecutive failed status requests (5xx, connection failures, timed-out polls) tolerated before the job is
# given up. A 429 does not count: the server said when to come back, and the job's deadline bounds the waiting.
POLL_ERROR_BUDGET = 3
# The methodology's cadence for timing runs (one call at a time, so at most 10 status requests a second): a fixed
# 100 ms grid, so the measured time is the provider's and not the polling's granularity.
TIMING_POLL_S = 0.1


@dataclass
class PollSchedule:
    """The waits between status requests: each drawn uniformly between half and all of the current interval
    (with jitter), the interval then multiplied by `multiplier` up to `cap`. Without jitter and with multiplier 1
    it is a fixed cadence (the methodology's 100 ms grid when first = 0.1)."""

    first: float
    multiplier: float = 1.5
    cap: float = 5.0
    jitter: bool = True
    rng: random.Random = field(default_factory=random.Random)
    current: float = 0.0

    def __post_init__(self) -> None:
        self.current = min(self.first, self.cap)

    @classmethod
    def of(cls, params: SubmitPollParams, rng: random.Random | None = None) -> PollSchedule:
        """The schedule a model's params ask for."""
        return cls(
            first=params.poll_interval_ms / 1000,
            multiplier=params.poll_backoff,
            cap=max(params.poll_max_interval_ms, params.poll_interval_ms) / 1000,
            jitter=params.poll_jitter,
            rng=rng or random.Random(),
        )

    @classmethod
    def timing(cls) -> PollSchedule:
        """The fixed 100 ms grid of a timing run (GenerationRequest.extra["timing"])."""
        return cls(first=TIMING_POLL_S, multiplier=1.0, cap=TIMING_POLL_S, jitter=False)

    def next_wait(self) -> float:
        """Seconds from one poll's due time to the next one's; the interval then grows."""
        wait = self.rng.uniform(self.current / 2, self.current) if self.jitter else self.current
        self.current = min(self.cap, self.current * self.multiplier)
        return wait


@dataclass
class PollOutcome:
    """What polling saw: the final state, status requests sent, 429s and failed requests among them, and when
    the final answer's headers arrived."""

    state: dict[str, Any]
    polls: int
    throttled: int
    errors: int
    headers_at: float


async def poll_until(
    client: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    params: SubmitPollParams,
    *,
    sleep: Sleep,
    finished: Callable[[httpx.Response], dict[str, Any] | None],
    schedule: PollSchedule | None = None,
) -> PollOutcome:
    """GET `url` on the schedule (the params' own unless given) until `finished(response)` returns the final
    state (it raises for a failed job). Polls keep to a grid of due times (each wait added to the last due time,
    not to when the sleep ended), so neither a poll's own time nor a late wake-up adds up; a grid left behind by
    a slow poll restarts at now."""
    schedule = schedule or PollSchedule.of(params)
    timeout = _poll_timeout(client, params.poll_timeout_s)
    polls = throttled = errors = streak = 0
    due = time.perf_counter()
    while True:
        polls += 1
        retry_after: float | None = None
        try:
            response, headers_at = await fetch(
                client, "GET", url, headers=headers, what="status", timeout=timeout
            )
            streak = 0
        except ProviderError as exc:
            if not is_retryable(exc):
                raise
            if isinstance(exc, RateLimited):
                throttled += 1
            else:  # a timed-out poll, a 5xx or a dropped connection: one more against the budget
                errors += 1
                streak += 1
                if streak >= POLL_ERROR_BUDGET:
                    raise
            retry_after = exc.retry_after
        else:
            state = finished(response)
            if state is not None:
                return PollOutcome(state, polls, throttled, errors, headers_at)
        now = time.perf_counter()
        due = max(max(due, now - schedule.current) + schedule.next_wait(), now + (retry_after or 0.0))
        await sleep(max(0.0, due - now))


def _poll_timeout(client: httpx.AsyncClient, seconds: float) -> httpx.Timeout:
    """One status request's timeout: poll_timeout_s, or the client's own when that is shorter."""
    own = client.timeout.read
    return httpx.Timeout(min(seconds, own) if own is not None else seconds, connect=min(seconds, 15.0))
