"""Fakes for scheduler and timing tests: virtual time, and the smallest database a timing run needs.

    vt = VirtualTime(datetime(2026, 12, 1, tzinfo=UTC))
    vt.now()            # the wall clock (aware UTC), moved by `vt.sleep` and `vt.set`
    vt.perf_counter()   # the monotonic clock, moved by the same amounts
    await vt.sleep(2.5) # returns at once, both clocks 2.5 s later

With `monkeypatch.setattr(arena.generation.providers.sandbox, "time", vt)` the sandbox models' latency is simulated on
virtual time: a timed call then measures exactly the sandbox's drawn latency, with no real waiting.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from arena.db import upgrade_database
from arena.generation.registry import parse_registry, sync_registry
from arena.initialize import load_timing_set


class VirtualTime:
    """A wall clock and a perf counter that only move when told (or when something sleeps on them)."""

    def __init__(self, start: datetime) -> None:
        self.wall = start
        self.mono = 1000.0

    def now(self) -> datetime:
        """The virtual wall-clock time."""
        return self.wall

    def perf_counter(self) -> float:
        """The virtual monotonic time in seconds."""
        return self.mono

    def advance(self, seconds: float) -> None:
        """Move both clocks forward."""
        self.wall += timedelta(seconds=seconds)
        self.mono += seconds

    def set(self, moment: datetime) -> None:
        """Jump the wall clock (and the monotonic one by as much) to `moment`."""
        self.advance((moment - self.wall).total_seconds())

    async def sleep(self, seconds: float) -> None:
        """An asyncio.sleep that returns at once, moving virtual time."""
        self.advance(max(0.0, seconds))


def sandbox_registry(profiles: dict[str, tuple[int, int]], *, native_size: int = 256) -> str:
    """models.toml text for sandbox text-to-image models with these latency profiles (median, p95 in ms);
    small native images keep the rendering cheap."""
    return "".join(
        f"""
[[models]]
slug = "{slug}"
display_name = "{slug}"
organization = "Local sandbox"
modality = "text_to_image"
adapter = "sandbox"
params = {{ variant = "{slug}", native_size = {native_size}, latency_ms = {{ median = {median}, p95 = {p95} }} }}
"""
        for slug, (median, p95) in profiles.items()
    )


def timing_world(engine: Engine, registry_toml: str) -> Engine:
    """Schema, the 150-prompt timing set and these models: all a timing run needs (no taxonomy or pool)."""
    upgrade_database(engine)
    with Session(engine) as session:
        load_timing_set(session)
        sync_registry(session, parse_registry(registry_toml))
    return engine


__all__ = ["VirtualTime", "sandbox_registry", "timing_world"]
