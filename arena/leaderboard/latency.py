"""Generation-time statistics per model over the last 14 days of successful timing samples.

Median, p05, p25, p75 and p95 of the raw distribution (no outlier trimming), the sample count and the failure
rate, as the methodology publishes them. Percentiles use numpy's default linear interpolation.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from sqlalchemy import Engine, select

from arena.db.tables import LatencySample

WINDOW = timedelta(days=14)
TIMED_MODALITY = "text_to_image"  # the methodology times text-to-image endpoints only


@dataclass(frozen=True)
class LatencyStats:
    """One model's generation-time statistics in seconds."""

    model: str
    median: float | None
    p05: float | None
    p25: float | None
    p75: float | None
    p95: float | None
    samples: int
    failures: int

    @property
    def failure_rate(self) -> float:
        """Failed calls over all calls in the window."""
        total = self.samples + self.failures
        return self.failures / total if total else 0.0

    def to_dict(self) -> dict[str, float | int | str | None]:
        """JSON-ready form, failure rate included (`arena latency report --json`)."""
        return {**dataclasses.asdict(self), "failure_rate": self.failure_rate}


def summarize_latency(model: str, seconds: list[float], failures: int) -> LatencyStats:
    """Statistics of one model's successful samples plus its failure count."""
    if not seconds:
        return LatencyStats(model, None, None, None, None, None, 0, failures)
    p05, p25, p50, p75, p95 = (float(v) for v in np.percentile(np.asarray(seconds), [5, 25, 50, 75, 95]))
    return LatencyStats(model, p50, p05, p25, p75, p95, len(seconds), failures)


def latency_stats(engine: Engine, now: datetime, *, window: timedelta = WINDOW) -> dict[str, LatencyStats]:
    """Statistics for every model with samples in (now - window, now]."""
    seconds: dict[str, list[float]] = defaultdict(list)
    failures: dict[str, int] = defaultdict(int)
    with engine.connect() as conn:
        rows = conn.execute(
            select(LatencySample.model_slug, LatencySample.status, LatencySample.seconds).where(
                LatencySample.started_at > now - window, LatencySample.started_at <= now
            )
        ).all()
    for slug, status, value in rows:
        if status == "ok" and value is not None:
            seconds[slug].append(float(value))
        else:
            failures[slug] += 1
    return {
        slug: summarize_latency(slug, seconds.get(slug, []), failures.get(slug, 0))
        for slug in set(seconds) | set(failures)
    }
