"""The audit log: one append-only row per operator action - who, what, when, from where, before and after.

`SOURCE` (defined in `arena.ops.audit_source`) says where the current action comes from: the CLI entry point
sets "cli", the web app "web" (a middleware), anything else (the scheduler's jobs) stays "system". CLI actions
name their operator with `--actor`, else the OS user (`cli_actor`).
"""

from __future__ import annotations

import getpass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Select, select
from sqlmodel import Session

from arena.db.tables import AuditEntry
from arena.ops.audit_source import SOURCE


def record(
    session: Session,
    *,
    actor: str,
    action: str,
    target: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    **details: Any,
) -> None:
    """Add an audit row to `session` (committed with the caller's transaction, so never half-written)."""
    session.add(
        AuditEntry(
            actor=actor[:128],
            action=action,
            source=SOURCE.get(),
            target=target[:128],
            before=before,
            after=after,
            details=details,
        )
    )


def record_now(engine: Engine, *, actor: str, action: str, target: str = "", **details: Any) -> None:
    """Record one action in a transaction of its own: for actions whose writes commit as they go (a snapshot,
    simulated votes cast one by one), recorded once they are done."""
    with Session(engine) as session:
        record(session, actor=actor, action=action, target=target, **details)
        session.commit()


def cli_actor(explicit: str | None) -> str:
    """The operator a CLI action is recorded under: `--actor`, else the OS user."""
    if explicit and explicit.strip():
        return explicit.strip()
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown-os-user"


def parse_day(value: str) -> datetime:
    """A day written YYYY-MM-DD as its midnight UTC (the audit filters' unit); ValueError if it is not one."""
    return datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=UTC)


def query(
    *,
    actor: str | None = None,
    action: str | None = None,
    source: str | None = None,
    target: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> Select[Any]:
    """Audit rows matching the filters (exact actor / source / target, action prefix), newest first."""
    stmt = select(AuditEntry).order_by(AuditEntry.id.desc())  # type: ignore[union-attr]
    if actor:
        stmt = stmt.where(AuditEntry.actor == actor)
    if action:
        stmt = stmt.where(AuditEntry.action.startswith(action))  # type: ignore[attr-defined]
    if source:
        stmt = stmt.where(AuditEntry.source == source)
    if target:
        stmt = stmt.where(AuditEntry.target == target)
    if since:
        stmt = stmt.where(AuditEntry.at >= since)  # type: ignore[arg-type]
    if until:
        stmt = stmt.where(AuditEntry.at < until)  # type: ignore[arg-type]
    return stmt


def as_dict(row: AuditEntry) -> dict[str, Any]:
    """One audit row as exported (JSON lines) and served."""
    return {
        "id": row.id,
        "at": row.at.isoformat(),
        "actor": row.actor,
        "source": row.source,
        "action": row.action,
        "target": row.target,
        "before": row.before,
        "after": row.after,
        "details": row.details,
    }
