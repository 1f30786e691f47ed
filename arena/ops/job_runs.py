"""Job-run records: every scheduled, operator-requested or CLI run of a job, its progress and outcome.

The web app and the CLI read and queue runs here; only the scheduler (which holds the lease) executes queued
runs, so a web worker never runs a job itself. The next run time comes from APScheduler's job-store table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, insert, select, update

from arena.db.tables import JobRun, SchedulerJob, SchedulerLease
from arena.runtime.observability import JOB_RUNS

JOBS: dict[str, str] = {
    "timing_run": "Generation-time benchmark: one timed call per active text-to-image model (4 a day at random).",
    "rating_snapshot": "Rating snapshot: every board of every modality from the kept votes.",
    "generation_backfill": "Generation backfill: an output for every (active prompt, active model) pair.",
    "prompt_retirement": "Monthly prompt retirement report.",
}
LEASE_NAME = "scheduler"
FINISHED = ("ok", "failed", "skipped", "interrupted")

_RUNS = JobRun.__table__  # type: ignore[attr-defined]
_JOBS = SchedulerJob.__table__  # type: ignore[attr-defined]
_LEASES = SchedulerLease.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class RunView:
    """One job run as operators see it."""

    id: int
    job: str
    started_at: datetime
    finished_at: datetime | None
    outcome: str
    message: str
    details: dict[str, Any]

    @property
    def duration_seconds(self) -> float | None:
        """Finished minus started, None while queued or running."""
        if self.finished_at is None or self.outcome == "queued":
            return None
        return (self.finished_at - self.started_at).total_seconds()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (times as ISO 8601)."""
        data = asdict(self)
        data["started_at"] = self.started_at.isoformat()
        data["finished_at"] = self.finished_at.isoformat() if self.finished_at else None
        data["duration_seconds"] = self.duration_seconds
        return data


@dataclass(frozen=True)
class JobStatus:
    """A job's last run (if any), its next scheduled run and how many operator requests wait."""

    job: str
    description: str
    last: RunView | None
    next_run: datetime | None
    queued: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "job": self.job,
            "description": self.description,
            "last": self.last.to_dict() if self.last else None,
            "next_run": self.next_run.isoformat() if self.next_run else None,
            "queued": self.queued,
        }


@dataclass(frozen=True)
class LeaseStatus:
    """Who holds the scheduler lease and until when; `alive` when it has not expired at `now`."""

    holder: str
    expires_at: datetime
    alive: bool


def _view(row: Any) -> RunView:
    m = row._mapping
    return RunView(
        id=m["id"],
        job=m["job"],
        started_at=m["started_at"],
        finished_at=m["finished_at"],
        outcome=m["outcome"],
        message=m["message"],
        details=dict(m["details"] or {}),
    )


def start_run(
    engine: Engine, job: str, now: datetime, *, trigger: str, params: dict[str, Any] | None = None
) -> int:
    """Record a run that starts now; returns its id."""
    details = {"trigger": trigger, "params": params or {}}
    with engine.begin() as conn:
        result = conn.execute(
            insert(_RUNS).values(job=job, started_at=now, outcome="running", message="", details=details)
        )
        return int(result.inserted_primary_key[0])


def update_details(engine: Engine, run_id: int, changes: dict[str, Any]) -> None:
    """Merge `changes` into the run's details (progress while it runs)."""
    with engine.begin() as conn:
        current = conn.execute(select(_RUNS.c.details).where(_RUNS.c.id == run_id)).scalar_one()
        conn.execute(update(_RUNS).where(_RUNS.c.id == run_id).values(details={**(current or {}), **changes}))


def finish_run(
    engine: Engine,
    run_id: int,
    now: datetime,
    outcome: str,
    message: str = "",
    details: dict[str, Any] | None = None,
) -> None:
    """Close a run with its outcome (ok, failed, skipped, interrupted), a one-line message and details."""
    if outcome not in FINISHED:
        raise ValueError(f"unknown outcome '{outcome}'")
    if details:
        update_details(engine, run_id, details)
    with engine.begin() as conn:
        conn.execute(
            update(_RUNS)
            .where(_RUNS.c.id == run_id)
            .values(finished_at=now, outcome=outcome, message=message[:2000])
        )
        job = conn.execute(select(_RUNS.c.job).where(_RUNS.c.id == run_id)).scalar_one_or_none()
    JOB_RUNS.labels(job or "unknown", outcome).inc()


def request_run(engine: Engine, job: str, now: datetime, *, actor: str, params: dict[str, Any]) -> int:
    """Queue a run for the scheduler to pick up; returns its id. Unknown jobs are a ValueError."""
    if job not in JOBS:
        raise ValueError(f"unknown job '{job}'; one of {', '.join(JOBS)}")
    details = {"trigger": "operator", "requested_by": actor, "params": params, "queued_at": now.isoformat()}
    with engine.begin() as conn:
        result = conn.execute(
            insert(_RUNS).values(job=job, started_at=now, outcome="queued", message="queued", details=details)
        )
        return int(result.inserted_primary_key[0])


