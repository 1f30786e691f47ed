"""`arena eval arena` (grade the arena's own outputs of text-rendering prompts) and `arena eval calibrate`."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json


def arena_command(
    grader: Annotated[
        str, typer.Option("--grader", help="The automatic grader: ocr_exact_text.")
    ] = "ocr_exact_text",
    model: Annotated[str | None, typer.Option("--model", help="Only this model's outputs.")] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Grade at most this many outputs.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Grade the arena's outputs of text-rendering prompts whose required text is known (the prompt's quoted
    strings) and print text accuracy per model with its rank correlation to the human Text Rendering board."""
    from arena.evals.arena_grades import GRADERS, grade_arena, text_accuracy_view
    from arena.evals.extras import missing_extra

    settings = load_settings()
    if grader not in GRADERS:
        fail(f"--grader must be one of {', '.join(GRADERS)}")
    if lacking := missing_extra([grader]):
        fail(lacking)
    with engine_for(settings) as engine:
        graded = grade_arena(
            engine,
            settings.media_dir,
            grader,
            model=model,
            limit=limit,
            progress=lambda line: typer.echo(line, err=True),
        )
        view = text_accuracy_view(engine)
    if as_json:
        by_model = {
            m: {"passed": a.passed, "n": a.n, "rate": a.rate, "interval": a.interval}
            for m, a in view["by_model"].items()
        }
        print_json({"graded_now": graded, "by_model": by_model, "agreement": view["agreement"]})
        return
    typer.echo(f"graded {graded} output(s) now")
    for slug, text in sorted(view["text"].items()):
        typer.echo(f"  {slug}: text accuracy {text}")
    agree = view["agreement"]
    if agree:
        typer.echo(
            f"rank agreement with the human Text Rendering board over {agree['models']} models: "
            f"Kendall tau {agree['kendall_tau']:.2f}, Spearman rho {agree['spearman_rho']:.2f}"
        )
    else:
        typer.echo("rank agreement: needs a published Text Rendering board with at least 3 graded models")


def calibrate_command(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """The judge re-scores every calibration anchor; the labels feed the drift report at /evals/calibration."""
    import asyncio

    from arena.db import upgrade_database
    from arena.evals.labels import judge_anchors
    from arena.judge import JudgeClient, JudgeConfig, JudgeConfigError

    settings = load_settings()
    with engine_for(settings) as engine:
        upgrade_database(engine)
        judge = JudgeClient(JudgeConfig.from_settings(settings), engine)
        try:
            judge.config.api_key()
        except JudgeConfigError as exc:
            fail(str(exc))

        async def go() -> list[dict]:
            try:
                return await judge_anchors(engine, judge)
            finally:
                await judge.aclose()

        rows = asyncio.run(go())
    if as_json:
        print_json({"anchors": rows})
        return
    if not rows:
        typer.echo("no calibration anchors yet: make one from an item page under /evals")
    for row in rows:
        share = "n/a" if row["agreement"] is None else f"{row['agreement']:.0%}"
        typer.echo(f"{row['anchor']}: agreement with the reference labels {share}")


def register(app: typer.Typer) -> None:
    """Add `arena` and `calibrate` to `arena eval` (in this order, after `run`, `compare`, `pairwise`, `share`)."""
    app.command("arena")(arena_command)
    app.command("calibrate")(calibrate_command)
