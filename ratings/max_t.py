"""The max-T step of the simultaneous rank intervals (:func:`ratings.intervals.pairwise_above_simultaneous` and
its normal twin): ``c``, the ``level`` quantile of the largest studentized deviation over all pairs, and the
pairs whose difference stays above zero by ``c`` standard errors."""

from __future__ import annotations

import numpy as np

__all__ = ["HUGE", "finite_max_t", "max_t_above", "pairs_to_matrix"]

#: Stands for an infinite value where quantiles must interpolate finite numbers.
HUGE = 1e300


def max_t_above(
    diff: np.ndarray, se: np.ndarray, deviations: np.ndarray, level: float
) -> tuple[np.ndarray, float]:
    """``diff - c se > 0`` per pair with ``c`` the ``level`` quantile of ``max_pairs |deviation| / se``."""
    usable = np.isfinite(se) & (se > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(deviations[:, usable]) / se[usable]
    t = np.where(np.isnan(t), np.inf, t)  # an undefined difference in a replicate counts against any claim
    worst = np.minimum(t.max(axis=1), HUGE) if t.shape[1] else np.zeros(len(t))
    c = float(np.quantile(worst, level)) if len(worst) else np.inf
    c = np.inf if c > 1e100 else c
    above = np.zeros(len(diff), dtype=bool)
    above[usable] = diff[usable] - c * se[usable] > 0.0
    return above, c


def pairs_to_matrix(n: int, i: np.ndarray, j: np.ndarray, up: np.ndarray, down: np.ndarray) -> np.ndarray:
    """``above[i, j] = up`` and ``above[j, i] = down`` for pairs ``i < j``."""
    above = np.zeros((n, n), dtype=bool)
    above[i, j] = up
    above[j, i] = down
    return above


def finite_max_t(
    x: np.ndarray, i: np.ndarray, j: np.ndarray, d: np.ndarray, level: float
) -> tuple[np.ndarray, float]:
    """:func:`ratings.intervals.pairwise_above_simultaneous` when every replicate is finite (the usual board):
    the same numbers in a third of the passes over the ``(R, pairs)`` deviations (no masks, and the largest
    studentized deviation, the same for both directions, found once), in place in one buffer and one scratch."""
    rounds = len(x)
    dev = x[:, i]
    dev -= x[:, j]
    dev -= d
    scratch = np.square(dev)
    se = np.sqrt(scratch.sum(axis=0) / rounds)
    usable = se > 0
    if not usable.all():
        dev = dev[:, usable]
    np.abs(dev, out=dev)
    dev /= se[usable]
    worst = np.minimum(dev.max(axis=1), HUGE) if dev.shape[1] else np.zeros(rounds)
    c = float(np.quantile(worst, level))
    c = np.inf if c > 1e100 else c
    up = np.zeros(len(d), dtype=bool)
    down = np.zeros(len(d), dtype=bool)
    up[usable] = d[usable] - c * se[usable] > 0.0
    down[usable] = -d[usable] - c * se[usable] > 0.0
    return pairs_to_matrix(x.shape[1], i, j, up, down), c
