"""Timing runs on both databases: a day of scheduled runs on virtual time with the sandbox models' latency
profiles, the 14-day window and no-repeat rule over the stored samples, and `arena latency` end to end."""

import asyncio
import json
import tomllib
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from typer.testing import CliRunner

import arena.generation.providers.sandbox as sandbox
from arena.app import create_app
from arena.cli.main import app as cli
from arena.db.tables import JobRun, LatencySample, TimingPrompt
from arena.generation.providers.adapters import parse_params
from arena.leaderboard.latency import latency_stats
from scheduler.jobs import JobContext, execute
from scheduler.plan import quarter_of
from scheduler.timing import run_timing
from scheduler.triggers import RandomDailyTrigger
from tests.fakes.scheduling import VirtualTime, sandbox_registry, timing_world

MODELS_TOML = Path(__file__).resolve().parents[2] / "models.toml"
MIDNIGHT = datetime(2026, 12, 7, tzinfo=UTC)


def shipped_profiles():
    """The latency profiles (median, p95 in ms) of the shipped sandbox text-to-image models."""
    entries = tomllib.loads(MODELS_TOML.read_text())["models"]
    return {
        e["slug"]: (e["params"]["latency_ms"]["median"], e["params"]["latency_ms"]["p95"])
        for e in entries
        if e["modality"] == "text_to_image" and e["adapter"] == "sandbox"
    }


def samples(engine):
    with engine.connect() as conn:
        return conn.execute(select(LatencySample).order_by(LatencySample.id)).all()


def test_a_simulated_day_of_scheduled_runs_measures_each_sandbox_profile(settings, engine, monkeypatch):
    profiles = shipped_profiles()
    assert len(profiles) >= 5
    world = timing_world(engine, sandbox_registry(profiles))
    vt = VirtualTime(MIDNIGHT)
    monkeypatch.setattr(sandbox, "time", vt)  # the sandbox's simulated latency passes on virtual time
    ctx = JobContext(
        world, settings, "sim", clock=vt.now, sleep=vt.sleep, perf_counter=vt.perf_counter, check_lease=False
    )
    trigger = RandomDailyTrigger(salt="a day")
    fire = trigger.get_next_fire_time(None, MIDNIGHT)
    while fire < MIDNIGHT + timedelta(days=1):
        vt.set(fire)
        _, outcome = execute(ctx, "timing_run", trigger="scheduled")
        assert outcome.outcome == "ok", outcome.message
        fire = trigger.get_next_fire_time(fire, vt.now())

    rows = samples(world)
    assert len(rows) == 4 * len(profiles)
    by_model = defaultdict(list)
    for row in rows:
        by_model[row.model_slug].append(row)
    for slug, mine in by_model.items():
        params = parse_params(
            "sandbox", {"latency_ms": {"median": profiles[slug][0], "p95": profiles[slug][1]}}
        )
        expected = [sandbox.simulated_latency(params, slug, call) for call in range(4)]
        assert [r.seconds for r in mine] == pytest.approx(expected, abs=1e-9)
        assert sorted(quarter_of(r.started_at.replace(tzinfo=UTC)) for r in mine) == [0, 1, 2, 3]
        assert len({r.timing_prompt_id for r in mine}) == 4
        assert all(r.status == "ok" and (r.width, r.height) == (256, 256) for r in mine)
    stats = latency_stats(world, vt.now())
    assert set(stats) == set(profiles)
    for slug, s in stats.items():
        seconds = [r.seconds for r in by_model[slug]]
        assert (s.samples, s.failures, s.failure_rate) == (4, 0, 0.0)
        assert s.median == pytest.approx(float(np.median(seconds)))
        assert s.p05 <= s.p25 <= s.median <= s.p75 <= s.p95
        median_ms, p95_ms = profiles[slug]
        assert median_ms / 2500 < s.median < p95_ms / 1000 * 1.5  # four draws from that profile
    with world.connect() as conn:
        assert [r.outcome for r in conn.execute(select(JobRun.outcome))] == ["ok"] * 4
    with TestClient(create_app(settings, engine=world, clock=vt.now)) as client:  # what the model pages show
        for slug, s in stats.items():
            shown = client.get(f"/api/v1/models/{slug}").json()["generation_time"]
            assert (shown["median_s"], shown["p95_s"], shown["samples"]) == (s.median, s.p95, 4)


def test_a_prompt_is_not_sent_again_to_a_model_within_14_days_and_stats_keep_14_days(settings, engine):
    world = timing_world(engine, sandbox_registry({"sandbox-quick": (100, 150)}))
    with world.begin() as conn:  # a timing set of 15 prompts: one a day uses them all up in 15 days
        keep = [r.id for r in conn.execute(select(TimingPrompt.id).order_by(TimingPrompt.id).limit(15))]
        conn.execute(update(TimingPrompt).where(TimingPrompt.id.not_in(keep)).values(active=False))
    vt = VirtualTime(MIDNIGHT)
    used = []
    for _day in range(16):
        vt.advance(24 * 3600)
        report = asyncio.run(
            run_timing(
                world, settings, run_id="r", clock=vt.now, sleep=vt.sleep, perf_counter=vt.perf_counter
            )
        )
        [sample] = report.samples
        assert sample.fresh_prompt and sample.status == "ok"
        used.append(sample.prompt_id)
    assert set(used) <= set(keep) and len(set(used)) < len(used)  # 16 runs, 15 prompts: some came back...
    for i, prompt in enumerate(used):  # ...but only once its last use had left the 14-day window
        assert all(j - i >= 14 for j in range(i + 1, len(used)) if used[j] == prompt)
    assert latency_stats(world, vt.now())["sandbox-quick"].samples == 14  # the last 14 days only


def test_a_timing_run_for_an_unknown_or_editing_model_is_refused(settings, engine):
    world = timing_world(engine, sandbox_registry({"sandbox-quick": (100, 150)}))
    with pytest.raises(ValueError, match="unknown or inactive"):
        asyncio.run(run_timing(world, settings, run_id="r", model="nope"))


@pytest.fixture
def run(settings, monkeypatch):
    """Invoke `arena ...` against the test database."""
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, list(args), catch_exceptions=False)


def test_latency_run_and_report_and_jobs_from_the_command_line(run, engine):
    timing_world(engine, sandbox_registry({"sandbox-a": (20, 30), "sandbox-b": (40, 60)}))
    one = run("latency", "run", "--model", "sandbox-a")
    assert one.exit_code == 0, one.output
    assert "1 ok, 0 failed" in one.stdout and "sandbox-a: ok" in one.stderr
    every = run("latency", "run", "--json")
    assert every.exit_code == 0 and json.loads(every.stdout)["progress"]["total"] == 2
    report = json.loads(run("latency", "report", "--json").stdout)
    counts = Counter({m["model"]: m["samples"] for m in report["models"]})
    assert report["window_days"] == 14 and counts == {"sandbox-a": 2, "sandbox-b": 1}
    text = run("latency", "report").stdout
    assert "sandbox-a" in text and "median" in text
    jobs = json.loads(run("jobs", "--json").stdout)
    timing = next(j for j in jobs["jobs"] if j["job"] == "timing_run")
    assert timing["last"]["outcome"] == "ok" and timing["last"]["details"]["trigger"] == "cli"
    assert "timing_run" in run("jobs").stdout
    bad = run("latency", "run", "--model", "nope")
    assert bad.exit_code == 2 and "unknown or inactive model 'nope'" in bad.stderr
