"""`arena prompts ...`: import a prompt file, list prompts, show coverage per (use case x capability) cell."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import database_session, fail, load_settings, print_json, printable

app = typer.Typer(
    help="The prompt pool: import, list, coverage, monthly retirement and refresh, the live corpus.",
    no_args_is_help=True,
)
THIN = 3


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="JSON-lines prompt file (see README: Prompt file format).")],
    batch: Annotated[
        str | None, typer.Option(help="Monthly batch label YYYY-MM (default: this month).")
    ] = None,
    actor: Annotated[
        str | None, typer.Option(help="Who is importing (audit log); default: the OS user.")
    ] = None,
) -> None:
    """Validate FILE and import every prompt, or none: each bad line is reported with its number."""
    from arena.ops.audit import cli_actor
    from arena.prompts.pool import ImportFailed, import_prompt_lines
    from prompts_taxonomy import load_taxonomy

    settings = load_settings()
    if not file.is_file():
        fail(f"{file}: no such file")
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        fail(f"{file}: not UTF-8 text")
    if batch is not None and not (len(batch) == 7 and batch[4] == "-" and batch.replace("-", "").isdigit()):
        fail("--batch must be a month as YYYY-MM")
    try:
        with database_session(settings) as session:
            report = import_prompt_lines(
                session,
                lines,
                taxonomy=load_taxonomy(),
                base_dir=file.resolve().parent,
                media_dir=settings.media_dir,
                threshold=settings.near_duplicate_threshold,
                max_chars=settings.max_prompt_chars,
                batch=batch,
                actor=cli_actor(actor),
                source=f"import:{file.name}",
            )
    except ImportFailed as exc:
        for error in exc.errors:
            typer.echo(f"{file}:{error.line}: {error.message}", err=True)
        fail(f"{len(exc.errors)} bad line(s); nothing was imported")
    typer.echo(f"imported {len(report.added)} prompt(s) into batch {report.batch}")


@app.command("list")
def list_(
    modality: Annotated[str | None, typer.Option(help="text_to_image or image_editing")] = None,
    use_case: Annotated[str | None, typer.Option(help="Only this use case (slug).")] = None,
    capability: Annotated[str | None, typer.Option(help="Only this capability (slug).")] = None,
    status: Annotated[str | None, typer.Option(help="active or retired")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List prompts with their tags."""
    from sqlmodel import select

    from arena.db.tables import Prompt

    settings = load_settings()
    query = select(Prompt).order_by(Prompt.modality, Prompt.use_case, Prompt.capability, Prompt.id)
    for column, value in (
        (Prompt.modality, modality),
        (Prompt.use_case, use_case),
        (Prompt.capability, capability),
        (Prompt.status, status),
    ):
        if value is not None:
            query = query.where(column == value)
    with database_session(settings) as session:
        rows = session.exec(query).all()
    if as_json:
        print_json([r.model_dump(exclude={"created_at", "retired_at"}) for r in rows])
        return
    for r in rows:  # printable(): text stored before import refused control characters cannot reach the tty
        typer.echo(
            f"{r.id:<24} {r.modality:<14} {r.use_case:<28} {r.capability:<21} {r.status:<8} "
            f"{printable(r.text[:70])}"
        )
    typer.echo(f"{len(rows)} prompt(s)")


@app.command("stats")
def stats(
    modality: Annotated[str | None, typer.Option(help="text_to_image or image_editing")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Coverage per (use case x capability) cell: active and retired counts, empty and thin cells."""
    from arena.prompts.pool import coverage
    from prompts_taxonomy import load_taxonomy

    settings = load_settings()
    taxonomy = load_taxonomy()
    if modality is not None and not taxonomy.has("modality", modality):
        fail(f"unknown modality '{modality}' (use {' or '.join(taxonomy.slugs('modality'))})")
    with database_session(settings) as session:
        cells = coverage(session, taxonomy, modality)
    if as_json:
        print_json([c.__dict__ for c in cells])
        return
    for mod in dict.fromkeys(c.modality for c in cells):
        mine = [c for c in cells if c.modality == mod]
        caps = taxonomy.slugs("capability")
        typer.echo(f"\n{mod}: {sum(c.active for c in mine)} active, {sum(c.retired for c in mine)} retired")
        typer.echo(f"{'use case':<28}" + "".join(f"{c[:6]:>8}" for c in caps))
        for use_case in taxonomy.slugs("use_case"):
            counts = {c.capability: c.active for c in mine if c.use_case == use_case}
            typer.echo(f"{use_case:<28}" + "".join(f"{counts[c]:>8}" for c in caps))
        empty = [c for c in mine if c.active == 0]
        thin = [c for c in mine if 0 < c.active < THIN]
        typer.echo(f"empty cells: {len(empty)}; thin cells (< {THIN} active): {len(thin)}")
        for c in empty + thin:
            typer.echo(f"  {'empty' if c.active == 0 else 'thin '} {c.use_case} x {c.capability}: {c.active}")
