"""The vote plan computed by one process and read by every other, through Redis (ARENA_REDIS_URL set).

Each process's matchmaking pool asks for the plan when it refreshes (in its background thread, every 15 s).
A published plan younger than `max_age` (by the Redis server's clock, so machines agree) is used as it is.
Otherwise the process that wins a short lock computes the plan from the database, publishes it under the next
version number and releases the lock; a process that finds the lock taken waits for that plan instead of
computing its own. So one process computes a modality's plan per refresh period, and every process draws
matchups from the same plan (its version number, on the pool, says which).

Redis unreachable: the process computes its own plan, as every process does without Redis.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import redis

from arena.runtime.shared_state import SharedRedis
from arena.voting.matchmaking import Pair

log = logging.getLogger(__name__)

# KEYS[1] lock, ARGV[1] the holder's token: delete the lock only if this holder still has it.
RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


@dataclass(frozen=True)
class PublishedPlan:
    """A plan as stored: its version, when its computation started (Redis time, seconds) and the pairs."""

    version: int
    at: float
    plan: dict[Pair, float]

    def encode(self) -> str:
        """JSON with the pairs as [a, b, weight] (floats round-trip exactly, so readers get equal plans)."""
        pairs = [[a, b, w] for (a, b), w in sorted(self.plan.items())]
        return json.dumps({"version": self.version, "at": self.at, "pairs": pairs})

    @classmethod
    def decode(cls, raw: bytes | str) -> PublishedPlan:
        """The inverse of `encode`."""
        data = json.loads(raw)
        plan = {(str(a), str(b)): float(w) for a, b, w in data["pairs"]}
        return cls(int(data["version"]), float(data["at"]), plan)


class SharedPlan:
    """A `PlanSource` (arena.voting.matchup_cache) whose plans are computed once and shared through Redis."""

    def __init__(
        self,
        shared: SharedRedis,
        *,
        max_age: float = 15.0,
        lock_seconds: float = 60.0,
        wait: float = 10.0,
        poll: float = 0.05,
    ) -> None:
        self.client = shared.client
        self.shared = shared
        self.max_age = max_age  # a published plan older than this is recomputed (the pool's refresh period)
        self.lock_seconds = lock_seconds  # a computing process that dies frees the lock after this long
        self.wait = wait  # how long a process waits for another's plan before computing its own
        self.poll = poll
        self.computed = 0  # plans this process computed and published
        self.fallbacks = 0  # plans this process computed without sharing them (Redis failed or too slow)
        self._release = self.client.register_script(RELEASE)

    def plan(
        self, modality: str, compute: Callable[[], dict[Pair, float]], *, fresh: bool
    ) -> tuple[dict[Pair, float], int | None]:
        """The shared plan of `modality`: the published one while it is young enough (and `fresh` is not
        asked), else one this process computes and publishes, or the one another process is publishing."""
        found = None
        if not self.shared.breaker.open():
            try:
                found = self._shared(modality, compute, fresh)
            except redis.RedisError as exc:
                self.shared.breaker.trip()
                log.warning("shared vote plan unavailable (%s); computing this process's own", exc)
        if found is not None:
            return found.plan, found.version
        self.fallbacks += 1
        return compute(), None

    def _now(self) -> float:
        seconds, micros = self.client.time()
        return float(seconds) + float(micros) / 1e6

    def _read(self, key: str) -> PublishedPlan | None:
        raw = self.client.get(key)
        if raw is None:
            return None
        try:
            return PublishedPlan.decode(raw)
        except (ValueError, KeyError, TypeError):
            log.warning("unreadable shared vote plan at %s; it will be replaced", key)
            return None

    def _shared(
        self, modality: str, compute: Callable[[], dict[Pair, float]], fresh: bool
    ) -> PublishedPlan | None:
        key = self.shared.key("plan", modality)
        asked = self._now()
        oldest = asked - (0.0 if fresh else self.max_age)  # a plan started before this is too old
        found = self._read(key)
        if found is not None and found.at > oldest:
            return found
        lock = key + ":lock"
        for _attempt in range(2):  # compute it ourselves, or wait for the process that is computing it
            token = uuid.uuid4().hex
            if self.client.set(lock, token, nx=True, px=int(self.lock_seconds * 1000)):
                try:
                    started = self._now()
                    plan = compute()
                    version = int(self.client.incr(key + ":version"))
                    published = PublishedPlan(version, started, plan)
                    self.client.set(key, published.encode())
                    self.computed += 1
                    return published
                finally:
                    self._release(keys=[lock], args=[token])
            deadline = time.monotonic() + self.wait
            while self.client.exists(lock) and time.monotonic() < deadline:
                time.sleep(self.poll)
            found = self._read(key)
            if found is not None and found.at > oldest:
                return found
        return None


__all__ = ["PublishedPlan", "SharedPlan"]
