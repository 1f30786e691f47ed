"""The scheduler on both databases: one leader among several processes, a persistent job store that a
restart neither loses nor duplicates, operator-queued runs executed by the leader, fencing by the lease."""

import asyncio
import pickle
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert, select

from arena.db.tables import JobRun, LatencySample, SchedulerJob
from arena.ops import job_runs as jobruns
from scheduler.jobs import (
    JOB_FUNCTIONS,
    JobContext,
    clear_context,
    dispatch_requests,
    execute,
    install_context,
    run_job,
    until_stopped,
)
from scheduler.service import SchedulerService
from tests.fakes.scheduling import VirtualTime, sandbox_registry, timing_world

JOBS = {"timing_run", "rating_snapshot", "generation_backfill", "prompt_retirement"}


@pytest.fixture
def world(engine):
    return timing_world(engine, sandbox_registry({"sandbox-quick": (300, 500), "sandbox-slow": (900, 1500)}))


def store(engine):
    """The job store as rows: id -> (next run timestamp, unpickled job state)."""
    with engine.connect() as conn:
        rows = conn.execute(select(SchedulerJob.id, SchedulerJob.next_run_time, SchedulerJob.job_state)).all()
    return {r.id: (r.next_run_time, pickle.loads(r.job_state)) for r in rows}


def runs(engine):
    with engine.connect() as conn:
        return conn.execute(select(JobRun).order_by(JobRun.id)).all()


def test_a_restart_neither_loses_nor_duplicates_jobs(settings, world):
    first = SchedulerService(settings, engine=world)
    try:
        assert first.tick() and first.is_leader
        before = store(world)
    finally:
        first.stop()
    assert set(before) == JOBS
    assert all(next_run is not None for next_run, _ in before.values())
    second = SchedulerService(settings, engine=world)
    try:
        assert second.tick()
        after = store(world)
    finally:
        second.stop()
    assert set(after) == JOBS
    assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}
    assert after["timing_run"][1]["trigger"].salt == before["timing_run"][1]["trigger"].salt
    assert after["timing_run"][1]["func"] == "scheduler.jobs:run_job"
    assert after["timing_run"][1]["args"] == ("timing_run",)


def test_a_changed_interval_reschedules_that_job_only(settings, world):
    with SchedulerService(settings, engine=world) as _:
        pass
    first = SchedulerService(settings, engine=world)
    try:
        first.tick()
        before = store(world)
    finally:
        first.stop()
    faster = settings.model_copy(update={"snapshot_interval_minutes": 5})
    second = SchedulerService(faster, engine=world)
    try:
        second.tick()
        after = store(world)
    finally:
        second.stop()
    assert str(after["rating_snapshot"][1]["trigger"]) == "interval[0:05:00]"
    assert after["timing_run"][0] == before["timing_run"][0]
    assert after["generation_backfill"][0] == before["generation_backfill"][0]


def test_only_one_of_several_processes_leads_and_a_standby_takes_over(settings, world):
    vt = VirtualTime(datetime.now(UTC))
    a = SchedulerService(settings, engine=world, clock=vt.now, holder="worker-a")
    b = SchedulerService(settings, engine=world, clock=vt.now, holder="worker-b")
    c = SchedulerService(settings, engine=world, clock=vt.now, holder="worker-c")
    try:
        assert [a.tick(), b.tick(), c.tick()] == [True, False, False]
        vt.advance(20)
        assert [a.tick(), b.tick(), c.tick()] == [True, False, False]
        vt.advance(settings.scheduler_lease_seconds + 1)  # a stalls: its lease runs out
        assert [b.tick(), c.tick()] == [True, False]
        assert a.tick() is False and not a.is_leader  # a notices and stops its scheduler
        assert len(store(world)) == len(JOBS)
    finally:
        for service in (a, b, c):
            service.stop()


def test_a_job_does_not_run_in_a_process_that_lost_the_lease(settings, world):
    ctx = JobContext(world, settings, holder="not-the-holder")
    install_context(ctx)
    try:
        run_job("rating_snapshot")
    finally:
        clear_context(ctx)
    assert runs(world) == []


