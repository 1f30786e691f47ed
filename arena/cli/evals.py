"""`arena eval run|compare|arena`: run a suite and write its reports, compare two runs, grade arena outputs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from arena.cli import eval_arena, eval_pairwise
from arena.cli.common import engine_for, fail, load_settings, print_json
from arena.cli.eval_cost import DryRun, MaxCost, NoCache, check_budget

EXIT_REGRESSED = 1
EXIT_OUTAGE = 3

app = typer.Typer(help="The eval harness: suites of cases graded automatically.", no_args_is_help=True)


@app.command("run")
def run_command(
    suite: Annotated[Path, typer.Argument(help="The suite file (TOML).")],
    models: Annotated[
        str,
        typer.Option(
            "--models",
            help="Comma-separated suite run labels or registry slugs to run (default: the suite's [[models]]).",
        ),
    ] = "",
    tag: Annotated[
        str | None,
        typer.Option("--tag", help="Run every active registry model with this tag (models.toml tags)."),
    ] = None,
    modality: Annotated[
        str | None,
        typer.Option(
            "--modality", help="Run every active registry model of this modality (the suite's cases')."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run folder (default var/evals/<run id>).")
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, max=64, help="Items generated and graded at once.")
    ] = 4,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the run in --out: finished items are skipped.")
    ] = False,
    no_judge: Annotated[
        bool, typer.Option("--no-judge", help="Leave out rubric (LLM judge) graders: offline graders only.")
    ] = False,
    images: Annotated[
        Path | None,
        typer.Option("--images", help="Folder of images to grade: <case>.png or <model run>/<case>.png."),
    ] = None,
    manifest: Annotated[
        Path | None,
        typer.Option(
            "--manifest", help='JSON lines {"case", "image", "model"?, "sample"?} of images to grade.'
        ),
    ] = None,
    judge_samples: Annotated[
        int,
        typer.Option(
            "--judge-samples",
            min=1,
            max=15,
            help="Ask each judge question K times: median score, majority pass (a tie fails). Use an odd K.",
        ),
    ] = 1,
    no_cache: NoCache = False,
    max_cost: MaxCost = None,
    dry_run: DryRun = False,
    judge_concurrency: Annotated[
        int,
        typer.Option(
            "--judge-concurrency",
            min=1,
            max=32,
            help="Judge calls of one case in flight at once (1: in turn).",
        ),
    ] = 4,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Run a suite: generate, grade, store; write report.html, junit.xml, results.jsonl and summary.json.
    Exit code 1 when a gate's pass rate is below its min_pass_rate, 2 for bad input, 3 when a grader was
    skipped (--no-judge) or unscored checks leave a pass rate below its minimum."""
    import asyncio

    from arena.cli.progress import progress_bars
    from arena.db import upgrade_database
    from arena.evals.graders import GraderPluginError, get_grader
    from arena.evals.report import render_html, write_junit
    from arena.evals.runner import RunConfig, SuiteRunner
    from arena.evals.store import load_run
    from arena.evals.suite import SuiteError, load_suite
    from arena.generation.registry import RegistryError, load_registry
    from arena.judge import JudgeClient, JudgeConfig, JudgeConfigError

    settings = load_settings()
    if resume and out is None:
        fail("--resume needs --out DIR (the folder of the run to continue)")
    try:
        registry = {e.slug: e for e in load_registry(settings.models_file)}
    except RegistryError as exc:
        fail(str(exc))
    try:
        loaded = load_suite(
            suite,
            {slug: e.modality for slug, e in registry.items()},
            adapters={slug: e.adapter for slug, e in registry.items()},
        )
    except GraderPluginError as exc:
        fail(str(exc))
    except SuiteError as exc:
        if len(exc.problems) == 1:
            fail(f"{exc.problems[0]} (invalid suite; nothing was run)")
        for problem in exc.problems:
            typer.echo(problem, err=True)
        fail(f"invalid suite ({len(exc.problems)} problems); nothing was run")
    from arena.evals.extras import missing_extra

    if lacking := missing_extra(g.name for g in loaded.graders):
        fail(f"{lacking}; nothing was run")
    # --no-judge does not drop the judge's checks: they are recorded as skipped, so no item reads as passed.
    judged = [g.name for g in loaded.graders if get_grader(g.name).needs_judge]
    skipped = dict.fromkeys(judged, "--no-judge: the LLM judge did not run") if no_judge else {}
    from arena.evals.selection import Selection, SelectionError, select_runs

    chosen = Selection.parse(models, tag, modality)
    try:  # the runs to run: the suite's, or registry models by slug / tag / modality (arena.evals.selection)
        loaded = replace(loaded, runs=select_runs(loaded, registry, chosen))
    except SelectionError as exc:
        from arena.evals.given_runs import given_labels, given_runs

        labels = given_labels(images, manifest)
        if chosen or not labels or loaded.runs or len({c.modality for c in loaded.cases}) != 1:
            fail(str(exc))
        # grading your own images needs no model: one run per label the images give (arena.evals.given_runs)
        runs, entries = given_runs(labels, loaded.cases[0].modality)
        registry = {**registry, **entries}
        loaded = replace(loaded, runs=runs)
    known = {r.label for r in loaded.runs} | {r.model for r in loaded.runs}
    from arena.evals.sources import GivenImages, SourceError, read_folder, read_manifest

    given = GivenImages()
    try:
        case_ids = {c.id for c in loaded.cases}
        if images is not None:
            read_folder(images, case_ids, known, given)
        if manifest is not None:  # added last: a manifest line wins over a folder file
            read_manifest(manifest, case_ids, known, given)
    except SourceError as exc:
        for problem in exc.problems[:-1]:
            typer.echo(problem, err=True)
        fail(f"{exc.problems[-1]} (nothing was run)")
    with engine_for(settings) as engine, progress_bars("items", as_json=as_json) as bars:
        upgrade_database(engine)
        judge = None
        if any(name not in skipped for name in judged):
            judge = JudgeClient(JudgeConfig.from_settings(settings), engine)
            try:
                if not dry_run:  # an estimate calls no judge, so it needs no key
                    judge.config.api_key()
            except JudgeConfigError as exc:
                fail(str(exc))
        from arena.evals.runner import new_run_id

        folder = out or Path("var") / "evals" / new_run_id(loaded)
        try:
            runner = SuiteRunner(
                loaded,
                engine,
                registry,
                RunConfig(
                    folder,
                    concurrency,
                    resume,
                    (),
                    given=given,
                    media_dir=settings.media_dir,
                    skipped=skipped,
                    judge_samples=judge_samples,
                    use_cache=not no_cache,
                    judge_prices=(
                        settings.judge_price_input_per_mtok_usd,
                        settings.judge_price_output_per_mtok_usd,
                    ),
                    judge_concurrency=judge_concurrency,
                    on_item=lambda done, total: bars("eval", done, total),
                ),
                judge,
            )
        except ValueError as exc:
            fail(str(exc))
        check_budget(runner, engine, folder, resume, max_cost, dry_run, as_json)
        try:
            run_id = runner.prepare()
        except FileExistsError as exc:
            fail(str(exc))

        async def go() -> tuple[dict, int]:
            try:
                return await runner.run()
            finally:
                if judge is not None:
                    await judge.aclose()

        summary, code = asyncio.run(go())
        stored = load_run(engine, run_id)
        assert stored is not None
        render_html(stored[0], stored[1], folder)
        write_junit(stored[0], stored[1], folder / "junit.xml")
    if as_json:
        print_json({"run_id": run_id, "out": str(folder), "exit_code": code, **summary})
    else:
        for label, s in summary["runs"].items():
            v = s["verdicts"]
            typer.echo(
                f"{label}: {v['pass']}/{s['items']} pass, {v['fail']} fail, {v.get('unscored', 0)} unscored"
                + (
                    f", {v.get('xfail', 0)} xfail, {v.get('xpass', 0)} xpass"
                    if v.get("xfail") or v.get("xpass")
                    else ""
                )
            )
            for key, g in s["gates"].items():
                mark = "ok" if g["ok"] else "BELOW"
                typer.echo(
                    f"  {key}: {g['passed']}/{g['total']} ({g['rate']:.0%}, minimum {g['min_pass_rate']:.0%}) {mark}"
                )
        for line in summary["skipped_graders"]:
            typer.echo(f"SKIPPED {line}: its checks are unscored, so no item passed (exit 3)")
        for line in summary["incomplete"]:
            typer.echo(f"INCOMPLETE {line}")
        for line in summary.get("xpassed", []):
            typer.echo(f"XPASS {line}: remove its xfail mark")
        from arena.evals.cost import cost_line

        typer.echo(cost_line(summary["cost"]))
        typer.echo(f"run {run_id}: {folder}/report.html, {folder}/junit.xml")
    raise typer.Exit(code)


