"""`arena open board | tag | delete | retention`: the open-prompt board, tagging, the operator's deletion path
and the retention limit (the `arena open` group)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json

app = typer.Typer(help="Open-prompt battles: their board, tags and privacy.", no_args_is_help=True)
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@app.command("board")
def board_command(
    modality: Annotated[str, typer.Option(help="text_to_image or image_editing.")] = "text_to_image",
    board: Annotated[str, typer.Option(help="overall, use_case=SLUG or capability=SLUG.")] = "overall",
    as_json: JsonOption = False,
) -> None:
    """The open-prompt board (votes on voters' own prompts only, never pooled with the curated boards)."""
    from arena.leaderboard.open_board import open_board, open_board_key
    from prompts_taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    if not taxonomy.has("modality", modality):
        fail(f"unknown modality '{modality}' (one of {', '.join(taxonomy.slugs('modality'))})")
    key = open_board_key(board)
    if key is None or (key[0] != "overall" and not taxonomy.has(*key)):
        fail(f"no open board '{board}': use overall, use_case=SLUG or capability=SLUG")
    settings = load_settings()
    with engine_for(settings) as engine, engine.connect() as conn:
        out = open_board(conn, settings, modality, board)
    if as_json:
        print_json(out)
        return
    typer.echo(
        f"open prompts, {modality} {board}: {out['vote_count']} vote(s) (never pooled with the curated boards)"
    )
    if out["note"]:
        typer.echo(f"note: {out['note']}")
    for row in out["rows"]:
        rank = str(row["rank"]) if row["rated"] else "-"
        low = "-inf" if row["ci_low"] is None else f"{row['ci_low']:.0f}"
        high = "inf" if row["ci_high"] is None else f"{row['ci_high']:.0f}"
        reason = f"  not yet rated: {row['unrated_reason']}" if not row["rated"] else ""
        typer.echo(
            f"{rank:>3}  {row['model']:<28} {row['rating']:7.1f}  [{low}, {high}]  {row['votes']} votes{reason}"
        )
    for axis, counts in out["slices"].items():
        if counts:
            typer.echo(f"{axis} slices: " + ", ".join(f"{k} ({v})" for k, v in counts.items()))


@app.command("tag")
def tag_command(
    limit: Annotated[int, typer.Option(min=1, help="Tag at most this many battles.")] = 500,
    method: Annotated[str, typer.Option(help="auto, minilm or lexical.")] = "auto",
) -> None:
    """Tag untagged open prompts with a use case and a capability (nearest taxonomy example)."""
    from arena.prompts.open_tags import tag_pending

    if method not in ("auto", "minilm", "lexical"):
        fail("--method must be auto, minilm or lexical")
    with engine_for(load_settings()) as engine:
        try:
            done = tag_pending(engine, method=method, limit=limit)
        except RuntimeError as exc:
            fail(str(exc))
    typer.echo(f"tagged {done} open prompt(s)")


@app.command("delete")
def delete_command(
    battle_id: Annotated[str, typer.Argument(help="The open battle whose prompt to erase.")],
    yes: Annotated[bool, typer.Option("--yes", help="Confirm the deletion (it cannot be undone).")] = False,
    actor: Annotated[str | None, typer.Option(help="Who deletes (audit log); default: the OS user.")] = None,
) -> None:
    """Erase an open prompt's text, reference upload and images (the vote stays: the open board does not change)."""
    import getpass

    from sqlmodel import Session

    from arena.media.store import MediaStore
    from arena.prompts.open_privacy import delete_open_prompt

    if not yes:
        fail("deleting an open prompt cannot be undone: add --yes to confirm")
    settings = load_settings()
    with engine_for(settings) as engine, Session(engine) as session:
        try:
            done = delete_open_prompt(
                session, battle_id, actor=actor or getpass.getuser(), media=MediaStore(settings.media_dir)
            )
        except KeyError:
            fail(f"no open battle '{battle_id}'")
    state = "was already deleted" if done.already_deleted else "deleted"
    typer.echo(f"open prompt of battle {battle_id} {state}")


@app.command("retention")
def retention_command(as_json: JsonOption = False) -> None:
    """Erase every open prompt older than ARENA_OPEN_RETENTION_DAYS now (the scheduler does it daily)."""
    from arena.media.store import MediaStore
    from arena.prompts.open_privacy import enforce_retention

    settings = load_settings()
    days = int(settings.open_retention_days)
    with engine_for(settings) as engine:
        erased = enforce_retention(engine, days, media=MediaStore(settings.media_dir), actor="cli")
    if as_json:
        print_json({"erased": erased, "days": days})
        return
    typer.echo(f"erased {erased} open prompt(s) older than {days} day(s)")
