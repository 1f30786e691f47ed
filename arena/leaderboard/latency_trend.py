"""One model's generation-time distribution over the last 14 days and its trend, from the timing samples.

The headline figures are `arena.leaderboard.latency`'s (median, p05-p95 of successful samples, no trimming); this adds a
histogram, the daily medians, and the change of the last 7 days' median against the 7 days before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

import numpy as np
from sqlalchemy import Connection, select

from arena.db.tables import LatencySample
from arena.db.types import as_utc
from arena.leaderboard.latency import WINDOW, LatencyStats, summarize_latency

__all__ = ["DailyTiming", "TimingDetail", "timing_detail"]

BINS = 12


@dataclass(frozen=True)
class DailyTiming:
    """Successful samples and their median on one UTC day."""

    day: date
    median: float | None
    samples: int
    failures: int


@dataclass(frozen=True)
class TimingDetail:
    """Distribution, daily medians and trend of one model's generation time."""

    stats: LatencyStats
    histogram: list[tuple[float, float, int]]
    daily: list[DailyTiming]
    recent_median: float | None
    previous_median: float | None

    @property
    def change(self) -> float | None:
        """Median of the last 7 days minus the median of the 7 days before (seconds)."""
        if self.recent_median is None or self.previous_median is None:
            return None
        return self.recent_median - self.previous_median


def timing_detail(conn: Connection, slug: str, now: datetime) -> TimingDetail:
    """Statistics of `slug`'s timing samples in (now - 14 days, now]."""
    now = as_utc(now)
    rows = conn.execute(
        select(LatencySample.started_at, LatencySample.status, LatencySample.seconds).where(
            LatencySample.model_slug == slug,
            LatencySample.started_at > now - WINDOW,
            LatencySample.started_at <= now,
        )
    ).all()
    ok = [(t, float(s)) for t, status, s in rows if status == "ok" and s is not None]
    failed = [t for t, status, s in rows if not (status == "ok" and s is not None)]
    seconds = [s for _t, s in ok]
    stats = summarize_latency(slug, seconds, len(failed))
    histogram: list[tuple[float, float, int]] = []
    if seconds:
        counts, edges = np.histogram(np.asarray(seconds), bins=BINS)
        histogram = [(float(edges[k]), float(edges[k + 1]), int(counts[k])) for k in range(len(counts))]
    first = (now - WINDOW).date()
    days = [first + timedelta(days=k) for k in range((now.date() - first).days + 1)]
    daily = []
    for day in days:
        values = [s for t, s in ok if t.date() == day]
        daily.append(
            DailyTiming(
                day=day,
                median=float(np.median(values)) if values else None,
                samples=len(values),
                failures=sum(1 for t in failed if t.date() == day),
            )
        )
    week = now - timedelta(days=7)
    recent = [s for t, s in ok if t > week]
    previous = [s for t, s in ok if t <= week]
    return TimingDetail(
        stats=stats,
        histogram=histogram,
        daily=daily,
        recent_median=float(np.median(recent)) if recent else None,
        previous_median=float(np.median(previous)) if previous else None,
    )
