"""The demo's simulated timing samples: the methodology's schedule (4 runs a day over 14 days, one call per
active text-to-image model), seconds whose median and p95 follow each model's `latency_ms`, run ids that say
they are simulated, written once; and the leaderboard's time column then shows them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import select
from sqlmodel import Session

from arena.db.tables import LatencySample, Model
from arena.leaderboard.latency import latency_stats
from arena.simulation.latency_samples import has_simulated_timing, simulate_timing

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
PROFILE = {"model-0": (1000, 2000), "model-1": (4000, 9000)}


def _profile(world) -> None:
    with Session(world) as session:
        for slug, (median, p95) in PROFILE.items():
            model = session.get(Model, slug)
            model.params = {**(model.params or {}), "latency_ms": {"median": median, "p95": p95}}
            session.add(model)
        session.commit()


def test_samples_follow_the_schedule_and_each_models_latency(world):
    _profile(world)
    assert not has_simulated_timing(world)
    written = simulate_timing(world, NOW, seed=3, days=14, runs_per_day=4, failure_rate=0.0)
    with Session(world) as session:
        rows = session.exec(select(LatencySample)).scalars().all()
        t2i = sorted(
            m.slug
            for m in session.exec(select(Model)).scalars()
            if m.active and m.modality == "text_to_image" and m.adapter == "sandbox"
        )
    assert written == len(rows) == 14 * 4 * len(t2i)
    assert {r.model_slug for r in rows} == set(t2i)  # no editing model is timed
    assert all(r.run_id.startswith("simulated-") for r in rows)
    assert len({r.run_id for r in rows}) == 56
    times = [r.started_at.replace(tzinfo=UTC) if r.started_at.tzinfo is None else r.started_at for r in rows]
    assert min(times) >= NOW - timedelta(days=14) and max(times) <= NOW
    for slug, (median, p95) in PROFILE.items():
        seconds = np.array([r.seconds for r in rows if r.model_slug == slug])
        # 56 draws: the sample median within 25% and the sample p95 within 40% of the configured ones
        assert abs(np.median(seconds) / (median / 1000) - 1) < 0.25, (slug, np.median(seconds))
        assert abs(np.percentile(seconds, 95) / (p95 / 1000) - 1) < 0.4, (slug, np.percentile(seconds, 95))
    assert has_simulated_timing(world)
    stats = latency_stats(world, NOW)
    assert stats["model-1"].samples == 56 and stats["model-1"].median > stats["model-0"].median


def test_failures_are_recorded_as_failed_calls(world):
    simulate_timing(world, NOW, seed=1, days=2, runs_per_day=4, failure_rate=1.0)
    with Session(world) as session:
        rows = session.exec(select(LatencySample)).scalars().all()
    assert rows and all(r.status == "failed" and r.seconds is None for r in rows)
    assert all(s.samples == 0 and s.failure_rate == 1.0 for s in latency_stats(world, NOW).values())


def test_a_model_that_is_not_sandbox_stays_never_timed(world):
    """Issue 28 item 7: an external model registered in the demo got 55 made-up timing samples."""
    with Session(world) as session:
        model = session.get(Model, "model-1")
        model.adapter = "external"
        session.add(model)
        session.commit()
    written = simulate_timing(world, NOW, seed=2, days=3, runs_per_day=4, failure_rate=0.0)
    with Session(world) as session:
        slugs = {r.model_slug for r in session.exec(select(LatencySample)).scalars()}
    assert written > 0 and "model-0" in slugs
    assert "model-1" not in slugs
    assert "model-1" not in latency_stats(world, NOW) or latency_stats(world, NOW)["model-1"].samples == 0
