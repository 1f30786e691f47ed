"""Intervals of a proportion: the Wilson score interval, shared by the judge's agreement rates and the
leaderboard's head-to-head win rates."""

from __future__ import annotations

import numpy as np

__all__ = ["wilson_interval"]


def wilson_interval(successes: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (stays inside [0, 1], sane at 0 and n successes).
    `successes` may be a sum of shares in [0, 1] (a tie counting half, or a judge's share of orders)."""
    from scipy import stats

    if n <= 0:
        return (float("nan"), float("nan"))
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if successes <= 0 else max(0.0, float(centre - half))  # exact ends, not rounding residue
    high = 1.0 if successes >= n else min(1.0, float(centre + half))
    return (low, high)