def open_run(engine: Engine, job: str, params: dict[str, Any]) -> RunView | None:
    """The oldest queued or running run of `job` with these params (None when there is none): a second "run
    now" is refused while one is open, so a long job never runs twice at once."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(_RUNS)
            .where(_RUNS.c.job == job, _RUNS.c.outcome.in_(("queued", "running")))
            .order_by(_RUNS.c.id)
        ).all()
    for row in rows:
        if dict((row.details or {}).get("params") or {}) == params:
            return _view(row)
    return None


def claim_queued(engine: Engine, job: str, now: datetime) -> RunView | None:
    """Atomically turn the oldest queued run of `job` into a running one; None when nothing is queued."""
    with engine.begin() as conn:
        oldest = conn.execute(
            select(_RUNS.c.id)
            .where(_RUNS.c.job == job, _RUNS.c.outcome == "queued")
            .order_by(_RUNS.c.id)
            .limit(1)
        ).scalar()
        if oldest is None:
            return None
        claimed = conn.execute(
            update(_RUNS)
            .where(_RUNS.c.id == oldest, _RUNS.c.outcome == "queued")
            .values(outcome="running", started_at=now, message="")
        ).rowcount
        if not claimed:
            return None
        return _view(conn.execute(select(_RUNS).where(_RUNS.c.id == oldest)).one())


def mark_interrupted(engine: Engine, now: datetime) -> int:
    """Close scheduler runs left "running" by a scheduler that died; called by a new lease holder."""
    with engine.begin() as conn:
        rows = conn.execute(select(_RUNS.c.id, _RUNS.c.details).where(_RUNS.c.outcome == "running")).all()
        stale = [r.id for r in rows if (r.details or {}).get("trigger") in ("scheduled", "operator")]
        if stale:
            conn.execute(
                update(_RUNS)
                .where(_RUNS.c.id.in_(stale))
                .values(
                    outcome="interrupted",
                    finished_at=now,
                    message="the scheduler running it stopped before it finished",
                )
            )
    return len(stale)


def get_run(engine: Engine, run_id: int) -> RunView | None:
    """One run by id."""
    with engine.connect() as conn:
        row = conn.execute(select(_RUNS).where(_RUNS.c.id == run_id)).first()
    return _view(row) if row is not None else None


def recent_runs(engine: Engine, *, limit: int = 20) -> list[RunView]:
    """The latest runs of every job, newest first."""
    with engine.connect() as conn:
        rows = conn.execute(select(_RUNS).order_by(_RUNS.c.id.desc()).limit(limit)).all()
    return [_view(r) for r in rows]


def next_run_times(engine: Engine) -> dict[str, datetime | None]:
    """Job id -> next run time from APScheduler's job store (None for a paused job)."""
    with engine.connect() as conn:
        rows = conn.execute(select(_JOBS.c.id, _JOBS.c.next_run_time)).all()
    return {r.id: (datetime.fromtimestamp(r.next_run_time, UTC) if r.next_run_time else None) for r in rows}


def job_overview(engine: Engine) -> list[JobStatus]:
    """Each known job's last run (queued requests aside), next scheduled run and queued request count."""
    upcoming = next_run_times(engine)
    with engine.connect() as conn:
        latest = dict(
            conn.execute(
                select(_RUNS.c.job, func.max(_RUNS.c.id))
                .where(_RUNS.c.outcome != "queued")
                .group_by(_RUNS.c.job)
            ).all()
        )
        queued = dict(
            conn.execute(
                select(_RUNS.c.job, func.count()).where(_RUNS.c.outcome == "queued").group_by(_RUNS.c.job)
            ).all()
        )
        ids = [i for i in latest.values() if i is not None]
        rows = conn.execute(select(_RUNS).where(_RUNS.c.id.in_(ids))).all() if ids else []
    last = {r.job: _view(r) for r in rows}
    return [
        JobStatus(job, description, last.get(job), upcoming.get(job), int(queued.get(job, 0)))
        for job, description in JOBS.items()
    ]


def lease_status(engine: Engine, now: datetime) -> LeaseStatus | None:
    """The scheduler lease, or None when no scheduler ever held it (or the last one released it)."""
    with engine.connect() as conn:
        row = conn.execute(
            select(_LEASES.c.holder, _LEASES.c.expires_at).where(_LEASES.c.name == LEASE_NAME)
        ).first()
    if row is None:
        return None
    return LeaseStatus(row.holder, row.expires_at, row.expires_at > now)


__all__ = [
    "FINISHED",
    "JOBS",
    "LEASE_NAME",
    "JobStatus",
    "LeaseStatus",
    "RunView",
    "claim_queued",
    "finish_run",
    "get_run",
    "job_overview",
    "lease_status",
    "mark_interrupted",
    "next_run_times",
    "recent_runs",
    "request_run",
    "start_run",
    "update_details",
]
