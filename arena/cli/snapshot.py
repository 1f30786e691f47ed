"""`arena ratings snapshot`: compute every board from the database's kept votes and store it."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json


def snapshot_command(
    modality: Annotated[str | None, typer.Option(help="Only this modality.")] = None,
    seed: Annotated[
        int, typer.Option(help="Bootstrap seed (the same votes and seed give the same digits).")
    ] = 0,
    refilter: Annotated[bool, typer.Option(help="Re-run the batch vote filters first.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    actor: Annotated[
        str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")
    ] = None,
) -> None:
    """Compute overall, use-case and capability boards per modality and store them as a snapshot (audited)."""
    from arena.cli.progress import progress_bars
    from arena.leaderboard.snapshots import take_snapshot
    from arena.ops import audit

    settings = load_settings()
    with engine_for(settings) as engine:
        try:
            with progress_bars("boards", as_json=as_json) as bars:
                report = take_snapshot(
                    engine,
                    settings,
                    modality=modality,
                    seed=seed,
                    refilter=refilter,
                    progress=lambda mod, done, total: bars(f"{mod} boards", done, total),
                    filter_progress=bars,
                )
        except ValueError as exc:
            fail(str(exc).splitlines()[0])
        audit.record_now(
            engine,
            actor=audit.cli_actor(actor),
            action="ratings.snapshot",
            target=modality or "",
            created_at=report.created_at.isoformat(),
            seed=seed,
            refilter=refilter,
            boards=len(report.boards),
            votes=dict(sorted(report.boards.items())),
            failures=len(report.failures),
            filtered=report.filtered,
        )
    if as_json:
        print_json(
            {
                "created_at": report.created_at.isoformat(),
                "boards": report.boards,
                "failures": report.failures,
                "filtered": report.filtered,
            }
        )
        return
    typer.echo(f"snapshot at {report.created_at.isoformat()}: {len(report.boards)} board(s) stored")
    for key, votes in sorted(report.boards.items()):
        typer.echo(f"  {key}: {votes} votes")
    for key, reason in sorted(report.failures.items()):
        typer.echo(f"  not computed {key}: {reason}")
