"""`arena models ...`: list models with their figures, reload the models file (with --dry-run), and change
one model's status, endpoint kind or cohort - the console's models section from the command line."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json

app = typer.Typer(help="Registered models: list, reload the models file, activate / deactivate, cohort.",
                  no_args_is_help=True)  # fmt: skip
Actor = Annotated[str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")]


@app.command("list")
def list_(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Every model: status, cohort, endpoint kind, outputs ok / failed, votes, timing samples."""
    from arena.generation import admin as model_admin

    with engine_for(load_settings()) as engine:
        rows = model_admin.model_overview(engine)
    if as_json:
        print_json(rows)
        return
    for m in rows:
        typer.echo(
            f"{m['slug']:<28} {m['modality']:<14} {'active' if m['active'] else 'inactive':<9} {m['cohort']:<8} "
            f"{m['endpoint_kind']:<9} outputs {m['outputs_ok']}/{m['outputs_failed']} votes {m['votes']} "
            f"timing {m['timing_samples']}"
        )


@app.command("reload")
def reload(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the diff, change nothing.")] = False,
    actor: Actor = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Reload ARENA_MODELS_FILE: print what it adds, changes and deactivates, then apply it (unless --dry-run)."""
    from arena.generation import admin as model_admin
    from arena.generation.registry import RegistryError
    from arena.ops import audit

    settings = load_settings()
    with engine_for(settings) as engine:
        try:
            diff = model_admin.reload_preview(engine, settings.models_file)
            if not dry_run:
                model_admin.reload_apply(engine, settings.models_file, actor=audit.cli_actor(actor))
        except RegistryError as exc:
            fail(str(exc))
    if as_json:
        print_json(diff | {"applied": not dry_run})
        return
    typer.echo(f"added: {', '.join(diff['added']) or '-'}")
    for c in diff["changed"]:
        changes = "; ".join(f"{k} {v['before']} -> {v['after']}" for k, v in c["changes"].items())
        typer.echo(f"changed {c['slug']}: {changes}")
    typer.echo(f"deactivated: {', '.join(diff['deactivated']) or '-'}")
    typer.echo("dry run: nothing changed" if dry_run else "applied")


def _set(slug: str, field: str, value: object, actor: str | None) -> None:
    from arena.generation import admin as model_admin
    from arena.ops import audit

    with engine_for(load_settings()) as engine:
        try:
            model_admin.set_model(engine, slug, field, value, actor=audit.cli_actor(actor))
        except model_admin.ModelActionError as exc:
            fail(str(exc))
    typer.echo(f"{slug}: {field} = {value}")


@app.command("activate")
def activate(slug: Annotated[str, typer.Argument(help="Model slug.")], actor: Actor = None) -> None:
    """Serve this model again."""
    _set(slug, "active", True, actor)


@app.command("deactivate")
def deactivate(slug: Annotated[str, typer.Argument(help="Model slug.")], actor: Actor = None) -> None:
    """Stop serving this model; its outputs and votes stay."""
    _set(slug, "active", False, actor)


@app.command("set")
def set_(
    slug: Annotated[str, typer.Argument(help="Model slug.")],
    endpoint_kind: Annotated[str | None, typer.Option(help="standard or modified.")] = None,
    cohort: Annotated[str | None, typer.Option(help="current or legacy.")] = None,
    actor: Actor = None,
) -> None:
    """Mark a model's endpoint standard or modified, or move it between cohorts."""
    if endpoint_kind is None and cohort is None:
        fail("give --endpoint-kind or --cohort")
    if endpoint_kind is not None:
        _set(slug, "endpoint_kind", endpoint_kind, actor)
    if cohort is not None:
        _set(slug, "cohort", cohort, actor)
