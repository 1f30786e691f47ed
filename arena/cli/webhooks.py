"""`arena webhooks ...`: register URLs called on arena events (add, list, remove), ping one, see and send
deliveries."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import engine_for, fail, load_settings, print_json

app = typer.Typer(
    help="Webhooks called on snapshot.published, generation.failures, retirement.ready.", no_args_is_help=True
)
Actor = Annotated[str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@app.command("add")
def add(
    url: Annotated[
        str, typer.Argument(help="The URL to POST events to (its host in ARENA_WEBHOOK_ALLOWED_HOSTS).")
    ],
    events: Annotated[str, typer.Option(help="Comma list of events it is called on.")] = (
        "snapshot.published,generation.failures,retirement.ready"
    ),
    secret_env: Annotated[
        str, typer.Option(help="Environment variable holding the signing secret (default: generate one).")
    ] = "",
    actor: Actor = None,
    as_json: Json = False,
) -> None:
    """Register a webhook; a generated signing secret is printed once (only the arena keeps it)."""
    from arena.ops import audit, webhooks

    settings = load_settings()
    try:
        with engine_for(settings) as engine:
            row, secret = webhooks.add_webhook(
                engine, settings, url, events, actor=audit.cli_actor(actor), secret_env=secret_env
            )
    except webhooks.WebhookError as exc:
        fail(str(exc))
    if as_json:
        print_json({"id": row.id, "url": row.url, "events": row.events, "secret": secret or None})
        return
    if secret:
        typer.echo(secret)
        typer.echo("the signing secret above is shown only now", err=True)
    typer.echo(f"webhook {row.id} added: {row.url} ({', '.join(row.events)})", err=True)


@app.command("list")
def list_(as_json: Json = False) -> None:
    """List active webhooks: id, URL, events, where the secret comes from (never the secret)."""
    from arena.ops import webhooks

    with engine_for(load_settings()) as engine:
        rows = webhooks.list_webhooks(engine)
    data = [
        {"id": w.id, "url": w.url, "events": w.events, "secret_env": w.secret_env or None,
         "created_at": w.created_at, "created_by": w.created_by}
        for w in rows
    ]  # fmt: skip
    if as_json:
        print_json(data)
        return
    for w in data:
        typer.echo(f"{w['id']:<4} {w['url']}  {','.join(w['events'])}")
    typer.echo(f"{len(data)} webhook(s)")


@app.command("remove")
def remove(
    webhook_id: Annotated[int, typer.Argument(help="The webhook's id (see list).")], actor: Actor = None
) -> None:
    """Stop calling a webhook; its delivery history stays."""
    from arena.ops import audit, webhooks

    try:
        with engine_for(load_settings()) as engine:
            row = webhooks.remove_webhook(engine, webhook_id, actor=audit.cli_actor(actor))
    except webhooks.WebhookError as exc:
        fail(str(exc))
    typer.echo(f"webhook {webhook_id} removed ({row.url})")


@app.command("test")
def test(webhook_id: Annotated[int, typer.Argument(help="The webhook's id.")], as_json: Json = False) -> None:
    """Send a signed `ping` now (with the usual retries) and say how it ended; exit 1 if it was not delivered."""
    from sqlmodel import Session

    from arena.db.tables import WebhookDelivery
    from arena.ops import webhook_delivery, webhooks

    settings = load_settings()
    with engine_for(settings) as engine:
        try:
            hook = webhooks.get_webhook(engine, webhook_id)
        except webhooks.WebhookError as exc:
            fail(str(exc))
        (delivery_id,) = webhook_delivery.enqueue(engine, webhooks.PING, {"webhook": webhook_id}, [hook])
        webhook_delivery.deliver(engine, settings, delivery_id)
        with Session(engine) as session:
            row = session.get(WebhookDelivery, delivery_id)
    assert row is not None
    result = {"delivery": row.id, "status": row.status, "attempts": row.attempts, "http_status": row.last_status,
              "error": row.last_error or None}  # fmt: skip
    if as_json:
        print_json(result)
    else:
        typer.echo(
            f"ping {row.status} after {row.attempts} attempt(s)"
            + (f": {row.last_error}" if row.last_error else "")
        )
    if row.status != "delivered":
        raise typer.Exit(1)


@app.command("deliveries")
def deliveries(
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 20,
    as_json: Json = False,
) -> None:
    """Recent deliveries: event, webhook, status, attempts, last HTTP status or error."""
    from sqlmodel import Session, select

    from arena.db.tables import WebhookDelivery

    with engine_for(load_settings()) as engine, Session(engine) as session:
        rows = session.exec(
            select(WebhookDelivery).order_by(WebhookDelivery.created_at.desc()).limit(limit)  # type: ignore[attr-defined]
        ).all()
    data = [
        {"id": d.id, "webhook": d.webhook_id, "event": d.event, "status": d.status, "attempts": d.attempts,
         "http_status": d.last_status, "error": d.last_error or None, "created_at": d.created_at}
        for d in rows
    ]  # fmt: skip
    if as_json:
        print_json(data)
        return
    for d in data:
        typer.echo(
            f"{d['id'][:12]} {d['event']:<20} webhook {d['webhook']:<3} {d['status']:<9} "
            f"{d['attempts']} attempt(s) {d['http_status'] or ''} {d['error'] or ''}".rstrip()
        )
    typer.echo(f"{len(data)} deliver(ies)")


@app.command("deliver")
def deliver_due() -> None:
    """Send the deliveries left due (pending, or held by a process that stopped), retries included."""
    from arena.ops import webhook_delivery

    settings = load_settings()
    with engine_for(settings) as engine:
        ids = webhook_delivery.due(engine)
        for delivery_id in ids:
            webhook_delivery.deliver(engine, settings, delivery_id)
    typer.echo(f"{len(ids)} due deliver(ies) attempted")
