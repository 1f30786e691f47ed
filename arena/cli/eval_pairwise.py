"""`arena eval pairwise`: the LLM judge compares two model runs' outputs case by case, in both orders, and
reports win rates with intervals, position consistency and a Bradley-Terry fit (arena.evals.pairwise)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json


def _run_id(ref: str) -> str:
    """A run id, or a run folder holding run.json."""
    path = Path(ref)
    if (path / "run.json").is_file():
        return json.loads((path / "run.json").read_text())["run_id"]
    return ref


def _pct(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{100 * x:.0f}%"


def _echo(report: dict[str, Any], out: Path) -> None:
    typer.echo(
        f"{report['judged']} pairs judged in both orders by {report['judge_model']}, {report['unscored']} unscored, "
        f"{len(report['unpaired'])} without a partner; position-consistent {_pct(report['position_consistency'])}"
    )
    for r in report["pairs_by_label"]:
        low, high = r["wilson_95"] or (None, None)
        typer.echo(
            f"  {r['a']} vs {r['b']}: {r['wins']}-{r['losses']}-{r['ties']} (W-L-T), win rate {_pct(r['win_rate'])} "
            f"[Wilson 95% {_pct(low)}-{_pct(high)}], position-consistent {_pct(r['position_consistency'])}"
        )
    for r in report["bradley_terry"]["rows"]:
        typer.echo(f"  BT {r['label']}: {r['rating']:.0f} [{r['ci_low']:.0f}, {r['ci_high']:.0f}]")
    for r in (report.get("humans") or {}).get("pairs_by_label", []):
        typer.echo(
            f"  humans {r['a']} vs {r['b']}: {r['wins']}-{r['losses']}-{r['ties']}, win rate {_pct(r['win_rate'])}"
        )
    typer.echo(f"wrote {out / 'pairwise.json'} and {out / 'pairwise.md'}")


def pairwise_command(
    run: Annotated[str, typer.Argument(help="Eval run id or run folder.")],
    run2: Annotated[
        str | None, typer.Argument(help="A second eval run: compare the same model run across the two.")
    ] = None,
    label_a: Annotated[str | None, typer.Option("--a", help="Model run of A (of RUN).")] = None,
    label_b: Annotated[str | None, typer.Option("--b", help="Model run of B (of RUN2 when given).")] = None,
    judge: Annotated[
        str | None, typer.Option("--judge", help="Judge model name (default ARENA_JUDGE_MODEL).")
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, max=32, help="Pairs judged at once.")
    ] = 4,
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder for pairwise.json / .md (default RUN's).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Judge each case's two outputs in both orders (A wins only when both answers say so, else a tie); report
    wins / losses / ties, win rate with 95% intervals, position consistency and a Bradley-Terry fit."""
    import asyncio

    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.evals.pairwise import PairwiseError, build_report, collect_pairs, judge_pairs, run_sides
    from arena.evals.pairwise_stats import render_markdown
    from arena.judge.client import JudgeClient, JudgeConfig, JudgeConfigError
    from arena.judge.pairwise import closing
    from arena.judge.scenario_rubrics import RubricError, load_rubrics

    settings = load_settings()
    ids = [_run_id(r) for r in (run, run2) if r]
    config = JudgeConfig.from_settings(settings)
    if judge:
        config = JudgeConfig(**{**config.__dict__, "model": judge})
    try:
        config.api_key()
        rubrics = load_rubrics()
    except (JudgeConfigError, RubricError) as exc:
        fail(str(exc))
    with engine_for(settings) as engine:
        try:
            sides = run_sides(engine, ids)
            items, unpaired = collect_pairs(sides, label_a, label_b)
        except (OperationalError, ProgrammingError):
            fail("the database has no eval tables: run `arena init` or `arena eval run` first")
        except PairwiseError as exc:
            fail(str(exc))
        if not items:
            fail("no case has an output from both sides: nothing to compare")
        client = JudgeClient(config, engine)
        outcomes = asyncio.run(
            closing(client, judge_pairs(client, rubrics, items, concurrency=concurrency, progress=_progress))
        )
        report = build_report(outcomes, unpaired, ids, config.model)
    folder = out or sides[0].out_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pairwise.json").write_text(json.dumps(report, indent=2, default=str))
    (folder / "pairwise.md").write_text(render_markdown(report))
    if as_json:
        print_json(report)
        return
    _echo(report, folder)


def _progress(line: str) -> None:
    print(f"  {line}", file=sys.stderr)


def register(app: typer.Typer) -> None:
    """Add the pairwise commands to `arena eval`."""
    app.command("pairwise")(pairwise_command)
