"""`arena generate`: fill every missing (active prompt x model) output; `--failures` lists what failed."""

from __future__ import annotations

import errno
from typing import Annotated

import typer

from arena.cli.common import database_session, engine_for, fail, load_settings, print_json


def generate(
    model: Annotated[str | None, typer.Option(help="Only this model (slug).")] = None,
    modality: Annotated[str | None, typer.Option(help="Only text_to_image or image_editing.")] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1, help="At most this many outputs, prompt by prompt (every model on a prompt first)."
        ),
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="Concurrent calls per model.")] = 4,
    retry_failed: Annotated[bool, typer.Option(help="Also retry permanent failures.")] = False,
    failures: Annotated[bool, typer.Option("--failures", help="List recorded failures and exit.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Generate the missing outputs with the methodology's defaults (seed 42, 1:1, one image per prompt)."""
    import asyncio

    from sqlmodel import select

    from arena.cli.progress import progress_bars
    from arena.db.tables import Model, Output
    from arena.generation.backfill import BackfillReport, plan_jobs, run_backfill

    settings = load_settings()
    if failures:
        with database_session(settings) as session:
            rows = session.exec(
                select(Output).where(Output.status == "failed").order_by(Output.model_slug)
            ).all()
        items = [
            {
                "prompt": r.prompt_id,
                "model": r.model_slug,
                "kind": r.error_kind,
                "reason": r.error_message,
                "attempts": r.attempts,
            }
            for r in rows
        ]
        if as_json:
            print_json(items)
        else:
            for i in items:
                typer.echo(f"{i['model']:<24} {i['prompt']:<22} {i['kind']:<16} {i['reason']}")
            typer.echo(f"{len(items)} failure(s)")
        return
    with database_session(settings) as session:
        models = session.exec(select(Model).where(Model.active == True)).all()  # noqa: E712
        if model is not None and model not in {m.slug for m in models}:
            fail(f"unknown or inactive model '{model}'")
        jobs = plan_jobs(
            session,
            settings.media_dir,
            model=model,
            modality=modality,
            limit=limit,
            retry_failed=retry_failed,
        )
    if not jobs:
        typer.echo("nothing to generate: every active prompt has an output for every active model")
        return
    slugs = sorted({j.model_slug for j in jobs})
    by_slug = {m.slug: m for m in models}
    typer.echo(f"generating {len(jobs)} output(s) for {len(slugs)} model(s)", err=True)
    try:
        with engine_for(settings) as engine, progress_bars("outputs", as_json=as_json) as bars:

            def show(done: BackfillReport) -> None:
                bars("generate", done.generated + done.failed + done.skipped, len(jobs))

            report = asyncio.run(
                run_backfill(
                    engine,
                    settings.media_dir,
                    jobs,
                    by_slug,
                    concurrency=concurrency,
                    progress=show,
                    settings=settings,
                )
            )
    except ValueError as exc:
        fail(str(exc))
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        fail(f"no space left on device ({settings.media_dir}); free space and run arena generate again")
    if report.disk_full:
        fail(
            f"{report.disk_full}: stopped after {report.generated} generated, {report.failed} failed "
            f"(recorded; see --failures); free space and run arena generate again to resume"
        )
    if as_json:
        print_json(report.__dict__)
        return
    typer.echo(
        f"generated {report.generated}, failed {report.failed}, skipped {report.skipped} of {report.planned}"
    )
    if report.failed:
        typer.echo("see the reasons with: arena generate --failures")
