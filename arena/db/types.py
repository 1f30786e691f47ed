"""Column types shared by the tables: `UtcDateTime`, a timestamp that is always aware UTC in Python.

SQLite hands back naive datetimes and PostgreSQL aware ones in the session's zone; every stored time is UTC,
so reading through this type gives aware UTC on both, and nothing downstream has to repair a datetime.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime, Dialect
from sqlalchemy.types import TypeDecorator


def utcnow() -> datetime:
    """Timezone-aware now in UTC: every stored time is UTC."""
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """`moment` as aware UTC; a naive datetime is taken to be UTC already (as every stored time is)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """`DateTime(timezone=True)` that stores UTC and always returns aware UTC datetimes (same DDL, so the
    migrations see no change)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Aware values are converted to UTC before they are stored (SQLite keeps only the wall time)."""
        if value is None or value.tzinfo is None:
            return value
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Stored values come back as aware UTC."""
        return None if value is None else as_utc(value)


__all__ = ["UtcDateTime", "as_utc", "utcnow"]
