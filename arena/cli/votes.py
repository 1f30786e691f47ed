"""`arena votes ...`: re-run the batch vote filters, summarise verdicts, import published arena votes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.battles_file import BattlesFileError, BattlesFormat, file_rows
from arena.cli.common import EXIT_USAGE, database_session, engine_for, fail, load_settings, print_json

app = typer.Typer(help="Raw votes and their filter verdicts.", no_args_is_help=True)


@app.command("filter")
def filter_(
    modality: Annotated[str | None, typer.Option(help="Only this modality.")] = None,
    actor: Annotated[
        str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Re-run the anomaly filters over every raw vote and every K-wise ranking (votes are never changed, only
    verdicts); the rating snapshot re-examines only sessions and addresses with new votes."""
    from sqlalchemy import func, select

    from arena.db.tables import KwiseVerdict, KwiseVote, Vote, VoteVerdict, utcnow
    from arena.ops import audit
    from arena.voting.filters.batch import run_batch_filters
    from arena.voting.kwise_filters import filter_kwise

    settings = load_settings()
    with database_session(settings) as session:
        engine = session.get_bind()
        counts = run_batch_filters(engine, modality=modality, full=True)  # type: ignore[arg-type]
        with engine.begin() as conn:  # type: ignore[union-attr]
            for m in [modality] if modality else ["text_to_image", "image_editing"]:
                filter_kwise(conn, m, utcnow())  # K-wise votes: their batch verdicts, rewritten the same way
        audit.record(session, actor=audit.cli_actor(actor), action="votes.refilter", after=dict(counts))
        session.commit()
        total = session.exec(select(func.count()).select_from(Vote)).one()[0]  # type: ignore[call-overload]
        filtered = session.exec(
            select(func.count(func.distinct(VoteVerdict.vote_id))).where(VoteVerdict.kept == False)  # noqa: E712
        ).one()[0]  # type: ignore[call-overload]
        k_total = session.exec(select(func.count()).select_from(KwiseVote)).one()[0]  # type: ignore[call-overload]
        k_filtered = session.exec(
            select(func.count(func.distinct(KwiseVerdict.vote_id))).where(KwiseVerdict.kept == False)  # noqa: E712
        ).one()[0]  # type: ignore[call-overload]
    result = {
        "votes": total,
        "filtered_votes": filtered,
        "anomaly_flags": dict(counts),
        "kwise_votes": k_total,
        "kwise_filtered_votes": k_filtered,
    }
    if as_json:
        print_json(result)
        return
    typer.echo(f"{total} votes, {filtered} filtered by at least one filter")
    for name, n in sorted(counts.items()):
        typer.echo(f"  {name}: {n}")
    if k_total:
        typer.echo(f"{k_total} K-wise rankings, {k_filtered} filtered by at least one filter")


@app.command("summary")
def summary(
    days: Annotated[int, typer.Option(min=1, max=366, help="Days back.")] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Per day: votes, kept votes, and votes filtered by each filter."""
    from arena.db.tables import utcnow
    from arena.voting.review import daily_counts

    with engine_for(load_settings()) as engine:
        series = daily_counts(engine, now=utcnow(), days=days)
    if as_json:
        print_json(series)
        return
    names = list(series["filtered"])
    typer.echo(f"{'day':<11} {'votes':>6} {'kept':>6} " + " ".join(f"{n:>18}" for n in names))
    for i, day in enumerate(series["days"]):
        counts = " ".join(f"{series['filtered'][n][i]:>18}" for n in names)
        typer.echo(f"{day:<11} {series['votes'][i]:>6} {series['kept'][i]:>6} {counts}")


@app.command("flagged")
def flagged(
    limit: Annotated[int, typer.Option(min=1, max=500)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Flagged voter sessions and addresses (pseudonyms) with the filters' evidence and example votes."""
    from arena.runtime.secret_key import resolve_secret
    from arena.voting.review import flagged_groups

    settings = load_settings()
    with engine_for(settings) as engine:
        groups = flagged_groups(engine, resolve_secret(settings), limit=limit)
    if as_json:
        print_json(groups)
        return
    for g in groups:
        typer.echo(f"{g['who']} ({g['kind']}): {g['votes']} filtered vote(s)")
        for name, reason in g["evidence"].items():
            typer.echo(f"  {name}: {reason}")


@app.command("import-public")
def import_public(
    file: Annotated[Path, typer.Argument(help="Battles file: .jsonl, .json, .csv or .parquet.")],
    cohort: Annotated[
        str,
        typer.Option(
            help="Name the votes are stored under as their methodology version (1-16 of a-z, 0-9, . -)."
        ),
    ],
    use_case: Annotated[str, typer.Option(help="Use case of the file's prompts (a taxonomy slug).")],
    capability: Annotated[str, typer.Option(help="Capability of the file's prompts (a taxonomy slug).")],
    file_format: Annotated[
        BattlesFormat, typer.Option("--format", help="Column layout (auto detects it from the columns).")
    ] = BattlesFormat.auto,
    modality: Annotated[str, typer.Option(help="Modality the votes compare.")] = "text_to_image",
    register_models: Annotated[
        bool,
        typer.Option(help="Register models the file names and the arena lacks, as external legacy models."),
    ] = False,
    actor: Annotated[
        str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Import published arena votes (lmarena-ai, GenAI-Bench, FastChat battles) as a cohort of their own: source
    "public", methodology = the cohort name. All or nothing, audited; importing the same file again adds nothing."""
    from arena.generation.public_votes import PublicImportError, import_public_votes
    from arena.ops import audit
    from prompts_taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    for axis, slug in (("modality", modality), ("use_case", use_case), ("capability", capability)):
        if not taxonomy.has(axis, slug):
            known = ", ".join(label.slug for label in taxonomy.axes()[axis])
            fail(f"unknown {axis} '{slug}'; one of {known}")
    try:
        rows = file_rows(str(file))
    except BattlesFileError as exc:
        fail(str(exc))
    settings = load_settings()
    with database_session(settings) as session:
        try:
            report = import_public_votes(
                session,
                rows,
                fmt=file_format.value,
                cohort=cohort,
                modality=modality,
                use_case=use_case,
                capability=capability,
                current_methodology=settings.methodology_version,
                register=register_models,
                actor=audit.cli_actor(actor),
                origin=file.name,
            )
        except PublicImportError as exc:
            typer.echo(f"error: {file}: {exc.problems[0]}", err=True)
            for line in exc.problems[1:]:
                typer.echo(f"  {line}", err=True)
            raise typer.Exit(EXIT_USAGE) from None
        except ValueError as exc:  # no known format
            fail(f"{file}: {exc}")
    result = {
        "cohort": report.cohort,
        "format": report.format,
        "added": report.added,
        "already_imported": report.already,
        "skipped": report.skipped,
        "registered_models": report.registered,
        "new_prompts": report.prompts,
    }
    if as_json:
        print_json(result)
        return
    typer.echo(
        f"{file}: {report.added} vote(s) added to cohort '{cohort}' ({report.format}), "
        f"{report.already} already imported, {report.prompts} new prompt(s)"
    )
    if report.registered:
        typer.echo(f"registered as external models: {', '.join(report.registered)}")
    for reason, n in sorted(report.skipped.items()):
        typer.echo(f"note: skipped {n} record(s) with {reason}")
