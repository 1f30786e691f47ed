"""`arena outputs import MANIFEST`: bring images generated elsewhere into the arena, all or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import database_session, fail, load_settings, print_json

app = typer.Typer(help="Outputs made elsewhere: import them for human evaluation.", no_args_is_help=True)


@app.command("import")
def import_command(
    manifest: Annotated[
        Path, typer.Argument(help="JSON-lines manifest (see README: Compare your own models).")
    ],
    actor: Annotated[str, typer.Option(help="Who is importing (recorded in the audit log).")] = "cli",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Import every line of MANIFEST or none: each bad line is printed as FILE:LINE: reason. Re-running the
    same manifest changes nothing."""
    from arena.cli.progress import progress_bars
    from arena.generation.outputs_import import import_outputs
    from arena.media.store import MediaStore
    from arena.prompts.pool import ImportFailed
    from prompts_taxonomy import load_taxonomy

    settings = load_settings()
    if not manifest.is_file():
        fail(f"{manifest}: no such file")
    try:
        lines = manifest.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        fail(f"{manifest}: not UTF-8 text")
    try:
        with database_session(settings) as session, progress_bars("images", as_json=as_json) as bars:
            report = import_outputs(
                session,
                lines,
                base_dir=manifest.resolve().parent,
                store=MediaStore(settings.media_dir),
                taxonomy=load_taxonomy(),
                media_dir=settings.media_dir,
                threshold=settings.near_duplicate_threshold,
                max_chars=settings.max_prompt_chars,
                source=f"outputs:{manifest.name}",
                actor=actor,
                progress=lambda done, total: bars("import", done, total),
            )
    except ImportFailed as exc:
        for error in exc.errors:
            typer.echo(f"{manifest}:{error.line}: {error.message}", err=True)
        fail(f"{len(exc.errors)} bad line(s); nothing was imported")
    if as_json:
        print_json(report.__dict__)
        return
    typer.echo(
        f"imported {report.added} output(s) for {len(report.models)} model(s) "
        f"({report.unchanged} already present, {len(report.prompts_created)} new prompt(s))"
    )
