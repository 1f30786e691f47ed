"""The one-scheduler lease: a row in `scheduler_leases` that one process holds until it expires.

Acquiring and renewing are the same conditional UPDATE (holder is me, or the lease expired), which both
SQLite and PostgreSQL run atomically; the first INSERT races on the primary key. Every function takes `now`,
so tests drive expiry with a fake clock.
"""

from __future__ import annotations

import os
import socket
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from arena.db.tables import SchedulerLease
from arena.ops.job_runs import LEASE_NAME

_LEASES = SchedulerLease.__table__  # type: ignore[attr-defined]


def new_holder_id() -> str:
    """A holder name unique to this process and start: host, pid and a random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"[:128]


def acquire_lease(
    engine: Engine, holder: str, now: datetime, ttl: timedelta, *, name: str = LEASE_NAME
) -> bool:
    """Take or renew the lease until now + ttl; True when `holder` holds it afterwards."""
    now = now.astimezone(UTC)
    expires = now + ttl
    with engine.begin() as conn:
        taken = conn.execute(
            update(_LEASES)
            .where(_LEASES.c.name == name, or_(_LEASES.c.holder == holder, _LEASES.c.expires_at <= now))
            .values(holder=holder, expires_at=expires)
        ).rowcount
        if taken:
            return True
        if conn.execute(select(_LEASES.c.name).where(_LEASES.c.name == name)).first() is not None:
            return False
    try:
        with engine.begin() as conn:
            conn.execute(insert(_LEASES).values(name=name, holder=holder, expires_at=expires))
    except IntegrityError:  # another process inserted it first
        return False
    return True


def holds_lease(engine: Engine, holder: str, now: datetime, *, name: str = LEASE_NAME) -> bool:
    """Whether `holder` holds an unexpired lease at `now` (jobs check this before they start)."""
    with engine.connect() as conn:
        row = conn.execute(
            select(_LEASES.c.holder, _LEASES.c.expires_at).where(_LEASES.c.name == name)
        ).first()
    if row is None:
        return False
    return row.holder == holder and row.expires_at > now


def release_lease(engine: Engine, holder: str, *, name: str = LEASE_NAME) -> bool:
    """Give the lease up (if `holder` has it) so a standby can take over at once."""
    with engine.begin() as conn:
        return bool(
            conn.execute(delete(_LEASES).where(_LEASES.c.name == name, _LEASES.c.holder == holder)).rowcount
        )


__all__ = ["acquire_lease", "holds_lease", "new_holder_id", "release_lease"]
