"""The scheduler process: a lease keeper thread and, while it holds the lease, an APScheduler instance.

Every process that wants to schedule (each `arena serve` worker, or `arena scheduler`) runs a keeper. The
keeper renews the database lease every third of its lifetime; only the holder runs APScheduler, whose jobs
live in the project's database (`apscheduler_jobs`), so a restart or a take-over by a standby finds the same
jobs and next run times. A holder that cannot renew stops its scheduler before the lease can expire, and
every job checks the lease again before it starts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from arena.db import make_engine
from arena.db.tables import utcnow
from arena.ops import job_runs as jobruns
from arena.settings import Settings
from scheduler.context import JobContext, Sleep
from scheduler.jobs import clear_context, dispatch_requests, install_context, run_job
from scheduler.lease import acquire_lease, new_holder_id, release_lease
from scheduler.triggers import RandomDailyTrigger

log = logging.getLogger(__name__)
STORE = "default"


@dataclass(frozen=True)
class JobSpec:
    """A persistent job: its id (the job name), trigger and how late a missed run may still start."""

    id: str
    trigger: BaseTrigger
    misfire_grace_seconds: int


def job_specs(settings: Settings) -> list[JobSpec]:
    """The schedule: timing runs 4x a day at random, frequent snapshots, hourly backfill, monthly retirement."""
    return [
        JobSpec("timing_run", RandomDailyTrigger(), 30 * 60),
        JobSpec("rating_snapshot", IntervalTrigger(minutes=settings.snapshot_interval_minutes), 5 * 60),
        JobSpec("generation_backfill", IntervalTrigger(minutes=settings.backfill_interval_minutes), 30 * 60),
        JobSpec("prompt_retirement", CronTrigger(day=1, hour=4, minute=0, timezone=UTC), 24 * 3600),
    ]


def ensure_jobs(scheduler: BackgroundScheduler, specs: list[JobSpec]) -> dict[str, str]:
    """Make the job store hold exactly `specs`: add missing jobs, reschedule changed triggers, remove others.

    An unchanged job is left alone (its next run time and the timing trigger's salt survive restarts).
    Returns job id -> "added" / "rescheduled" / "kept" / "removed".
    """
    changes: dict[str, str] = {}
    for spec in specs:
        job = scheduler.get_job(spec.id, jobstore=STORE)
        if job is None:
            scheduler.add_job(
                run_job,
                trigger=spec.trigger,
                args=[spec.id],
                id=spec.id,
                name=spec.id,
                jobstore=STORE,
                misfire_grace_time=spec.misfire_grace_seconds,
                coalesce=True,
                max_instances=1,
            )
            changes[spec.id] = "added"
        elif str(job.trigger) != str(spec.trigger) or job.misfire_grace_time != spec.misfire_grace_seconds:
            job.modify(misfire_grace_time=spec.misfire_grace_seconds)
            job.reschedule(spec.trigger)
            changes[spec.id] = "rescheduled"
        else:
            changes[spec.id] = "kept"
    wanted = {spec.id for spec in specs}
    for job in scheduler.get_jobs(jobstore=STORE):
        if job.id not in wanted:
            job.remove()
            changes[job.id] = "removed"
    return changes


class DatabaseJobStore(SQLAlchemyJobStore):
    """APScheduler's SQLAlchemy job store on the service's engine. It does not dispose the engine on shutdown:
    APScheduler shuts stores down before its loop thread ends, and a disposed pool would orphan the connection
    that thread may still hold; the service disposes the engine itself, after the scheduler stopped."""

    def shutdown(self) -> None:
        """Nothing to release: the engine belongs to the service."""


def build_scheduler(engine: Engine, settings: Settings, ctx: JobContext) -> BackgroundScheduler:
    """A paused-on-start APScheduler with the database job store and the operator-request poller."""
    executor_log = logging.getLogger("apscheduler.executors.default")
    if executor_log.level == logging.NOTSET:  # the request poller would log twice every few seconds
        executor_log.setLevel(logging.WARNING)
    scheduler = BackgroundScheduler(
        jobstores={STORE: DatabaseJobStore(engine=engine), "memory": MemoryJobStore()},
        executors={"default": ThreadPoolExecutor(max_workers=6)},
        job_defaults={"coalesce": True, "max_instances": 1},
        timezone=UTC,
    )
    scheduler.start(paused=True)
    ensure_jobs(scheduler, job_specs(settings))
    scheduler.add_job(
        dispatch_requests,
        IntervalTrigger(seconds=settings.scheduler_poll_seconds),
        args=[ctx],
        id="dispatch_requests",
        jobstore="memory",
        replace_existing=True,
    )
    return scheduler


class SchedulerService:
    """Keeps (or waits for) the lease and runs APScheduler while holding it. Use `start()` / `stop()`."""

    def __init__(
        self,
        settings: Settings,
        *,
        engine: Engine | None = None,
        clock: Callable[[], datetime] = utcnow,
        holder: str | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        self.settings = settings
        self._owns_engine = engine is None
        self.engine = engine or make_engine(settings.database_url)
        self.clock = clock
        self.holder = holder or new_holder_id()
        self.ttl = timedelta(seconds=settings.scheduler_lease_seconds)
        self.ctx = JobContext(self.engine, settings, self.holder, clock=clock, sleep=sleep)
        self.scheduler: BackgroundScheduler | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._renewed_at: float | None = None  # time.monotonic() of the last successful renewal

    @property
    def is_leader(self) -> bool:
        """Whether this process runs the scheduler right now."""
        return self.scheduler is not None

    def tick(self) -> bool:
        """One lease round: take or renew the lease, start or stop APScheduler to match; True when leading."""
        try:
            held = acquire_lease(self.engine, self.holder, self.clock(), self.ttl)
        except SQLAlchemyError:
            log.exception("could not reach the database to renew the scheduler lease")
            # Keep leading only while our last renewal is surely still valid.
            margin = self.ttl.total_seconds() * 2 / 3
            held = self._renewed_at is not None and time.monotonic() - self._renewed_at < margin
        else:
            if held:
                self._renewed_at = time.monotonic()
        if held and self.scheduler is None:
            self._lead()
        elif not held and self.scheduler is not None:
            log.warning("lost the scheduler lease: stopping the scheduler in this process")
            self._step_down()
        return self.is_leader

    def _lead(self) -> None:
        self.ctx.stopping.clear()
        interrupted = jobruns.mark_interrupted(self.engine, self.clock())
        if interrupted:
            log.warning("marked %d run(s) of a previous scheduler as interrupted", interrupted)
        install_context(self.ctx)
        try:
            self.scheduler = build_scheduler(self.engine, self.settings, self.ctx)
        except Exception:
            clear_context(self.ctx)
            raise
        self.scheduler.resume()
        log.info("holding the scheduler lease as %s; scheduler started", self.holder)

    def _step_down(self) -> None:
        scheduler, self.scheduler = self.scheduler, None
        self.ctx.stopping.set()
        clear_context(self.ctx)
        if scheduler is not None:
            scheduler.shutdown(wait=True)

    def _keep(self) -> None:
        interval = self.ttl.total_seconds() / 3
        while not self._stop.is_set():
            try:
                self.tick()
            except Exception:  # the keeper must outlive any single failure
                log.exception("scheduler lease round failed")
            self._stop.wait(interval)

    def start(self) -> SchedulerService:
        """Start the keeper thread (it takes the lease when free, or waits as a standby)."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._keep, name="arena-scheduler-lease", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop scheduling (waiting for running jobs, which stop early), release the lease, close the engine."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        was_leader = self.scheduler is not None
        self._step_down()
        if was_leader:
            try:
                release_lease(self.engine, self.holder)
            except SQLAlchemyError:
                log.exception("could not release the scheduler lease (it expires by itself)")
        if self._owns_engine:
            self.engine.dispose()

    def __enter__(self) -> SchedulerService:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


__all__ = ["DatabaseJobStore", "JobSpec", "SchedulerService", "build_scheduler", "ensure_jobs", "job_specs"]
