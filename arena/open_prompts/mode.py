"""`OpenMode`: what the open-prompt routes need, built once per app (service, runner, moderator, limiters)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import Engine

from arena.media.store import MediaStore
from arena.open_prompts.moderation import Moderator
from arena.open_prompts.runner import ProviderFactory, Runner, default_provider
from arena.open_prompts.service import OpenBattles
from arena.open_prompts.spend import make_ledger
from arena.runtime.shared_state import SharedRedis
from arena.settings import Settings


class Limiter(Protocol):
    """Token buckets per key (`arena.voting.ratelimit` or its Redis twin)."""

    def take(self, key: str) -> float: ...


@dataclass(frozen=True)
class OpenMode:
    """The open-prompt mode of one app."""

    battles: OpenBattles
    runner: Runner
    moderator: Moderator
    session_limiter: Limiter
    address_limiter: Limiter


def build_open_mode(
    settings: Settings,
    engine: Engine,
    media: MediaStore,
    shared: SharedRedis | None,
    limiter: Callable[[str, Any, Any], Any],
    clock: Callable[[], datetime],
    factory: ProviderFactory = default_provider,
) -> OpenMode:
    """The mode's parts; limits per hour become token buckets whose burst is the hourly allowance."""
    ledger = make_ledger(engine, shared)
    per_session, per_address = settings.open_session_per_hour, settings.open_address_per_hour
    return OpenMode(
        battles=OpenBattles(engine, settings, media, ledger),
        runner=Runner(engine, media, ledger, settings.open_timeout_seconds, clock, factory),
        moderator=Moderator(settings),
        session_limiter=limiter("open-session", per_session / 60.0, per_session),
        address_limiter=limiter("open-address", per_address / 60.0, per_address),
    )
