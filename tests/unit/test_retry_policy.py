"""The one retry policy: exponential backoff capped, full jitter when asked, Retry-After never cut short, a fixed
number of attempts, and which failures are worth another attempt."""

from __future__ import annotations

import random

from arena.generation.providers.base import (
    BadResponse,
    ContentRefused,
    ProviderTimeout,
    RateLimited,
    ServerError,
)
from arena.runtime.retry import RetryPolicy, is_retryable, retryable_status


def test_without_jitter_the_waits_double_up_to_the_cap():
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=False)
    assert [policy.delay(k) for k in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]


def test_full_jitter_draws_below_the_capped_backoff():
    policy = RetryPolicy(base_delay=0.5, max_delay=3.0)
    rng = random.Random(7)
    for attempt in range(8):
        waits = [policy.delay(attempt, rng) for _ in range(50)]
        assert all(0 <= w <= min(3.0, 0.5 * 2**attempt) for w in waits)
        assert len(set(waits)) > 1


def test_retry_after_wins_when_larger_and_is_capped_too():
    policy = RetryPolicy(base_delay=1.0, max_delay=10.0, jitter=False)
    assert policy.delay(0, retry_after=7.0) == 7.0
    assert policy.delay(3, retry_after=1.0) == 8.0
    assert policy.delay(0, retry_after=600.0) == 10.0


def test_a_constant_wait_with_multiplier_one():
    policy = RetryPolicy(base_delay=0.1, multiplier=1.0, jitter=False)
    assert {policy.delay(k) for k in range(6)} == {0.1}


def test_attempts_are_bounded():
    policy = RetryPolicy(max_attempts=3)
    assert [policy.may_retry(n) for n in (1, 2, 3, 4)] == [True, True, False, False]


def test_timeouts_rate_limits_and_server_errors_are_retried_refusals_and_bad_answers_are_not():
    assert all(is_retryable(e) for e in (ProviderTimeout("t"), RateLimited("r"), ServerError("s")))
    assert not any(is_retryable(e) for e in (ContentRefused("c"), BadResponse("b"), ValueError("v")))
    assert [s for s in (400, 401, 408, 409, 429, 500, 501, 503) if retryable_status(s)] == [
        408,
        409,
        429,
        500,
        503,
    ]
