"""`arena jobs` (each job's last run, duration, outcome and next run) and `arena scheduler` (run it alone)."""

from __future__ import annotations

import logging
import signal
import threading
from datetime import datetime
from typing import Annotated, Any

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json


def _when(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%SZ")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _progress(progress: dict[str, Any]) -> str:
    """A running job's last progress report in words ("text_to_image boards: 3 of 12 done"), or ""."""
    if progress.get("done") is None or not progress.get("total"):
        return ""
    stage = f"{progress['stage']}: " if progress.get("stage") else ""
    return f"{stage}{progress['done']:,} of {progress['total']:,} done"


app = typer.Typer(
    help="Scheduled jobs: list them (no sub-command), or queue a run.", invoke_without_command=True
)


@app.callback()
def jobs_command(
    ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False
) -> None:
    """List each scheduled job's last run, its duration and outcome, and its next run."""
    if ctx.invoked_subcommand is not None:
        return
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.db.tables import utcnow
    from arena.ops.job_runs import job_overview, lease_status

    settings = load_settings()
    now = utcnow()
    with engine_for(settings) as engine:
        try:
            overview = job_overview(engine)
            lease = lease_status(engine, now)
        except (OperationalError, ProgrammingError):
            fail("the database is not initialised: run `arena init` first")
    if as_json:
        data: dict[str, Any] = {
            "scheduler": None
            if lease is None
            else {"holder": lease.holder, "expires_at": lease.expires_at.isoformat(), "alive": lease.alive},
            "jobs": [j.to_dict() for j in overview],
        }
        print_json(data)
        return
    if lease is not None and lease.alive:
        typer.echo(f"scheduler: running in {lease.holder} (lease until {_when(lease.expires_at)})")
    else:
        typer.echo("scheduler: not running (start `arena serve` or `arena scheduler`)")
    typer.echo(f"{'job':<20} {'last run':<21} {'duration':>9} {'outcome':<11} {'next run':<21} message")
    for job in overview:
        last = job.last
        message = last.message if last else ""
        if last is not None and last.outcome == "running":
            message = _progress(last.details.get("progress") or {}) or message
        line = (
            f"{job.job:<20} {_when(last.started_at if last else None):<21} "
            f"{_duration(last.duration_seconds if last else None):>9} {(last.outcome if last else '-'):<11} "
            f"{_when(job.next_run):<21} {message}"
        )
        typer.echo(line.rstrip() + (f" ({job.queued} queued)" if job.queued else ""))


def scheduler_command() -> None:
    """Run the scheduler alone (no web server) until interrupted; one process holds the lease at a time."""
    from scheduler.service import SchedulerService

    settings = load_settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    service = SchedulerService(settings).start()
    typer.echo(
        f"scheduler process {service.holder}: holding or waiting for the lease; Ctrl-C stops it", err=True
    )
    try:
        done.wait()
    finally:
        service.stop()
        typer.echo("scheduler stopped", err=True)


@app.command("run")
def run_command(
    job: Annotated[
        str, typer.Argument(help="timing_run, rating_snapshot, generation_backfill or prompt_retirement.")
    ],
    model: Annotated[
        str | None, typer.Option(help="timing_run / generation_backfill: only this model.")
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Backfill: retry permanent failures.")
    ] = False,
    actor: Annotated[
        str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")
    ] = None,
) -> None:
    """Queue a run for the scheduler (what the console's Run now and Retry buttons do); prints the run id."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.db.tables import utcnow
    from arena.ops.audit import cli_actor
    from arena.ops.job_queue import QueueError, queue_run

    settings = load_settings()
    with engine_for(settings) as engine:
        try:
            run_id = queue_run(engine, utcnow(), job, cli_actor(actor), model=model, retry=retry_failed)
        except QueueError as exc:
            fail(str(exc))
        except (OperationalError, ProgrammingError):
            fail("the database is not initialised: run `arena init` first")
    typer.echo(f"queued run {run_id} of {job}; follow it with `arena jobs`")
