"""`arena latency run|report`: time one generation per model now; print the 14-day generation-time statistics."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json

if TYPE_CHECKING:
    from sqlalchemy import Engine

app = typer.Typer(help="Generation-time benchmarks: timing runs and their statistics.", no_args_is_help=True)


@contextmanager
def _database() -> Iterator[Engine]:
    """The engine of an initialised database; a missing schema or database becomes a one-line error."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    settings = load_settings()
    with engine_for(settings) as engine:
        try:
            yield engine
        except (OperationalError, ProgrammingError) as exc:
            if "no such table" in str(exc) or "does not exist" in str(exc):
                fail("the database is not initialised: run `arena init` first")
            fail(f"database error ({exc.orig.__class__.__name__}): check ARENA_DATABASE_URL")


def _progress_printer() -> Callable[[str, dict[str, Any]], None]:
    """A progress callback printing one stderr line per model as the run goes."""
    shown: set[str] = set()

    def show(_job: str, progress: dict[str, Any]) -> None:
        done, total = progress.get("done", 0), progress.get("total", 0)
        for sample in progress.get("samples") or []:
            if sample["model"] not in shown:
                shown.add(sample["model"])
                if sample["status"] == "ok":
                    what = f"ok {sample['seconds']:.2f} s"
                else:
                    what = f"failed ({sample['error_kind']})"
                print(f"  [{done}/{total}] {sample['model']}: {what}", file=sys.stderr)
        for slug, reason in (progress.get("skipped") or {}).items():
            if slug not in shown:
                shown.add(slug)
                print(f"  [{done}/{total}] {slug}: skipped ({reason})", file=sys.stderr)

    return show


@app.command("run")
def run(
    model: Annotated[
        str | None, typer.Option(help="Only this model (slug); default every active model.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Time one generation per active text-to-image model now (or only --model) and store the samples."""
    from scheduler.jobs import JobContext, execute
    from scheduler.timing import timing_models

    settings = load_settings()
    with _database() as engine:
        try:
            planned = timing_models(engine, model)
        except ValueError as exc:
            fail(str(exc))
        if not planned:
            fail("no active text-to-image models to time (check the models file and `arena init`)")
        typer.echo(f"timing {len(planned)} model(s), one call each", err=True)
        ctx = JobContext(engine, settings, holder="cli", check_lease=False, on_progress=_progress_printer())
        params = {"model": model} if model else {}
        run_id, outcome = execute(ctx, "timing_run", trigger="cli", params=params)
    if as_json:
        print_json({"run": run_id, "outcome": outcome.outcome, "message": outcome.message, **outcome.details})
    else:
        typer.echo(f"run {run_id}: {outcome.outcome}: {outcome.message}")
        for slug, reason in sorted((outcome.details.get("progress", {}).get("skipped") or {}).items()):
            typer.echo(f"  skipped {slug}: {reason}")
    if outcome.outcome == "failed":
        raise typer.Exit(1)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


@app.command("report")
def report(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Median, p05, p25, p75, p95, sample count and failure rate per model over the last 14 days."""
    from sqlalchemy import select

    from arena.db.tables import Model, utcnow
    from arena.leaderboard.latency import WINDOW, latency_stats

    with _database() as engine:
        stats = latency_stats(engine, utcnow())
        with engine.connect() as conn:
            active = conn.execute(
                select(Model.slug).where(Model.active.is_(True), Model.modality == "text_to_image")  # type: ignore[attr-defined]
            ).scalars()
            slugs = sorted(set(stats) | set(active))
    rows = [stats[s].to_dict() if s in stats else {"model": s, "samples": 0, "failures": 0} for s in slugs]
    if as_json:
        print_json({"window_days": WINDOW.days, "models": rows})
        return
    typer.echo(
        f"generation time over the last {WINDOW.days} days (seconds; failures excluded from the times)"
    )
    typer.echo(
        f"{'model':<28} {'median':>7} {'p05':>7} {'p25':>7} {'p75':>7} {'p95':>7} {'n':>4} {'fail':>6}"
    )
    for slug in slugs:
        s = stats.get(slug)
        if s is None:
            typer.echo(f"{slug:<28} {'no samples yet':>39}")
            continue
        cells = " ".join(f"{_seconds(v):>7}" for v in (s.median, s.p05, s.p25, s.p75, s.p95))
        typer.echo(f"{slug:<28} {cells} {s.samples:>4} {s.failure_rate:>6.1%}")
