"""The schedule and the job wrappers without a database: the job set kept in step with the settings, and the
monthly retirement job that calls `arena.prompts.retirement.run_monthly` only when that module exists."""

import sys
import types
from collections.abc import Iterator

import pytest
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger

from arena.ops.job_runs import JOBS
from arena.settings import Settings
from scheduler.jobs import JobContext, retirement_job
from scheduler.service import JobSpec, ensure_jobs, job_specs

SETTINGS = Settings(_env_file=None)  # type: ignore[call-arg]


@pytest.fixture
def paused() -> Iterator[BackgroundScheduler]:
    scheduler = BackgroundScheduler(jobstores={"default": MemoryJobStore()}, timezone="UTC")
    scheduler.start(paused=True)
    yield scheduler
    scheduler.shutdown(wait=False)


def test_the_schedule_has_every_job_with_its_trigger():
    specs = {s.id: s for s in job_specs(SETTINGS)}
    assert set(specs) == set(JOBS)
    assert str(specs["timing_run"].trigger) == "random[4/day]"
    assert str(specs["rating_snapshot"].trigger) == "interval[0:15:00]"
    assert str(specs["generation_backfill"].trigger) == "interval[1:00:00]"
    assert "day='1'" in str(specs["prompt_retirement"].trigger)


def test_ensuring_the_jobs_twice_adds_once_then_keeps_them(paused):
    assert set(ensure_jobs(paused, job_specs(SETTINGS)).values()) == {"added"}
    before = {j.id: (j.next_run_time, j.trigger.__getstate__()) for j in paused.get_jobs()}
    assert set(ensure_jobs(paused, job_specs(SETTINGS)).values()) == {"kept"}
    after = {j.id: (j.next_run_time, j.trigger.__getstate__()) for j in paused.get_jobs()}
    assert after["timing_run"] == before["timing_run"]  # same salt: the same plan after a restart
    assert len(paused.get_jobs()) == len(JOBS)


def test_a_changed_trigger_is_rescheduled_and_an_unknown_job_removed(paused):
    ensure_jobs(paused, job_specs(SETTINGS))
    paused.add_job(print, IntervalTrigger(hours=1), id="old_job")
    specs = [
        s if s.id != "rating_snapshot" else JobSpec(s.id, IntervalTrigger(minutes=3), 60)
        for s in job_specs(SETTINGS)
    ]
    changes = ensure_jobs(paused, specs)
    assert changes["rating_snapshot"] == "rescheduled" and changes["old_job"] == "removed"
    assert changes["timing_run"] == "kept"
    assert str(paused.get_job("rating_snapshot").trigger) == "interval[0:03:00]"


def context():
    return JobContext(engine=object(), settings=SETTINGS, holder="t", check_lease=False)  # type: ignore[arg-type]


def test_retirement_is_skipped_when_its_module_is_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "arena.prompts.retirement", None)
    outcome = retirement_job(context(), {}, lambda _: None)
    assert (outcome.outcome, outcome.message) == ("skipped", "skipped: not installed")


def test_retirement_calls_run_monthly_with_the_engine_and_settings(monkeypatch):
    calls = []
    module = types.ModuleType("arena.prompts.retirement")
    module.run_monthly = lambda engine, settings: calls.append((engine, settings)) or 7
    monkeypatch.setitem(sys.modules, "arena.prompts.retirement", module)
    ctx = context()
    outcome = retirement_job(ctx, {}, lambda _: None)
    assert (outcome.outcome, outcome.message) == ("ok", "retirement report 7 stored")
    assert calls == [(ctx.engine, ctx.settings)]


def test_retirement_without_run_monthly_is_skipped(monkeypatch):
    monkeypatch.setitem(sys.modules, "arena.prompts.retirement", types.ModuleType("arena.prompts.retirement"))
    assert retirement_job(context(), {}, lambda _: None).outcome == "skipped"
