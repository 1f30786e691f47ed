"""The one-scheduler lease on both databases, driven by a fake clock: one holder at a time, renewals,
expiry and take-over, release."""

from datetime import UTC, datetime, timedelta

import pytest

from arena.db import upgrade_database
from arena.ops.job_runs import lease_status
from scheduler.lease import acquire_lease, holds_lease, new_holder_id, release_lease

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TTL = timedelta(seconds=60)


@pytest.fixture
def migrated(engine):
    """The schema only (no taxonomy or pool): all the lease needs."""
    upgrade_database(engine)
    return engine


def test_only_one_holder_gets_the_lease(migrated):
    assert acquire_lease(migrated, "a", T0, TTL)
    assert not acquire_lease(migrated, "b", T0 + timedelta(seconds=1), TTL)
    assert holds_lease(migrated, "a", T0 + timedelta(seconds=1))
    assert not holds_lease(migrated, "b", T0 + timedelta(seconds=1))


def test_renewing_extends_the_lease_and_keeps_standbys_out(migrated):
    now = T0
    assert acquire_lease(migrated, "a", now, TTL)
    for _ in range(10):  # renew every 20 s for 200 s: b never gets in
        now += TTL / 3
        assert acquire_lease(migrated, "a", now, TTL)
        assert not acquire_lease(migrated, "b", now, TTL)
    status = lease_status(migrated, now)
    assert status.holder == "a" and status.expires_at == now + TTL and status.alive


def test_a_standby_takes_over_once_the_holder_stops_renewing(migrated):
    assert acquire_lease(migrated, "a", T0, TTL)
    assert not acquire_lease(migrated, "b", T0 + TTL - timedelta(seconds=1), TTL)
    assert acquire_lease(migrated, "b", T0 + TTL, TTL)
    assert not holds_lease(migrated, "a", T0 + TTL)
    assert not acquire_lease(migrated, "a", T0 + TTL + timedelta(seconds=5), TTL)  # too late for a


def test_releasing_lets_a_standby_in_at_once_and_only_the_holder_can_release(migrated):
    assert acquire_lease(migrated, "a", T0, TTL)
    assert not release_lease(migrated, "b")
    assert release_lease(migrated, "a")
    assert lease_status(migrated, T0) is None
    assert acquire_lease(migrated, "b", T0 + timedelta(seconds=1), TTL)


def test_holder_ids_are_unique_per_process_start():
    assert new_holder_id() != new_holder_id()
