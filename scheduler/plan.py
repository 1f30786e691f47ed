"""When timing runs happen: one uniformly random moment in each quarter of the UTC day, drawn anew daily.

Pure functions of (day, salt). The draw is random to the providers (the salt is a secret kept in the job
store) but reproducible for the scheduler: a restarted scheduler finds the same plan, so a quarter's run is
neither repeated nor skipped because of the restart.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, time, timedelta

RUNS_PER_DAY = 4
DAY = timedelta(days=1)


def day_plan(day: date, salt: str, *, runs: int = RUNS_PER_DAY) -> list[datetime]:
    """The `runs` moments of `day` (UTC): slot i is [i/runs, (i+1)/runs) of the day, one uniform second each."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    rng = random.Random(f"timing-plan:{salt}:{day.isoformat()}")
    midnight = datetime.combine(day, time(0), tzinfo=UTC)
    slot_seconds = int(DAY.total_seconds()) // runs
    return [midnight + timedelta(seconds=i * slot_seconds + rng.randrange(slot_seconds)) for i in range(runs)]


def next_run_after(
    moment: datetime, salt: str, *, runs: int = RUNS_PER_DAY, inclusive: bool = False
) -> datetime:
    """The first planned moment after `moment` (or at it, when `inclusive`)."""
    moment = moment.astimezone(UTC)
    day = moment.date()
    for offset in range(3):
        for planned in day_plan(day + timedelta(days=offset), salt, runs=runs):
            if planned > moment or (inclusive and planned == moment):
                return planned
    raise AssertionError("unreachable: every day has planned runs")


def quarter_of(moment: datetime, *, runs: int = RUNS_PER_DAY) -> int:
    """Which slot of its UTC day `moment` falls in (0 to runs - 1)."""
    moment = moment.astimezone(UTC)
    seconds = moment.hour * 3600 + moment.minute * 60 + moment.second
    return min(runs - 1, seconds // (int(DAY.total_seconds()) // runs))


__all__ = ["RUNS_PER_DAY", "day_plan", "next_run_after", "quarter_of"]
