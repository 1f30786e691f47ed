"""`arena judge labels export`: the arena's human preferences as the labelled file `arena judge check` reads."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json

app = typer.Typer(
    help="Labelled pairs for `arena judge check`, from the arena's human votes.", no_args_is_help=True
)

MODALITIES = ("text_to_image", "image_editing")


@app.command("export")
def export_command(
    out: Annotated[
        Path, typer.Option(help="Labels file to write (JSON lines); images go to <stem>-images/ beside it.")
    ] = Path("judge-labels.jsonl"),
    modality: Annotated[
        list[str] | None, typer.Option(help="text_to_image or image_editing (repeat for both; default both).")
    ] = None,
    min_votes: Annotated[int, typer.Option(min=1, help="Leave out pairs with fewer kept votes.")] = 1,
    include_live: Annotated[
        bool,
        typer.Option(
            "--include-live",
            help="Also export pairs of live (not retired) prompts. Their images are still served blind and the "
            "file names their models: an operator's decision, for a file kept private.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Export the human majority of every voted image pair (kept votes only, filtered votes never count) with
    its prompt and both served images, in the format `arena judge check` reads. Only pairs whose outputs are
    published (prompt retired) unless --include-live: exporting live pairs with model names breaks blindness."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from arena.judge.labels_export import export_labels
    from arena.media.store import MediaStore

    chosen = tuple(modality or MODALITIES)
    for name in chosen:
        if name not in MODALITIES:
            fail(f"modality must be one of {', '.join(MODALITIES)} (got '{name}')")
    if out.exists() and out.is_dir():
        fail(f"{out} is a folder; give a file name for the labels")
    settings = load_settings()
    with engine_for(settings) as engine:
        try:
            summary = export_labels(
                engine,
                MediaStore(settings.media_dir),
                out,
                modalities=chosen,
                min_votes=min_votes,
                include_live=include_live,
                include_simulated=settings.demo_mode,
            )
        except (OperationalError, ProgrammingError) as exc:
            if "no such table" in str(exc) or "does not exist" in str(exc):
                fail("the database is not initialised: run `arena init` first")
            fail(f"database error ({exc.__class__.__name__}): check ARENA_DATABASE_URL")
        except OSError as exc:
            fail(f"cannot write {out}: {exc.strerror or exc}")
    if as_json:
        print_json(summary.to_dict())
        return
    labels = summary.labels
    typer.echo(
        f"{summary.exported} labelled pairs written to {summary.path} (images in {summary.images}): "
        f"{labels['a']} a, {labels['b']} b, {labels['tie']} tie"
    )
    if summary.skipped_live:
        typer.echo(
            f"  {summary.skipped_live} pairs of live prompts left out (blind; --include-live exports them)"
        )
    if summary.skipped_min_votes:
        typer.echo(f"  {summary.skipped_min_votes} pairs with fewer than {min_votes} kept votes left out")
    if summary.skipped_missing_image:
        typer.echo(f"  {summary.skipped_missing_image} pairs left out: an image or the prompt is missing")
    if summary.exported:
        typer.echo(f"check a judge on it: arena judge check {summary.path}")
