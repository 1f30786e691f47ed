"""A Redis that fails is skipped for a pause by every user of the client (page generation, rate limits, vote
plan), so a Redis that hangs costs one timeout per pause instead of one per request; then it is tried again."""

import redis

from arena.runtime.shared_state import Breaker, PageGeneration, SharedRedis
from arena.voting.shared_limits import SharedRateLimiter
from arena.voting.shared_plan import SharedPlan


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class DownRedis:
    """A client whose every command fails as an unreachable server's does, counting the attempts."""

    def __init__(self) -> None:
        self.calls = 0

    def _fail(self, *args, **kwargs):
        self.calls += 1
        raise redis.ConnectionError("Timeout connecting to server")

    get = incr = time = set = exists = _fail

    def register_script(self, _source):
        return self._fail


def test_after_a_failure_every_user_of_the_client_skips_redis_until_the_pause_ends():
    clock, client = Clock(), DownRedis()
    shared = SharedRedis(client, "arena:test", Breaker(pause=5.0, clock=clock))
    generation = PageGeneration(shared)
    limiter = SharedRateLimiter(client, shared.prefix, "session", 60, breaker=shared.breaker)
    plan = SharedPlan(shared)
    assert generation.current() is None and client.calls == 1
    for _ in range(20):  # within the pause: fallbacks at once, Redis not tried
        assert generation.current() is None
        assert limiter.take("voter") >= 0.0
        assert plan.plan("text_to_image", lambda: {("a", "b"): 1.0}, fresh=False) == ({("a", "b"): 1.0}, None)
    assert client.calls == 1
    clock.now += 5.0
    assert generation.current() is None and client.calls == 2  # tried again after the pause


def test_the_per_process_fallback_still_limits_while_redis_is_skipped():
    clock, client = Clock(), DownRedis()
    shared = SharedRedis(client, "arena:test", Breaker(pause=5.0, clock=clock))
    limiter = SharedRateLimiter(client, shared.prefix, "session", 6, burst=2, breaker=shared.breaker)
    waits = [limiter.take("voter") for _ in range(4)]
    assert waits[:2] == [0.0, 0.0] and all(w > 0 for w in waits[2:])
