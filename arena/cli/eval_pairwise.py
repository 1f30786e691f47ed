"""`arena eval pairwise`: the LLM judge compares two model runs' outputs case by case, in both orders, and
reports win rates with intervals, position consistency and a Bradley-Terry fit (arena.evals.pairwise)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json


def run_id_of(ref: str) -> str:
    """A run id, or a run folder holding run.json (every `arena eval` command that names a run takes both)."""
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
    bt = report["bradley_terry"]
    for r in bt["rows"]:
        typer.echo(f"  BT {r['label']}: {r['rating']:.0f} [{r['ci_low']:.0f}, {r['ci_high']:.0f}]")
    for note in ([bt["error"]] if bt["error"] else []) + bt["notes"]:
        typer.echo(f"  Bradley-Terry: {note}")
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
    humans: Annotated[
        bool,
        typer.Option(
            "--humans", help="Add the votes of private sets shared from these runs (arena eval share)."
        ),
    ] = False,
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
    ids = [run_id_of(r) for r in (run, run2) if r]
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
        if humans:
            report["humans"] = _humans(engine, ids, {(i.label_a, i.label_b) for i in items})
    folder = out or sides[0].out_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pairwise.json").write_text(json.dumps(report, indent=2, default=str))
    (folder / "pairwise.md").write_text(render_markdown(report))
    if as_json:
        print_json(report)
        return
    _echo(report, folder)


def _humans(engine: Any, ids: list[str], labels: set[tuple[str, str]]) -> dict[str, Any]:
    """The human tallies of every private set of these runs and label pairs, beside the judge's."""
    from arena.evals.pairwise_stats import tally
    from arena.evals.private_set import human_verdicts, sets_for

    sets = sets_for(engine, ids, labels)
    verdicts = human_verdicts(engine, [s.id for s in sets if s.id is not None])
    return {
        "set": ", ".join(f"#{s.id}" for s in sets) or "none",
        "votes": len(verdicts),
        "pairs_by_label": tally(verdicts),
    }


def share_command(
    run: Annotated[str, typer.Argument(help="Eval run id or run folder.")],
    run2: Annotated[str | None, typer.Argument(help="A second eval run (B's outputs come from it).")] = None,
    label_a: Annotated[str | None, typer.Option("--a", help="Model run of A (of RUN).")] = None,
    label_b: Annotated[str | None, typer.Option("--b", help="Model run of B (of RUN2 when given).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the set as JSON.")] = False,
) -> None:
    """Publish A's and B's outputs as a private matchup set: a secret link (/private/TOKEN) where invited voters
    vote blind, apart from the public arena and its board. `arena eval pairwise --humans` tallies the votes."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.evals.pairwise import PairwiseError, collect_pairs, run_sides
    from arena.evals.private_set import PrivateSetError, create_set

    settings = load_settings()
    ids = [run_id_of(r) for r in (run, run2) if r]
    with engine_for(settings) as engine:
        try:
            items, unpaired = collect_pairs(run_sides(engine, ids), label_a, label_b)
            if not items:
                fail("no case has an output from both sides: nothing to share")
            token, set_id = create_set(engine, ids[0], ids[-1], items)
        except (OperationalError, ProgrammingError):
            fail("the database has no private-set tables: run `arena init` (or `arena db upgrade`) first")
        except (PairwiseError, PrivateSetError) as exc:
            fail(str(exc))
    info = {
        "set_id": set_id,
        "token": token,
        "path": f"/private/{token}",
        "pairs": len(items),
        "unpaired": unpaired,
    }
    if as_json:
        print_json(info)
        return
    typer.echo(
        f"private set #{set_id}: {len(items)} pairs of {items[0].label_a} vs {items[0].label_b}"
        f"{f', {len(unpaired)} left out (no partner)' if unpaired else ''}"
    )
    typer.echo(f"share this link (on the arena's address): {info['path']}")
    typer.echo("the token is shown once; only its hash is stored")


def _progress(line: str) -> None:
    print(f"  {line}", file=sys.stderr)


def register(app: typer.Typer) -> None:
    """Add `pairwise` and `share` to `arena eval`."""
    app.command("pairwise")(pairwise_command)
    app.command("share")(share_command)
