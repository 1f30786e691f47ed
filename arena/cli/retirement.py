"""`arena prompts retire | refresh | corpus`: the monthly retirement report, the new batch, the live corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import database_session, fail, load_settings, print_json

ActorOption = Annotated[
    str | None, typer.Option(help="Who approves or imports (audit log); default: the OS user.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _read_lines(file: Path) -> list[str]:
    if not file.is_file():
        fail(f"{file}: no such file")
    try:
        return file.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        fail(f"{file}: not UTF-8 text")


def _rule_line(rule: dict[str, Any]) -> str:
    """The rule's settings, of either report schema."""
    if "beta_max" in rule:
        return f"slope upper bound at {rule['confidence']:.0%} below {rule['beta_max']:g}"
    return f"binomial, alpha {rule['alpha']:g}"


def _print_report(report: dict[str, Any]) -> None:
    from arena.prompts.retirement import discrimination_summary

    s, rule, fresh = report["summary"], report["rule"], report["freshness"]
    typer.echo(
        f"retirement report for {report['month']}: {s['active_prompts']} active prompt(s), {s['judged']} judged "
        f"({_rule_line(rule)}, at least {rule['min_decisive_votes']} decisive votes)"
    )
    if fresh["method"]:
        typer.echo(
            f"freshness: {fresh['method']} against the {fresh['corpus_month']} corpus ({fresh['corpus_size']} "
            f"prompts, {fresh.get('live_prompts', 0)} from consented open prompts), threshold {fresh['threshold']:g}"
        )
    else:
        typer.echo("freshness: not run (see the notes)")
    typer.echo(
        f"flagged: {s['flagged']} (discrimination {s['flagged_discrimination']}, "
        f"freshness {s['flagged_freshness']})"
    )
    for row in report["flagged"]:
        d, f = row["discrimination"], row["freshness"]
        stats = f"{discrimination_summary(d)}; ties {d['ties']}+{d['both_bad']}"
        near = f" sim {f['similarity']:.2f}" if f else ""
        typer.echo(f"  {row['prompt_id']:<24} {','.join(row['reasons']):<26} {stats}{near}")
    for cell in report["under_minimum"]:
        typer.echo(
            f"  under minimum: {cell['modality']} {cell['use_case']} x {cell['capability']}: "
            f"{cell['active']} -> {cell['after']} (minimum {report['min_prompts_per_cell']})"
        )
    for note in report["notes"]:
        typer.echo(f"note: {note}")


def retire_command(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Build and print the report; store nothing.")
    ] = False,
    apply: Annotated[int | None, typer.Option("--apply", help="Apply the draft report with this id.")] = None,
    confirm_under_minimum: Annotated[
        bool,
        typer.Option(
            "--confirm-under-minimum", help="With --apply: apply even if it leaves cells under the minimum."
        ),
    ] = False,
    reject: Annotated[
        int | None, typer.Option("--reject", help="Reject the draft report with this id.")
    ] = None,
    reason: Annotated[str, typer.Option(help="Why a report is rejected (audit log).")] = "",
    actor: ActorOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write this month's retirement report (a draft to approve), or apply / reject a stored one."""
    from arena.ops.audit import cli_actor
    from arena.prompts.retirement import (
        ReportError,
        apply_report,
        build_report,
        get_report,
        reject_report,
        run_monthly,
        under_minimum_warning,
    )

    if sum([dry_run, apply is not None, reject is not None]) > 1:
        fail("use one of --dry-run, --apply ID, --reject ID")
    settings = load_settings()
    actor = cli_actor(actor)
    retired: list[str] = []
    with database_session(settings) as session:
        engine = session.get_bind()
        try:
            if apply is not None:
                warning = None if confirm_under_minimum else under_minimum_warning(get_report(engine, apply))
                if warning:
                    fail(f"{warning}; add --confirm-under-minimum to apply anyway")
                retired = apply_report(engine, apply, actor)
            elif reject is not None:
                reject_report(engine, reject, actor, reason=reason)
        except ReportError as exc:
            fail(str(exc))
        if apply is not None:
            if as_json:
                print_json({"report_id": apply, "retired": retired})
            else:
                typer.echo(f"applied report {apply}: retired {len(retired)} prompt(s) (approved by {actor})")
                typer.echo("a running server stops serving them when its pool cache expires (15 s)")
            return
        if reject is not None:
            typer.echo(f"rejected report {reject} (by {actor})")
            return
        if dry_run:
            report = build_report(engine, settings)
            if as_json:
                print_json(report)
            else:
                _print_report(report)
                typer.echo("dry run: nothing was stored")
            return
        report_id = run_monthly(engine, settings, actor=actor)
        row = get_report(engine, report_id)
    if as_json:
        print_json({"id": report_id, "status": row.status, "report": row.report})
        return
    _print_report(row.report)
    if row.status == "applied":
        typer.echo(f"report {report_id} stored and applied automatically (ARENA_RETIREMENT_AUTO_APPLY)")
    else:
        confirm = " --confirm-under-minimum" if row.report.get("under_minimum") else ""
        typer.echo(
            f"report {report_id} stored as a draft: approve with "
            f"`arena prompts retire --apply {report_id}{confirm}`"
        )


