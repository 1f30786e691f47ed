"""What a job runs with: the `JobContext` of the lease-holding process (or of a CLI run), the `Outcome` a job
returns, and `until_stopped`, which cancels async work when the scheduler stops.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Engine

from arena.db.tables import utcnow
from arena.ops import job_runs as jobruns
from arena.settings import Settings
from scheduler.lease import holds_lease

Sleep = Callable[[float], Awaitable[None]]
T = TypeVar("T")


@dataclass
class JobContext:
    """What jobs need at run time: the database, settings and clock of the lease-holding process."""

    engine: Engine
    settings: Settings
    holder: str
    clock: Callable[[], datetime] = utcnow
    sleep: Sleep | None = None
    perf_counter: Callable[[], float] = time.perf_counter
    check_lease: bool = True
    stopping: threading.Event = field(default_factory=threading.Event)
    on_progress: Callable[[str, dict[str, Any]], None] | None = None  # (job, progress), e.g. for CLI output
    locks: dict[str, threading.Lock] = field(
        default_factory=lambda: {j: threading.Lock() for j in jobruns.JOBS}
    )

    def holds_lease(self) -> bool:
        """Whether this process may run jobs now (always, for CLI runs that do not use the lease)."""
        return not self.check_lease or holds_lease(self.engine, self.holder, self.clock())


@dataclass
class Outcome:
    """How a job ended: ok / failed / skipped / interrupted, a one-line message and details."""

    outcome: str = "ok"
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)


Progress = Callable[[dict[str, Any]], None]
JobFunction = Callable[[JobContext, dict[str, Any], Progress], Outcome]


async def until_stopped(coro: Coroutine[Any, Any, T], stopping: threading.Event) -> T:
    """Await `coro`, cancelling it when `stopping` is set (CancelledError then propagates)."""
    task = asyncio.ensure_future(coro)
    while not task.done():
        await asyncio.wait({task}, timeout=0.2)
        if stopping.is_set() and not task.done():
            task.cancel()
    return await task


__all__ = ["JobContext", "JobFunction", "Outcome", "Progress", "Sleep", "until_stopped"]
