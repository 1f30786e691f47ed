"""Where the current action comes from - "cli", "web" or "system" - for the audit log (`arena.ops.audit.SOURCE`).

A module of its own, importing only the standard library, so the command line marks its actions without loading
the database layer that the audit log needs (`arena --help` stays light)."""

from __future__ import annotations

from contextvars import ContextVar

SOURCE: ContextVar[str] = ContextVar("arena_audit_source", default="system")
