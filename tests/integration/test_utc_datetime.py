"""The UTC column type on both databases: whatever zone a time is written in, it reads back as aware UTC,
through Core selects, aggregates and ORM loads alike."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import func, insert, select
from sqlmodel import Session

from arena.db import upgrade_database
from arena.db.tables import SchedulerLease
from arena.db.types import as_utc

LEASES = SchedulerLease.__table__  # type: ignore[attr-defined]
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PLUS_TWO = timezone(timedelta(hours=2))


@pytest.fixture
def migrated(engine):
    upgrade_database(engine)
    return engine


def _read_back(engine, written: datetime) -> list[datetime]:
    with engine.begin() as conn:
        conn.execute(insert(LEASES).values(name="x", holder="h", expires_at=written))
        core = conn.execute(select(LEASES.c.expires_at)).scalar_one()
        latest = conn.execute(select(func.max(LEASES.c.expires_at))).scalar_one()
    with Session(engine) as session:
        orm = session.get(SchedulerLease, "x")
        assert orm is not None
        return [core, latest, orm.expires_at]


@pytest.mark.parametrize(
    "written",
    [T0, T0.astimezone(PLUS_TWO), T0.replace(tzinfo=None)],
    ids=["aware-utc", "aware-plus-two", "naive-taken-as-utc"],
)
def test_a_stored_time_reads_back_as_aware_utc(migrated, written):
    for value in _read_back(migrated, written):
        assert value == T0
        assert value.utcoffset() == timedelta(0)
        assert value.isoformat() == "2026-12-01T12:00:00+00:00"


def test_comparisons_bind_in_utc(migrated):
    with migrated.begin() as conn:
        conn.execute(insert(LEASES).values(name="x", holder="h", expires_at=T0))
        later = select(LEASES.c.name).where(
            LEASES.c.expires_at > (T0 - timedelta(minutes=1)).astimezone(PLUS_TWO)
        )
        earlier = select(LEASES.c.name).where(
            LEASES.c.expires_at > (T0 + timedelta(minutes=1)).astimezone(PLUS_TWO)
        )
        assert conn.execute(later).scalars().all() == ["x"]
        assert conn.execute(earlier).scalars().all() == []


def test_as_utc_takes_naive_as_utc_and_converts_other_zones():
    assert as_utc(T0.replace(tzinfo=None)) == T0 and as_utc(T0.replace(tzinfo=None)).tzinfo is UTC
    assert as_utc(T0.astimezone(PLUS_TWO)).tzinfo is UTC
