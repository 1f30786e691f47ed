"""Running jobs: each run recorded in `job_runs`, one run per job at a time, operator requests picked up.

APScheduler stores jobs by the text reference `scheduler.jobs:run_job` with the job name as the only
argument (nothing unpicklable goes into the job store); the engine, settings and clock come from the
`JobContext` of the process that currently holds the scheduler lease.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import traceback
from typing import Any

from arena.ops import job_runs as jobruns
from scheduler.context import JobContext, Outcome, until_stopped
from scheduler.tasks import JOB_FUNCTIONS, retirement_job

log = logging.getLogger(__name__)
SCHEDULED_LOCK_WAIT = 1800.0  # a scheduled run waits this long for an operator run of the same job to end


def execute_locked(ctx: JobContext, name: str, run_id: int, params: dict[str, Any]) -> Outcome:
    """Run job `name` (its lock already held) as job run `run_id`, recording progress and the outcome."""
    function = JOB_FUNCTIONS[name]

    def progress(details: dict[str, Any]) -> None:
        jobruns.update_details(ctx.engine, run_id, {"progress": details})
        if ctx.on_progress is not None:
            ctx.on_progress(name, details)

    log.info("job %s (run %s) started", name, run_id)
    try:
        outcome = function(ctx, {**params, "run_id": str(run_id)}, progress)
    except asyncio.CancelledError:
        outcome = Outcome("interrupted", "stopped with the scheduler")
    except Exception as exc:
        log.exception("job %s (run %s) failed", name, run_id)
        tail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        outcome = Outcome("failed", tail, {"traceback": traceback.format_exc()[-4000:]})
    jobruns.finish_run(ctx.engine, run_id, ctx.clock(), outcome.outcome, outcome.message, outcome.details)
    log.info("job %s (run %s) %s: %s", name, run_id, outcome.outcome, outcome.message)
    return outcome


def execute(
    ctx: JobContext, name: str, *, trigger: str, params: dict[str, Any] | None = None, wait: float = 0.0
) -> tuple[int, Outcome]:
    """Record and run job `name` now; a run of the same job still going makes this one "skipped"."""
    params = params or {}
    run_id = jobruns.start_run(ctx.engine, name, ctx.clock(), trigger=trigger, params=params)
    lock = ctx.locks[name]
    acquired = lock.acquire(timeout=wait) if wait > 0 else lock.acquire(blocking=False)
    if not acquired:
        outcome = Outcome("skipped", "another run of this job was still going")
        jobruns.finish_run(ctx.engine, run_id, ctx.clock(), outcome.outcome, outcome.message)
        return run_id, outcome
    try:
        return run_id, execute_locked(ctx, name, run_id, params)
    finally:
        lock.release()


_leader_lock = threading.Lock()
_leader: JobContext | None = None


def install_context(ctx: JobContext) -> None:
    """Make `ctx` the context scheduled jobs of this process run with (the lease holder's)."""
    global _leader
    with _leader_lock:
        _leader = ctx


def clear_context(ctx: JobContext) -> None:
    """Forget `ctx` if it is the installed one."""
    global _leader
    with _leader_lock:
        if _leader is ctx:
            _leader = None


def current_context() -> JobContext | None:
    """The installed context, if this process holds the lease."""
    return _leader


def run_job(name: str) -> None:
    """APScheduler's entry point for a scheduled run; does nothing unless this process holds the lease."""
    ctx = current_context()
    if ctx is None or not ctx.holds_lease():
        log.warning("scheduled job %s not run: this process does not hold the scheduler lease", name)
        return
    execute(ctx, name, trigger="scheduled", wait=SCHEDULED_LOCK_WAIT)


def dispatch_requests(ctx: JobContext | None = None) -> int:
    """Run the runs operators queued (oldest first, one job at a time); returns how many ran."""
    ctx = ctx or current_context()
    if ctx is None or not ctx.holds_lease():
        return 0
    ran = 0
    for name in jobruns.JOBS:
        while not ctx.stopping.is_set():
            lock = ctx.locks[name]
            if not lock.acquire(blocking=False):
                break  # a run of this job is going: its requests wait for the next poll
            try:
                claimed = jobruns.claim_queued(ctx.engine, name, ctx.clock())
                if claimed is None:
                    break
                execute_locked(ctx, name, claimed.id, dict(claimed.details.get("params") or {}))
                ran += 1
            finally:
                lock.release()
    return ran


__all__ = [
    "JOB_FUNCTIONS",
    "JobContext",
    "Outcome",
    "clear_context",
    "current_context",
    "dispatch_requests",
    "execute",
    "execute_locked",
    "install_context",
    "retirement_job",
    "run_job",
    "until_stopped",
]
