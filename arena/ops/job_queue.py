"""Queue a job run on an operator's behalf (console button, JSON route or `arena jobs run`), validated and
audited; the process holding the scheduler lease executes it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select
from sqlmodel import Session

from arena.db.tables import Model
from arena.ops import audit
from arena.ops import job_runs as jobruns


class QueueError(ValueError):
    """A run that cannot be queued; `status` is the HTTP status the web layer answers with."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class RunBusy(QueueError):
    """The same run is already queued or running: nothing was queued (answered with 409)."""

    def __init__(self, run: jobruns.RunView) -> None:
        progress = run.details.get("progress") or {}
        done = (
            f", {progress['done']} of {progress['total']} done" if {"done", "total"} <= set(progress) else ""
        )
        since = run.started_at.strftime("%d %b %Y, %H:%M UTC").lstrip("0")
        super().__init__(
            f"{run.job} is already {run.outcome} since {since} (run #{run.id}{done}); not started again", 409
        )
        self.run = run


def timing_slugs(engine: Engine) -> list[str]:
    """Active text-to-image models: what a timing run may be asked to time."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(Model.slug)
                .where(Model.active == True, Model.modality == "text_to_image")  # noqa: E712
                .order_by(Model.slug)
            ).scalars()
        )


def queue_run(engine: Engine, now: datetime, job: str, actor: str, *, model: str | None, retry: bool) -> int:
    """Validate, queue and audit one run: a timing run for one model or all, a backfill for one model or all
    (with `retry`, permanent failures are planned again). Returns the run id."""
    if job not in jobruns.JOBS:
        raise QueueError(f"unknown job '{job}'", 404)
    params: dict[str, Any] = {}
    if job == "timing_run" and model:
        if model not in timing_slugs(engine):
            raise QueueError(f"'{model}' is not an active text-to-image model", 422)
        params["model"] = model
    if job == "generation_backfill":
        if model:
            with engine.connect() as conn:
                if conn.execute(select(Model.slug).where(Model.slug == model)).first() is None:
                    raise QueueError(f"unknown model '{model}'", 422)
            params["model"] = model
        if retry:
            params["retry_failed"] = True
    busy = jobruns.open_run(engine, job, params)
    if busy is not None:
        raise RunBusy(busy)
    run_id = jobruns.request_run(engine, job, now, actor=actor, params=params)
    with Session(engine) as session:
        audit.record(session, actor=actor, action="jobs.queue", target=job, after={"run": run_id, **params})
        session.commit()
    return run_id
