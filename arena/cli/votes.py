"""`arena votes ...`: re-run the batch vote filters and summarise verdicts."""

from __future__ import annotations

from typing import Annotated

import typer
from sqlalchemy import func, select

from arena.cli.common import database_session, load_settings, print_json
from arena.db.tables import Vote, VoteVerdict
from arena.voting.refilter import run_batch_filters

app = typer.Typer(help="Raw votes and their filter verdicts.", no_args_is_help=True)


@app.command("filter")
def filter_(
    modality: Annotated[str | None, typer.Option(help="Only this modality.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Re-run the anomaly filters over every raw vote (votes are never changed, only verdicts); the rating
    snapshot re-examines only sessions and addresses with new votes."""
    settings = load_settings()
    with database_session(settings) as session:
        counts = run_batch_filters(session.get_bind(), modality=modality, full=True)  # type: ignore[arg-type]
        total = session.exec(select(func.count()).select_from(Vote)).one()[0]  # type: ignore[call-overload]
        filtered = session.exec(
            select(func.count(func.distinct(VoteVerdict.vote_id))).where(VoteVerdict.kept == False)  # noqa: E712
        ).one()[0]  # type: ignore[call-overload]
    result = {"votes": total, "filtered_votes": filtered, "anomaly_flags": dict(counts)}
    if as_json:
        print_json(result)
        return
    typer.echo(f"{total} votes, {filtered} filtered by at least one filter")
    for name, n in sorted(counts.items()):
        typer.echo(f"  {name}: {n}")
