"""The audit log: one row per operator action on the pool, the registry or a report."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from arena.db.tables import AuditEntry


def record(session: Session, *, actor: str, action: str, **details: Any) -> None:
    """Add an audit row to `session` (committed with the caller's transaction)."""
    session.add(AuditEntry(actor=actor, action=action, details=details))