def test_the_new_leader_closes_runs_left_running_by_a_dead_scheduler(settings, world):
    with world.begin() as conn:
        conn.execute(
            insert(JobRun).values(
                job="timing_run",
                started_at=datetime.now(UTC) - timedelta(hours=1),
                outcome="running",
                message="",
                details={"trigger": "scheduled"},
            )
        )
    service = SchedulerService(settings, engine=world)
    try:
        service.tick()
    finally:
        service.stop()
    [row] = runs(world)
    assert row.outcome == "interrupted" and row.finished_at is not None


def test_the_leader_runs_a_timing_run_an_operator_queued_for_one_model(settings, world):
    vt = VirtualTime(datetime.now(UTC))
    run_id = jobruns.request_run(
        world, "timing_run", vt.now(), actor="operator", params={"model": "sandbox-slow"}
    )
    ctx = JobContext(world, settings, holder="test", clock=vt.now, sleep=vt.sleep, check_lease=False)
    assert dispatch_requests(ctx) == 1
    run = jobruns.get_run(world, run_id)
    assert run.outcome == "ok" and run.message.startswith("1 ok, 0 failed")
    assert run.details["progress"]["done"] == run.details["progress"]["total"] == 1
    with world.connect() as conn:
        [sample] = conn.execute(select(LatencySample)).all()
    assert (sample.model_slug, sample.run_id, sample.status) == ("sandbox-slow", str(run_id), "ok")
    assert dispatch_requests(ctx) == 0  # nothing left in the queue


def test_a_second_run_of_a_job_still_going_is_recorded_as_skipped(settings, world):
    ctx = JobContext(world, settings, holder="test", check_lease=False)
    with ctx.locks["rating_snapshot"]:
        _, outcome = execute(ctx, "rating_snapshot", trigger="scheduled")
    assert outcome.outcome == "skipped"
    [row] = runs(world)
    assert row.outcome == "skipped" and row.finished_at is not None


def test_the_keeper_thread_leads_and_executes_queued_runs_then_releases_the_lease(settings, world):
    fast = settings.model_copy(update={"scheduler_poll_seconds": 0.1})
    with SchedulerService(fast, engine=world) as service:
        deadline = time.monotonic() + 20
        while not service.is_leader and time.monotonic() < deadline:
            time.sleep(0.05)
        assert service.is_leader
        run_id = jobruns.request_run(world, "rating_snapshot", datetime.now(UTC), actor="t", params={})
        while jobruns.get_run(world, run_id).outcome in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.05)
        run = jobruns.get_run(world, run_id)
        assert run.outcome == "skipped" and "no kept votes" in run.message
    assert jobruns.lease_status(world, datetime.now(UTC)) is None


def test_a_job_that_raises_is_recorded_as_failed_with_its_error(settings, world, monkeypatch):
    def boom(ctx, params, progress):
        raise RuntimeError("the provider registry is broken")

    monkeypatch.setitem(JOB_FUNCTIONS, "rating_snapshot", boom)
    ctx = JobContext(world, settings, holder="test", check_lease=False)
    run_id, _ = execute(ctx, "rating_snapshot", trigger="scheduled")
    run = jobruns.get_run(world, run_id)
    assert run.outcome == "failed" and "the provider registry is broken" in run.message
    assert "Traceback" in run.details["traceback"]


def test_a_run_still_going_when_the_scheduler_stops_is_cancelled_and_recorded_as_interrupted(
    settings, world, monkeypatch
):
    def forever(ctx, params, progress):
        asyncio.run(until_stopped(asyncio.sleep(3600), ctx.stopping))
        raise AssertionError("not reached")

    monkeypatch.setitem(JOB_FUNCTIONS, "generation_backfill", forever)
    ctx = JobContext(world, settings, holder="test", check_lease=False)
    threading.Timer(0.1, ctx.stopping.set).start()
    run_id, outcome = execute(ctx, "generation_backfill", trigger="scheduled")
    assert outcome.outcome == "interrupted"
    assert jobruns.get_run(world, run_id).outcome == "interrupted"
