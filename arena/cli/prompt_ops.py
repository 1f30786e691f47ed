"""`arena prompts search|show|retire-prompt|restore`: the console's prompt pages from the command line."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import database_session, engine_for, fail, load_settings, print_json

Actor = Annotated[str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")]
Reason = Annotated[str, typer.Option(help="Why (required; audit log and the prompt's record).")]


def search_command(
    text: Annotated[str, typer.Argument(help="Case-insensitive text or id fragment ('' for any).")] = "",
    modality: Annotated[str, typer.Option(help="text_to_image or image_editing")] = "",
    use_case: Annotated[str, typer.Option(help="Use-case slug.")] = "",
    capability: Annotated[str, typer.Option(help="Capability slug.")] = "",
    style: Annotated[str, typer.Option(help="Style slug.")] = "",
    status: Annotated[str, typer.Option(help="active or retired")] = "",
    batch: Annotated[str, typer.Option(help="Batch YYYY-MM.")] = "",
    limit: Annotated[int, typer.Option(min=1, max=10000)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Search the pool by text, tags, status and batch."""
    from arena.prompts import admin as prompt_admin

    with database_session(load_settings()) as session:
        rows, total = prompt_admin.search_prompts(session, text=text, modality=modality, use_case=use_case,
                                                  capability=capability, style=style, status=status, batch=batch,
                                                  limit=limit)  # fmt: skip
    if as_json:
        print_json({"total": total, "prompts": [r.model_dump(mode="json") for r in rows]})
        return
    for r in rows:
        typer.echo(f"{r.id:<24} {r.status:<8} {r.batch:<8} {r.use_case:<26} {r.capability:<20} {r.text[:60]}")
    typer.echo(f"{len(rows)} of {total} prompt(s)")


def show_command(
    prompt_id: Annotated[str, typer.Argument(help="Prompt id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """One prompt: outputs per model, kept votes per model, discrimination figures."""
    from arena.prompts import admin as prompt_admin

    settings = load_settings()
    with engine_for(settings) as engine:
        detail = prompt_admin.prompt_detail(engine, settings, prompt_id)
    if detail is None:
        fail(f"no prompt '{prompt_id}'")
    p = detail["prompt"]
    data = {
        "prompt": p.model_dump(mode="json"),
        "outputs": {  # the latest output per model (a restored prompt's published ones come first)
            o["output"].model_slug: o["output"].status + (" (published)" if o["output"].published_at else "")
            for o in detail["outputs"]
        },
        "raw_votes": detail["raw_votes"],
        "kept_votes": detail["kept_votes"],
        "per_model": detail["per_model"],
        "discrimination": detail["discrimination"],
    }
    if as_json:
        print_json(data)
        return
    typer.echo(f"{p.id} [{p.status}] {p.modality} {p.use_case} x {p.capability} batch {p.batch}\n{p.text}")
    typer.echo(f"votes: {data['raw_votes']} raw, {data['kept_votes']} kept")
    for slug, status in data["outputs"].items():
        m = data["per_model"].get(slug, {})
        typer.echo(
            f"  {slug:<28} output {status:<7} {m.get('wins', 0)} W {m.get('losses', 0)} L {m.get('ties', 0)} T"
        )
    d = data["discrimination"]
    typer.echo(f"discrimination: {d['reason']}" if d else "discrimination: no overall board yet")


def _status(prompt_id: str, retire: bool, reason: str, actor: str | None) -> None:
    from arena.ops import audit
    from arena.prompts import admin as prompt_admin

    with engine_for(load_settings()) as engine:
        try:
            prompt_admin.set_status(
                engine, prompt_id, retire=retire, reason=reason, actor=audit.cli_actor(actor)
            )
        except prompt_admin.PromptActionError as exc:
            fail(str(exc))
    typer.echo(
        f"prompt '{prompt_id}' retired (its outputs are published: never served blind again)"
        if retire
        else f"prompt '{prompt_id}' restored: matched again once new outputs exist for two models (arena generate)"
    )


def retire_prompt_command(
    prompt_id: Annotated[str, typer.Argument(help="Prompt id.")], reason: Reason, actor: Actor = None
) -> None:
    """Retire one prompt now (it stops being served; outputs and votes stay)."""
    _status(prompt_id, True, reason, actor)


def restore_command(
    prompt_id: Annotated[str, typer.Argument(help="Prompt id.")], reason: Reason, actor: Actor = None
) -> None:
    """Restore a retired prompt (served again)."""
    _status(prompt_id, False, reason, actor)