@app.command("compare")
def compare_command(
    run_a: Annotated[str, typer.Argument(help="Run id or run folder (the baseline).")],
    run_b: Annotated[str, typer.Argument(help="Run id or run folder (the candidate).")],
    label_a: Annotated[str | None, typer.Option("--label-a", help="Model run (or sweep point) of A.")] = None,
    label_b: Annotated[str | None, typer.Option("--label-b", help="Model run (or sweep point) of B.")] = None,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression", help="Exit 1 when a metric regressed, 3 when an outage left items out."
        ),
    ] = False,
    tolerance: Annotated[
        list[str] | None,
        typer.Option(
            "--tolerance",
            help="KEY=VALUE, repeatable: a metric key (ocr_cer=0.02) or a kind (gate=0.1, graded=0.5, info=0.01).",
        ),
    ] = None,
    alpha: Annotated[
        float, typer.Option("--alpha", min=0.0001, max=0.5, help="Significance of the paired sign-flip test.")
    ] = 0.05,
    markdown_out: Annotated[
        Path | None, typer.Option("--markdown", help="Write a markdown summary (a PR comment) to this file.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Per case and per metric changes from A to B, regressions first. With --fail-on-regression: exit 1 when a
    metric regressed (arena.evals.regressions states the rule), 3 when only an outage was found, else 0."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.evals.compare import compare
    from arena.evals.store import load_run

    settings = load_settings()
    with engine_for(settings) as engine:
        runs = []
        for ref in (run_a, run_b):
            try:
                loaded = load_run(engine, eval_pairwise.run_id_of(ref))
            except (OperationalError, ProgrammingError):
                fail("the database has no eval tables: run `arena init` or `arena eval run` first")
            if loaded is None:
                fail(f"no eval run '{ref}' in the database")
            runs.append(loaded)
    from arena.evals.regressions import check, markdown

    tolerances: dict[str, float] = {}
    for item in tolerance or []:
        key, _, value = item.partition("=")
        try:
            tolerances[key.strip()] = float(value)
        except ValueError:
            fail(f"--tolerance {item}: expected KEY=NUMBER (a metric key or gate / graded / info)")
    try:
        result = compare(runs[0][1], runs[1][1], label_a, label_b)
    except ValueError as exc:
        fail(str(exc))
    checked = check(runs[0][1], runs[1][1], [tuple(p) for p in result["pairs"]], tolerances, alpha)
    code = 0
    if fail_on_regression:
        code = EXIT_REGRESSED if checked["regressed"] else EXIT_OUTAGE if checked["outages"] else 0
    if markdown_out is not None:
        markdown_out.write_text(markdown(result, checked, f"Eval comparison: {run_a} -> {run_b}"))
    if as_json:
        print_json({**result, "check": checked, "exit_code": code})
        raise typer.Exit(code)
    typer.echo(
        f"{result['regressions']} regressions, {result['improvements']} improvements, {result['unchanged']} unchanged"
    )
    for c in result["changes"]:
        sign = "REGRESSED" if c["delta"] < 0 else "improved "
        typer.echo(
            f"{sign} {c['case_id']}#{c['sample']} {c['key']}: {c['a']} -> {c['b']}  ({c['label_a']} -> {c['label_b']})"
        )
    for name, ids in (("only in A", result["only_in_a"]), ("only in B", result["only_in_b"])):
        if ids:
            typer.echo(f"{name}: {', '.join(ids)}")
    for m in checked["regressed"]:
        rule = f"{m['flips']} pass -> fail" if m["kind"] == "gate" else f"p = {m['p_value']:.3g}"
        typer.echo(
            f"METRIC REGRESSED {m['label_a']} -> {m['label_b']} {m['key']}: {m['mean_a']:.3g} -> {m['mean_b']:.3g} "
            f"(n {m['n']}, tolerance {m['tolerance']:g}, {rule})"
        )
    for line in checked["outages"]:
        typer.echo(f"OUTAGE {line}")
    raise typer.Exit(code)


eval_pairwise.register(app)  # after run and compare, so `arena eval --help` lists them first
eval_arena.register(app)
