"""Scheduler: APScheduler wiring and the periodic jobs (timing runs, snapshots, backfill, retirement).

`SchedulerService` keeps the one-scheduler lease and runs APScheduler while it holds it; `scheduler.timing`
is the timing runner (`run_timing`), `scheduler.plan` the pure random-times plan, `scheduler.selection` the
no-repeat prompt choice, `scheduler.lease` the lease itself. `arena` imports this package only lazily, from
the CLI and `arena serve`.
"""

from scheduler.plan import day_plan, next_run_after
from scheduler.service import SchedulerService, ensure_jobs, job_specs
from scheduler.timing import TimingReport, run_timing

__all__ = [
    "SchedulerService",
    "TimingReport",
    "day_plan",
    "ensure_jobs",
    "job_specs",
    "next_run_after",
    "run_timing",
]
