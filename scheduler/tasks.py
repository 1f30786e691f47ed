"""The four jobs as functions of (context, params, progress) -> Outcome, each a thin call into `arena` or the
timing runner: timing runs, rating snapshots, generation backfill, monthly prompt retirement.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

from sqlmodel import Session, select

from arena.db.tables import Model
from arena.generation.backfill import plan_jobs, run_backfill
from arena.leaderboard.snapshots import take_snapshot
from arena.media.store import MediaStore
from arena.prompts.open_privacy import enforce_retention
from arena.prompts.open_tags import tag_pending
from scheduler.context import JobContext, JobFunction, Outcome, Progress, until_stopped
from scheduler.timing import run_timing


def timing_job(ctx: JobContext, params: dict[str, Any], progress: Progress) -> Outcome:
    """One timing run over every active text-to-image model (or `params["model"]`)."""
    run_id = str(params.get("run_id", ""))
    report = asyncio.run(
        until_stopped(
            run_timing(
                ctx.engine,
                ctx.settings,
                run_id=run_id,
                model=params.get("model"),
                clock=ctx.clock,
                sleep=ctx.sleep,
                perf_counter=ctx.perf_counter,
                progress=lambda r: progress(r.progress()),
                should_stop=ctx.stopping.is_set,
            ),
            ctx.stopping,
        )
    )
    outcome = "interrupted" if report.stopped else ("ok" if report.planned else "skipped")
    message = report.summary() if report.planned else "no active text-to-image models"
    return Outcome(outcome, message, {"progress": report.progress()})


def open_upkeep(ctx: JobContext) -> dict[str, int]:
    """Open prompts' upkeep on every snapshot: erase those older than ARENA_OPEN_RETENTION_DAYS, then tag up to
    200 untagged ones (use case and capability for the open board's slices)."""
    erased = enforce_retention(
        ctx.engine,
        ctx.settings.open_retention_days,
        media=MediaStore(ctx.settings.media_dir),
        now=ctx.clock(),
    )
    method = "auto" if ctx.settings.freshness_method == "off" else ctx.settings.freshness_method
    tagged = tag_pending(ctx.engine, method=method, limit=200, now=ctx.clock())
    return {"open_erased": erased, "open_tagged": tagged}


def snapshot_job(ctx: JobContext, params: dict[str, Any], progress: Progress) -> Outcome:
    """A rating snapshot of every board (cheap: the fit runs on pair counts), then the open prompts' upkeep."""

    def step(stage: str, done: int, total: int) -> None:
        progress({"stage": stage, "done": done, "total": total})

    report = take_snapshot(
        ctx.engine,
        ctx.settings,
        now=ctx.clock(),
        progress=lambda mod, done, total: step(f"{mod} boards", done, total),
        filter_progress=step,
    )
    details: dict[str, Any] = {
        "boards": report.boards,
        "failures": report.failures,
        "filtered": report.filtered,
    }
    details.update(open_upkeep(ctx))
    if not report.boards:
        reasons = sorted(set(report.failures.values())) or ["no models"]
        return Outcome("skipped", f"no board computed: {'; '.join(reasons)}", details)
    return Outcome("ok", f"{len(report.boards)} board(s) stored", details)


def backfill_job(ctx: JobContext, params: dict[str, Any], progress: Progress) -> Outcome:
    """Generate every missing output (sandbox models without their simulated wait); an operator's retry
    passes `model` and `retry_failed` to plan permanent failures again."""
    with Session(ctx.engine) as session:
        jobs = plan_jobs(
            session,
            ctx.settings.media_dir,
            model=params.get("model") or None,
            retry_failed=bool(params.get("retry_failed")),
        )
        models = {m.slug: m for m in session.exec(select(Model)).all()}
    if not jobs:
        return Outcome("ok", "nothing to generate")
    report = asyncio.run(
        until_stopped(
            run_backfill(ctx.engine, ctx.settings.media_dir, jobs, models, settings=ctx.settings),
            ctx.stopping,
        )
    )
    details = {"planned": report.planned, "generated": report.generated, "failed": report.failed}
    message = (
        f"generated {report.generated}, failed {report.failed}, skipped {report.skipped} of {report.planned}"
    )
    return Outcome("ok", message, details)


def retirement_job(ctx: JobContext, params: dict[str, Any], progress: Progress) -> Outcome:
    """The monthly prompt retirement of `arena.prompts.retirement.run_monthly`, when that module is installed."""
    try:
        module = importlib.import_module("arena.prompts.retirement")
    except ModuleNotFoundError as exc:
        if exc.name != "arena.prompts.retirement":
            raise
        return Outcome("skipped", "skipped: not installed")
    run_monthly = getattr(module, "run_monthly", None)
    if run_monthly is None:
        return Outcome("skipped", "skipped: not installed")
    result = run_monthly(ctx.engine, ctx.settings)
    if isinstance(result, int) and not isinstance(result, bool):
        return Outcome("ok", f"retirement report {result} stored", {"report": result})
    return Outcome("ok", (str(result) if result is not None else "done")[:300])


JOB_FUNCTIONS: dict[str, JobFunction] = {
    "timing_run": timing_job,
    "rating_snapshot": snapshot_job,
    "generation_backfill": backfill_job,
    "prompt_retirement": retirement_job,
}


__all__ = ["JOB_FUNCTIONS", "backfill_job", "retirement_job", "snapshot_job", "timing_job"]
