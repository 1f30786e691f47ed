"""`arena operators ...` (named operators and their tokens) and `arena audit ...` (read and export the log)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import database_session, fail, load_settings, print_json

app = typer.Typer(help="Named operators: add (token printed once), list, revoke.", no_args_is_help=True)
audit_app = typer.Typer(help="The audit log: list with filters, export as JSON lines.", no_args_is_help=True)
Actor = Annotated[str | None, typer.Option(help="Who is acting (audit log); default: the OS user.")]


@app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="Operator name: a-z 0-9 . _ - (at most 64).")],
    role: Annotated[str, typer.Option(help="admin, operator or viewer.")] = "operator",
    actor: Actor = None,
) -> None:
    """Add an operator and print their token once: only its salted argon2 hash is stored."""
    from arena.ops import audit, operators

    settings = load_settings()
    try:
        with database_session(settings) as session:
            token = operators.add_operator(session, name, role, actor=audit.cli_actor(actor))
    except operators.OperatorError as exc:
        fail(str(exc))
    typer.echo(token)
    typer.echo(f"operator '{name}' ({role}) added; the token above is shown only now", err=True)


@app.command("list")
def list_(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List operators: name, role, who added them, revoked or active (never a token or hash)."""
    from arena.ops import operators

    with database_session(load_settings()) as session:
        rows = operators.list_operators(session)
    data = [
        {"name": o.name, "role": o.role, "created_at": o.created_at, "created_by": o.created_by,
         "revoked_at": o.revoked_at}
        for o in rows
    ]  # fmt: skip
    if as_json:
        print_json(data)
        return
    for o in data:
        typer.echo(
            f"{o['name']:<24} {o['role']:<9} {'revoked' if o['revoked_at'] else 'active':<8} by {o['created_by']}"
        )
    typer.echo(f"{len(data)} operator(s)")


@app.command("revoke")
def revoke(name: Annotated[str, typer.Argument(help="The operator to revoke.")], actor: Actor = None) -> None:
    """Revoke an operator: their token and console sessions stop working at once."""
    from arena.ops import audit, operators

    try:
        with database_session(load_settings()) as session:
            operators.revoke_operator(session, name, actor=audit.cli_actor(actor))
    except operators.OperatorError as exc:
        fail(str(exc))
    typer.echo(f"operator '{name}' revoked")


def _day(value: str | None, name: str) -> datetime | None:
    from arena.ops import audit

    if value is None:
        return None
    try:
        return audit.parse_day(value)
    except ValueError:
        fail(f"--{name} must be a date YYYY-MM-DD")


def _rows(
    actor: str | None, action: str | None, source: str | None, since: str | None, until: str | None
) -> list:
    from arena.ops import audit

    end = _day(until, "until")
    stmt = audit.query(actor=actor, action=action, source=source, since=_day(since, "since"),
                       until=end + timedelta(days=1) if end else None)  # fmt: skip
    with database_session(load_settings()) as session:
        return [audit.as_dict(r) for r in session.exec(stmt).scalars()]


Who = Annotated[str | None, typer.Option("--operator", help="Only this operator.")]
What = Annotated[str | None, typer.Option("--action", help="Actions starting with this (e.g. prompts.).")]
Where = Annotated[str | None, typer.Option("--source", help="cli, web or system.")]
Since = Annotated[str | None, typer.Option("--since", help="From this day (YYYY-MM-DD, UTC).")]
Until = Annotated[str | None, typer.Option("--until", help="Up to and including this day.")]


@audit_app.command("list")
def audit_list(
    operator: Who = None,
    action: What = None,
    source: Where = None,
    since: Since = None,
    until: Until = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 50,
) -> None:
    """Show audit entries: when, who, from where, what, on what."""
    for row in _rows(operator, action, source, since, until)[:limit]:
        typer.echo(
            f"{row['at'][:19]}  {row['actor']:<16} {row['source']:<6} {row['action']:<24} {row['target']}"
        )


@audit_app.command("export")
def audit_export(
    out: Annotated[Path | None, typer.Option("--out", help="Write here instead of stdout.")] = None,
    operator: Who = None,
    action: What = None,
    source: Where = None,
    since: Since = None,
    until: Until = None,
) -> None:
    """Export matching audit entries as JSON lines (newest first)."""
    text = "".join(json.dumps(r, default=str) + "\n" for r in _rows(operator, action, source, since, until))
    if out is None:
        typer.echo(text, nl=False)
        return
    out.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {text.count(chr(10))} entries to {out}", err=True)