def refresh_command(
    file: Annotated[
        Path, typer.Argument(help="JSON-lines prompt file of the new batch (Prompt file format).")
    ],
    batch: Annotated[str | None, typer.Option(help="Batch month YYYY-MM (default: this month).")] = None,
    actor: ActorOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import the month's new batch through the regular validation and de-duplication; show coverage change."""
    from arena.ops.audit import cli_actor
    from arena.prompts.corpus import valid_month
    from arena.prompts.pool import ImportFailed, current_batch
    from arena.prompts.refresh import refresh_pool
    from prompts_taxonomy import load_taxonomy

    settings = load_settings()
    actor = cli_actor(actor)
    lines = _read_lines(file)
    if batch is not None and not valid_month(batch):
        fail("--batch must be a month as YYYY-MM")
    try:
        with database_session(settings) as session:
            report = refresh_pool(
                session,
                lines,
                taxonomy=load_taxonomy(),
                settings=settings,
                base_dir=file.resolve().parent,
                batch=batch or current_batch(),
                actor=actor,
                source=f"refresh:{file.name}",
            )
    except ImportFailed as exc:
        for error in exc.errors:
            typer.echo(f"{file}:{error.line}: {error.message}", err=True)
        fail(f"{len(exc.errors)} bad line(s); nothing was imported")
    if as_json:
        print_json(report.as_dict())
        return
    typer.echo(f"refreshed batch {report.batch}: {len(report.added)} prompt(s) added")
    typer.echo(f"active prompts: {report.active_before} -> {report.active_after}")
    typer.echo(f"empty cells: {report.empty_before} -> {report.empty_after}")
    typer.echo(f"thin cells (< {settings.min_prompts_per_cell}): {report.thin_before} -> {report.thin_after}")
    for cell in report.changed_cells:
        typer.echo(
            f"  {cell['modality']} {cell['use_case']} x {cell['capability']}: {cell['before']} -> {cell['after']}"
        )


def corpus_command(
    file: Annotated[
        Path, typer.Argument(help='Recent real prompts: one per line, or JSON lines with "text".')
    ],
    month: Annotated[str, typer.Option(help="The month these prompts were written, YYYY-MM.")],
    source: Annotated[str, typer.Option(help="Where they come from (crowdsourced, curated, ...).")] = "",
    actor: ActorOption = None,
) -> None:
    """Import a month of the live prompt corpus that the freshness check compares the pool against."""
    from arena.ops.audit import cli_actor
    from arena.prompts.corpus import CorpusImportFailed, import_corpus_lines, valid_month

    settings = load_settings()
    actor = cli_actor(actor)
    lines = _read_lines(file)
    if not valid_month(month):
        fail("--month must be a month as YYYY-MM")
    try:
        with database_session(settings) as session:
            report = import_corpus_lines(
                session,
                lines,
                month=month,
                source=source or f"file:{file.name}",
                actor=actor,
                max_chars=settings.max_prompt_chars,
            )
    except CorpusImportFailed as exc:
        for error in exc.errors:
            typer.echo(f"{file}:{error.line}: {error.message}", err=True)
        fail(f"{len(exc.errors)} bad line(s); nothing was imported")
    typer.echo(
        f"corpus {report.month}: {report.added} prompt(s) added, {report.duplicates} repeat(s) skipped"
    )
