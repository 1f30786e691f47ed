"""`arena export`: the open data behind the published boards (votes, prompts, models, snapshot parameters)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json


def export_command(
    out: Annotated[
        Path, typer.Option("--out", help="Folder to write (created if missing; files are replaced).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    open_prompts: Annotated[
        bool,
        typer.Option(
            "--open-prompts",
            help="Also write open-prompt votes to OUT/open/ (prompt text only where the voter consented, anonymized).",
        ),
    ] = False,
) -> None:
    """Write the kept votes behind the latest published boards in the battles format (voters pseudonymized),
    the prompts with their tags, the models and each board's snapshot parameters with the exact
    `arena ratings fit` options that reproduce it."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.db.tables import utcnow
    from arena.leaderboard.export import write_export
    from arena.prompts.open_privacy import write_open_export
    from prompts_taxonomy import load_taxonomy

    settings = load_settings()
    if out.exists() and not out.is_dir():
        fail(f"'{out}' exists and is not a folder")
    try:
        with engine_for(settings) as engine:
            taxonomy = load_taxonomy()
            report = write_export(engine, out, taxonomy, now=utcnow())
            opened = (
                write_open_export(engine, out / "open", taxonomy.slugs("modality")) if open_prompts else None
            )
    except (OperationalError, ProgrammingError) as exc:
        if "no such table" in str(exc) or "does not exist" in str(exc):
            fail("the database is not initialised: run `arena init` first")
        fail(f"database error ({exc.orig.__class__.__name__}): check ARENA_DATABASE_URL")
    except OSError as exc:
        fail(f"cannot write to '{out}': {exc.strerror or exc}")
    if as_json:
        done = {"out": str(out), "votes": report.votes, "boards": report.boards, "notes": report.notes}
        print_json(done | ({"open": opened} if opened is not None else {}))
        return
    for modality, votes in report.votes.items():
        typer.echo(f"{modality}: {votes} votes, {len(report.boards[modality])} board(s)")
    for note in report.notes:
        typer.echo(f"note: {note}")
    for modality, counts in (opened or {}).items():
        typer.echo(
            f"open prompts, {modality}: {counts['votes']} votes, {counts['prompts']} consented prompt text(s)"
        )
    typer.echo(f"wrote {out}/README.txt: it gives the `arena ratings fit` command for each board")
