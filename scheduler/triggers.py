"""The APScheduler trigger for timing runs: the plan of `scheduler.plan` as a picklable trigger.

It is stored in the job store with its salt, so a restarted scheduler keeps the same day plans.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from apscheduler.triggers.base import BaseTrigger

from scheduler.plan import RUNS_PER_DAY, next_run_after


class RandomDailyTrigger(BaseTrigger):
    """Fires at one uniformly random moment in each of `runs` equal slots of every UTC day."""

    def __init__(self, salt: str | None = None, runs: int = RUNS_PER_DAY) -> None:
        self.salt = salt or secrets.token_hex(16)
        self.runs = runs

    def get_next_fire_time(self, previous_fire_time: datetime | None, now: datetime) -> datetime | None:
        """The first planned moment after the previous fire time; on a fresh schedule, the first at or after now."""
        if previous_fire_time is not None:
            return next_run_after(previous_fire_time, self.salt, runs=self.runs)
        return next_run_after(now, self.salt, runs=self.runs, inclusive=True)

    def __getstate__(self) -> dict[str, Any]:
        return {"version": 1, "salt": self.salt, "runs": self.runs}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.salt = state["salt"]
        self.runs = state["runs"]

    def __str__(self) -> str:
        # The salt stays out: ensure_jobs compares str(trigger) to decide whether a schedule changed.
        return f"random[{self.runs}/day]"

    def __repr__(self) -> str:
        return f"<RandomDailyTrigger (runs={self.runs})>"


__all__ = ["RandomDailyTrigger"]
