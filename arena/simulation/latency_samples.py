"""Simulated generation-time samples for the demo, so its speed columns and charts are not blank.

The demo's sandbox models answer in microseconds, so real timing runs would say nothing. Instead, like the
simulated votes, the demo writes samples that follow the methodology's schedule (4 runs a day at random times
over the last 14 days, one call per active text-to-image model per run) with seconds drawn from a log-normal
whose median and p95 are the model's `latency_ms` parameters in models.toml. Every such sample carries a run id
starting with `simulated-`, which is how pages and exports tell them from measured ones. Only sandbox models
get them: an external or provider model in the demo stays "never timed" until a real timing run measures it.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import Engine, func, insert, select

from arena.db.tables import LatencySample, Model
from arena.leaderboard.latency import TIMED_MODALITY as MODALITY

SIMULATED_RUN = "simulated-"
DEFAULT_MEDIAN_S, DEFAULT_P95_S = 3.0, 6.0
Z95 = 1.6448536269514722  # the standard normal's 95th percentile
_SAMPLES = LatencySample.__table__  # type: ignore[attr-defined]


def _latency(params: dict[str, Any]) -> tuple[float, float]:
    """(median, p95) in seconds from a model's `latency_ms` parameter, defaults when absent or malformed."""
    spec = params.get("latency_ms") if isinstance(params, dict) else None
    try:
        median = float(spec["median"]) / 1000  # type: ignore[index]
        p95 = float(spec["p95"]) / 1000  # type: ignore[index]
    except (TypeError, KeyError, ValueError):
        return DEFAULT_MEDIAN_S, DEFAULT_P95_S
    if not (0 < median < p95):
        return DEFAULT_MEDIAN_S, DEFAULT_P95_S
    return median, p95


def has_simulated_timing(engine: Engine) -> bool:
    """Whether simulated timing samples were already written (the demo writes them once)."""
    with engine.connect() as conn:
        n = conn.execute(
            select(func.count()).select_from(_SAMPLES).where(_SAMPLES.c.run_id.startswith(SIMULATED_RUN))
        ).scalar()
    return bool(n)


def simulate_timing(
    engine: Engine,
    now: datetime,
    *,
    seed: int = 0,
    days: int = 14,
    runs_per_day: int = 4,
    failure_rate: float = 0.01,
) -> int:
    """Write simulated samples for every active text-to-image sandbox model over the `days` before `now`; returns
    how many. Run times are uniform within each day (as the scheduler's random times are)."""
    rng = np.random.default_rng(seed)
    with engine.connect() as conn:
        models = conn.execute(
            select(Model.slug, Model.params)
            .where(Model.active == True, Model.modality == MODALITY, Model.adapter == "sandbox")  # noqa: E712
            .order_by(Model.slug)
        ).all()
    rows = []
    start = now - timedelta(days=days)
    for day in range(days):
        for k in range(runs_per_day):
            at = start + timedelta(days=day, seconds=float(rng.uniform(0, 86_400)))
            if at > now:
                continue
            run_id = f"{SIMULATED_RUN}{day:02d}-{k}"
            for slug, params in models:
                median, p95 = _latency(params or {})
                sigma = math.log(p95 / median) / Z95
                failed = bool(rng.random() < failure_rate)
                seconds = None if failed else float(median * math.exp(sigma * rng.standard_normal()))
                rows.append(
                    {
                        "run_id": run_id,
                        "model_slug": slug,
                        "timing_prompt_id": None,
                        "started_at": at,
                        "status": "failed" if failed else "ok",
                        "seconds": seconds,
                        "first_byte_seconds": None if failed else seconds * 0.9,
                        "width": None if failed else 1024,
                        "height": None if failed else 1024,
                        "error_kind": "simulated" if failed else None,
                        "error_message": "a simulated failure (demo)" if failed else None,
                    }
                )
    if rows:
        with engine.begin() as conn:
            conn.execute(insert(_SAMPLES), rows)
    return len(rows)
