"""`arena judge run|report|check`: calibrate the LLM judge against the arena's human votes, and gate a rubric or
judge-model change in CI. Judge verdicts are stored apart from votes and never enter the human boards."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json
from arena.cli.judge_labels import app as labels_app

if TYPE_CHECKING:
    from arena.judge.client import JudgeClient, JudgeConfig
    from arena.settings import Settings

app = typer.Typer(
    help="The LLM judge: calibration against human votes, reports, the CI gate.", no_args_is_help=True
)

MODALITIES = ("text_to_image", "image_editing")
EXIT_GATE = 1


app.add_typer(labels_app, name="labels")


def _client(settings: Settings, judge: str | None, engine: Any = None) -> tuple[JudgeClient, JudgeConfig]:
    from arena.judge.client import JudgeClient, JudgeConfig, JudgeConfigError

    config = JudgeConfig.from_settings(settings)
    if judge:
        config = JudgeConfig(**{**config.__dict__, "model": judge})
    try:
        config.api_key()
    except JudgeConfigError as exc:
        fail(str(exc))
    return JudgeClient(config, engine), config


def _rubrics() -> Any:
    from arena.judge.scenario_rubrics import RubricError, load_rubrics

    try:
        return load_rubrics()
    except RubricError as exc:
        fail(f"rubric file {exc}")


def _progress(line: str) -> None:
    print(f"  {line}", file=sys.stderr)


def _db_errors(exc: Exception) -> None:
    if "no such table" in str(exc) or "does not exist" in str(exc):
        fail("the database is not initialised: run `arena init` first")
    fail(f"database error ({exc.__class__.__name__}): check ARENA_DATABASE_URL")


@app.command("run")
def run_command(
    judge: Annotated[str | None, typer.Option(help="Judge model name (default ARENA_JUDGE_MODEL).")] = None,
    sample: Annotated[int, typer.Option(min=1, help="Matchups to judge (each asked in both orders).")] = 200,
    modality: Annotated[str, typer.Option(help="text_to_image or image_editing.")] = "text_to_image",
    board: Annotated[str, typer.Option(help="overall, use_case=SLUG or capability=SLUG.")] = "overall",
    seed: Annotated[int, typer.Option(help="Seed of the stratified sample.")] = 0,
    concurrency: Annotated[int, typer.Option(min=1, max=32, help="Matchups judged at once.")] = 4,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Judge a stratified sample of human-voted matchups (kept votes only) in both orders, after re-scoring the
    calibration set if a rubric changed; store the verdicts apart from votes and print the headline figures."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.judge.report import build_report
    from arena.judge.run import run_calibration_set, run_matchups
    from arena.media.store import MediaStore

    if modality not in MODALITIES:
        fail(f"modality must be one of {', '.join(MODALITIES)} (got '{modality}')")
    kind, _, value = board.partition("=")
    if board != "overall" and (kind not in ("use_case", "capability") or not value):
        fail(f"board must be 'overall', 'use_case=SLUG' or 'capability=SLUG' (got '{board}')")
    settings = load_settings()
    rubrics = _rubrics()
    with engine_for(settings) as engine:
        client, config = _client(settings, judge, engine)
        try:
            calib = run_calibration_set(
                engine, client, judge_model=config.model, rubrics=rubrics, progress=_progress
            )
            summary = run_matchups(
                engine,
                client,
                judge_model=config.model,
                rubrics=rubrics,
                media=MediaStore(settings.media_dir),
                modality=modality,
                sample=sample,
                board=board,
                seed=seed,
                include_simulated=settings.demo_mode,
                concurrency=concurrency,
                params={"schema_retries": config.schema_retries, "base_url": config.base_url},
                progress=_progress,
            )
            report = build_report(engine, summary.run_id, anchor=settings.overall_anchor)
        except (OperationalError, ProgrammingError) as exc:
            _db_errors(exc)
    if as_json:
        print_json(
            {
                "run": summary.to_dict(),
                "calibration": None if calib is None else calib.to_dict(),
                "report": report,
            }
        )
        return
    if calib is not None:
        typer.echo(
            f"calibration set re-scored (run {calib.run_id}): {calib.judged} scored, {calib.unscored} unscored"
        )
    typer.echo(
        f"judge run {summary.run_id}: {summary.judged} matchups judged, {summary.unscored} left unscored"
    )
    _headline(report)


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _num(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _rating(value: Any) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.0f}"


def _interval(low: Any, high: Any, fmt: Any = _pct) -> str:
    return f"[{fmt(low)}, {fmt(high)}]"


def _headline(report: dict[str, Any]) -> None:
    board = report["run"]["params"].get("board", "overall")
    a = report["agreement"].get(board, {})
    if a.get("n"):
        typer.echo(
            f"agreement with the human majority ({board}): {_pct(a['rate'])} "
            f"{_interval(a['low'], a['high'])} over {a['n']} matchups; "
            f"chance {_pct(a['sym_chance'])} (A/B-symmetrised marginals)"
        )
        typer.echo(
            f"  decisive (neither judge nor majority a tie): {_pct(a['decisive_rate'])} "
            f"{_interval(a['decisive_low'], a['decisive_high'])} over {a['decisive_n']} matchups"
        )
        typer.echo(
            f"  Cohen's kappa {_num(a['cohen_kappa'])} "
            f"{_interval(a['cohen_kappa_low'], a['cohen_kappa_high'], _num)}; "
            f"kappa with A/B-symmetrised marginals {_num(a['sym_kappa'])} "
            f"{_interval(a['sym_kappa_low'], a['sym_kappa_high'], _num)} "
            f"(bootstrap over {a['clusters']} {a['bootstrap']})"
        )
    ceiling = report["human_ceiling"]
    if ceiling["message"]:
        typer.echo(f"human-human agreement ceiling: {ceiling['message']}")
    else:
        h, d = ceiling["all"], ceiling["decisive"]
        typer.echo(
            f"human-human agreement ceiling (two voters on the same matchup): {_pct(h['rate'])} "
            f"{_interval(h['low'], h['high'])} over {h['matchups']} matchups ({h['pairs']} voter pairs); "
            f"decisive pairs {_pct(d['rate'])} {_interval(d['low'], d['high'])} over {d['matchups']} matchups"
        )
    bias = report["position_bias"]
    typer.echo(
        f"position-bias rate (verdict flips with the order): {_pct(bias['rate'])} "
        f"{_interval(bias['low'], bias['high'])} of {bias['scored']}; order-dependent: "
        f"{_pct(bias['order_dependent_rate'])} {_interval(bias['order_dependent_low'], bias['order_dependent_high'])}"
    )
    corr = report["correlation"]
    if corr and (corr.get("kendall") is None or corr.get("spearman") is None):
        typer.echo(
            f"judge board vs human board: rank correlation undefined over {corr.get('n_models', 0)} models "
            "(one board ranks every model equal, e.g. a judge that always answers the same side: "
            "a constant ranking has no correlation)"
        )
    elif corr:
        typer.echo(
            f"judge board vs human board: Kendall {_num(corr['kendall'])} "
            f"{_interval(corr['kendall_low'], corr['kendall_high'], _num)}, Spearman {_num(corr['spearman'])} "
            f"{_interval(corr['spearman_low'], corr['spearman_high'], _num)} over {corr['n_models']} models"
        )
    elif report["judge_board"]["error"]:
        typer.echo(f"judge board: {report['judge_board']['error']}")
    else:
        typer.echo(
            "judge board vs human board: no human snapshot to compare with (run `arena ratings snapshot`)"
        )
    for point in report["calibration"]:
        if point["flagged"]:
            typer.echo(
                f"FLAGGED {point['scenario']}@{point['rubric_version']} ({point['judge_model']}): {point['note']}"
            )


@app.command("fake-server")
def fake_server_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")] = 8765,
) -> None:
    """Serve a FAKE judge (no model, no key): schema-valid made-up answers, for trying the judge and eval flow.
    Point ARENA_JUDGE_BASE_URL at the printed URL, ARENA_JUDGE_MODEL=arena-fake-judge, ARENA_JUDGE_API_KEY_ENV=''."""
    import time

    from arena.judge.fake_server import BANNER, FAKE_MODEL, start

    try:
        server = start(host, port)
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc}")
    url = f"http://{host}:{server.server_address[1]}/v1"
    typer.echo(BANNER)
    typer.echo(f"listening on {url}; use:")
    typer.echo(f"  export ARENA_JUDGE_BASE_URL={url} ARENA_JUDGE_MODEL={FAKE_MODEL} ARENA_JUDGE_API_KEY_ENV=")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()
        server.server_close()


@app.command("report")
def report_command(
    run: Annotated[int | None, typer.Option(help="Run id (default: the latest).")] = None,
    disagreements: Annotated[int, typer.Option(min=0, help="How many disagreements to list.")] = 12,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The calibration report of a judge run: agreement per board, use case and capability with 95% intervals,
    kappa, position bias, the judge board and its correlation with the human board, disagreements, drift."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.judge.report import ReportError, build_report

    settings = load_settings()
    with engine_for(settings) as engine:
        try:
            report = build_report(engine, run, anchor=settings.overall_anchor, disagreements=disagreements)
        except ReportError as exc:
            fail(str(exc))
        except (OperationalError, ProgrammingError) as exc:
            _db_errors(exc)
    if as_json:
        print_json(report)
        return
    r = report["run"]
    typer.echo(
        f"judge run {r['id']} ({r['status']}) of {r['created_at']}: {r['judge_model']}, {report['modality']}"
    )
    c = report["counts"]
    typer.echo(f"matchups: {c['sampled']} sampled, {c['scored']} scored, {c['unscored']} unscored")
    for reason, n in c["unscored_reasons"].items():
        typer.echo(f"  unscored {n}x: {reason}")
    _headline(report)
    typer.echo(
        "\nagreement by slice (rate [95% interval], n; decisive rate, n; Cohen's kappa; kappa A/B-symmetrised):"
    )
    for key, a in report["agreement"].items():
        typer.echo(
            f"  {key:48s} {_pct(a['rate']):>6s} {_interval(a['low'], a['high'])}  n={a['n']:<4d} "
            f"decisive {_pct(a['decisive_rate'])} n={a['decisive_n']:<4d} "
            f"cohen={_num(a['cohen_kappa'])} sym={_num(a['sym_kappa'])}"
        )
    if report["judge_board"]["rows"]:
        typer.echo("\njudge board (from judge verdicts alone) beside the human board:")
        for row in report["judge_board"]["rows"]:
            human = _rating(row["human_rating"])
            typer.echo(
                f"  {row['rank']:>3d}  {row['model']:32s} judge {_rating(row['rating']):>7s}   human {human:>6s}"
            )
    if report["disagreements"]:
        typer.echo("\nwhere judge and humans disagree most:")
        for d in report["disagreements"]:
            h = d["human"]
            typer.echo(
                f"  #{d['verdict_id']} {d['prompt_id']}: {d['model_a']} (A) vs {d['model_b']} (B); humans "
                f"{h['a']}-{h['b']}-{h['tie']} -> {h['majority']}, judge {d['judge']}: {d['reason_a_left'][:100]}"
            )
    if report["calibration"]:
        typer.echo("\ncalibration set (agreement with the reference labels per rubric text):")
        for p in report["calibration"]:
            typer.echo(
                f"  {p['scenario']}@{p['rubric_version']} ({p['rubric_digest']}, {p['judge_model']}): "
                f"{_pct(p['rate'])} of {p['scored']} scored - {p['note']}"
                + ("  FLAGGED" if p["flagged"] else "")
            )


@app.command("check")
def check_command(
    labels: Annotated[Path | None, typer.Argument(help="Held-out labelled pairs (JSON lines).")] = None,
    golden: Annotated[
        bool, typer.Option("--golden", help="Check against the small golden set shipped with the arena.")
    ] = False,
    judge: Annotated[str | None, typer.Option(help="Judge model name (default ARENA_JUDGE_MODEL).")] = None,
    min_agreement: Annotated[float | None, typer.Option(help="Default ARENA_JUDGE_MIN_AGREEMENT.")] = None,
    min_kappa: Annotated[float | None, typer.Option(help="Default ARENA_JUDGE_MIN_KAPPA.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """CI gate: judge a held-out labelled set in both orders; exit 1 when agreement or kappa is below threshold.
    LABELS comes from `arena judge labels export` or your own file; --golden uses the shipped 16-pair set whose
    truth holds by construction (blank, wrong-text, misspelled and identical images)."""
    from arena.judge.golden import SHIPPED
    from arena.judge.heldout import LabelsError, check_labelled, read_labels

    if (labels is None) == (not golden):
        fail("give a labels file or --golden (one of them)")
    labels = SHIPPED if labels is None else labels

    settings = load_settings()
    rubrics = _rubrics()
    try:
        items = read_labels(labels, rubrics)
    except LabelsError as exc:
        fail(str(exc))
    client, _config = _client(settings, judge)
    result = check_labelled(
        client,
        items,
        min_agreement=settings.judge_min_agreement if min_agreement is None else min_agreement,
        min_kappa=settings.judge_min_kappa if min_kappa is None else min_kappa,
    )
    if as_json:
        print_json(result.to_dict())
    else:
        out, scored = result.to_dict(), result.scored.to_dict()
        typer.echo(
            f"{result.items} items, {result.unscored} unscored; agreement {_pct(result.agreement_rate)} "
            f"[{_pct(result.agreement_low)}, {_pct(result.agreement_high)}] (threshold {_pct(result.min_agreement)}); "
            f"kappa with A/B-symmetrised marginals {_num(scored['sym_kappa'])} "
            f"(threshold {result.min_kappa:.3f}; Cohen's kappa {_num(scored['cohen_kappa'])}); "
            f"position-bias rate {_pct(out['position_bias_rate'])} "
            f"{_interval(out['position_bias_low'], out['position_bias_high'])}"
        )
        typer.echo("PASS" if result.passed else "FAIL: " + "; ".join(result.failures))
    if not result.passed:
        raise typer.Exit(EXIT_GATE)
