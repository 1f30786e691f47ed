"""What the processes of one arena share through Redis when ARENA_REDIS_URL is set, besides the database.

One Redis client per process and arena (`shared_redis`), keys under a prefix derived from the secret (so two
arenas on one Redis never mix, and processes share state only when they share sessions). The page generation
lives here: a counter every process reads before serving a cached leaderboard page and that a new snapshot or
an operator's model change increments, so one process's change retires every process's cached pages at once.

Without ARENA_REDIS_URL none of this exists and each process keeps today's behaviour (pages keyed by the newest
snapshot id read from the database per request). A Redis that stops answering is logged and treated the same
way: the callers fall back to the database. After a failure every caller skips Redis for a few seconds
(`Breaker`), so a Redis that hangs costs one timeout per pause, not one per request.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.runtime.secret_key import resolve_secret
from arena.settings import Settings

log = logging.getLogger(__name__)
_CLIENTS: dict[tuple[str, str], SharedRedis] = {}
_LOCK = threading.Lock()


class Breaker:
    """Skip Redis for `pause` seconds after it failed, then try again."""

    def __init__(self, pause: float = 5.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.pause = pause
        self.clock = clock
        self._until = 0.0

    def open(self) -> bool:
        """True while callers should not try Redis (and use their fallback at once)."""
        return self.clock() < self._until

    def trip(self) -> None:
        """Redis just failed: pause."""
        self._until = self.clock() + self.pause


@dataclass(frozen=True)
class SharedRedis:
    """A Redis client, the key prefix of one arena and the breaker every user of the client shares."""

    client: Any
    prefix: str
    breaker: Breaker = field(default_factory=Breaker)

    def key(self, *parts: str) -> str:
        """`prefix:part:part...`"""
        return ":".join((self.prefix, *parts))


def namespace(secret: str) -> str:
    """Key prefix of one arena: processes share state only when they share the secret (as sessions require)."""
    return "arena:" + hashlib.sha256(secret.encode()).hexdigest()[:12]


def shared_redis(settings: Settings) -> SharedRedis | None:
    """The process's client for `settings.redis_url` (made once), or None when Redis is not configured.

    Short timeouts: a Redis that hangs must not hold a request for long (the callers fall back)."""
    if not settings.redis_url:
        return None
    import redis

    ident = (settings.redis_url, namespace(resolve_secret(settings)))
    with _LOCK:
        found = _CLIENTS.get(ident)
        if found is None:
            client = redis.Redis.from_url(settings.redis_url, socket_timeout=0.5, socket_connect_timeout=0.5)
            found = _CLIENTS[ident] = SharedRedis(client, ident[1])
        return found


class PageGeneration:
    """The counter that says which rendered leaderboard pages are still current, shared by every process."""

    def __init__(self, shared: SharedRedis) -> None:
        self.client = shared.client
        self.breaker = shared.breaker
        self.key = shared.key("pages", "generation")

    def current(self) -> int | None:
        """The generation now (0 before the first change), or None when Redis cannot be read."""
        if self.breaker.open():
            return None
        try:
            return int(self.client.get(self.key) or 0)
        except Exception as exc:  # redis.RedisError, or a value another version wrote
            self.breaker.trip()
            log.warning("page generation unavailable (%s); pages keyed by the database meanwhile", exc)
            return None

    def bump(self) -> None:
        """Retire every process's cached pages (after the change is committed, so a render at the new
        generation reads the changed data)."""
        try:
            self.client.incr(self.key)
        except Exception as exc:
            self.breaker.trip()
            log.warning(
                "page generation not advanced (%s); other processes show the change within their database "
                "recheck (arena.leaderboard.reader.DB_RECHECK_SECONDS)",
                exc,
            )


def page_generation(settings: Settings) -> PageGeneration | None:
    """The shared page generation of this arena, or None without ARENA_REDIS_URL."""
    shared = shared_redis(settings)
    return PageGeneration(shared) if shared is not None else None


__all__ = ["Breaker", "PageGeneration", "SharedRedis", "namespace", "page_generation", "shared_redis"]
