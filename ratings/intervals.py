"""Uncertainty: percentile and sandwich intervals, rank bounds, provisional flags.

Every interval is for a model's rating *relative to the anchor* (the only thing the data pins
down), so the anchor's own interval is a single point.

* Bootstrap percentile (default): the 2.5% and 97.5% quantiles of the replicates' ratings
  (:mod:`ratings.bootstrap`). Replicates where a rating ran off to infinity count as infinite.
* Sandwich (fast): a normal interval with the robust covariance ``A^-1 J A^-1``, where ``A`` is
  the observed information (minus the Hessian) at the estimate and ``J`` the sum of outer
  products of per-vote scores. Ties, which carry less information than wins, and cell weights
  make ``J`` differ from ``A``; the sandwich accounts for both (Huber 1967; White 1980).

Rank is ``1 + the number of models whose lower bound exceeds this model's upper bound``: the
best rank the model could still hold given the intervals (several models can share a rank).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, ndtri

from ratings.newton import laplacians, sum_zero_inverse
from ratings.pairs import PairCounts

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_MIN_VOTES",
    "percentile_intervals",
    "provisional_models",
    "rank_from_intervals",
    "sandwich_covariance",
    "sandwich_standard_errors",
]

DEFAULT_LEVEL = 0.95
#: A model with fewer votes than this on a board is marked provisional. At 300 votes against
#: evenly matched opponents the standard error of a rating is about 20 Elo (a 95% interval of
#: about +-40), the point where a rating usually stops moving by whole ranks.
DEFAULT_MIN_VOTES = 300

_HUGE = 1e300


def percentile_intervals(samples: np.ndarray, level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed percentile interval of each column of ``samples``.

    Parameters
    ----------
    samples : numpy.ndarray
        ``(R, n)`` replicates; ``+-inf`` are allowed and ``nan`` entries are ignored.
    level : float
        Coverage, e.g. 0.95.

    Returns
    -------
    low, high : numpy.ndarray
        ``(n,)`` bounds (linear interpolation between order statistics; ``+-inf`` when the
        quantile falls among or next to infinite replicates; ``nan`` for all-``nan`` columns).
    """
    x = np.asarray(samples, dtype=np.float64)
    x = np.where(np.isposinf(x), _HUGE, np.where(np.isneginf(x), -_HUGE, x))
    tail = (1.0 - level) / 2.0
    low = np.full(x.shape[1], np.nan)
    high = np.full(x.shape[1], np.nan)
    has = ~np.all(np.isnan(x), axis=0)
    if has.any():
        q = np.nanquantile(x[:, has], [tail, 1.0 - tail], axis=0)
        low[has], high[has] = q[0], q[1]

    def back(v: np.ndarray) -> np.ndarray:
        return np.where(v > 1e100, np.inf, np.where(v < -1e100, -np.inf, v))

    return back(low), back(high)


def sandwich_covariance(theta: np.ndarray, counts: PairCounts) -> np.ndarray:
    """Robust covariance ``A^-1 J A^-1`` of the log-strengths (valid for contrasts).

    Parameters
    ----------
    theta : numpy.ndarray
        The maximum-likelihood estimate.
    counts : PairCounts
        The counts it was fitted on (``weight_sq`` supplies the per-vote score variance).

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` covariance; use it for differences such as ``theta_k - theta_anchor``.
    """
    i, j = counts.pairs[:, 0], counts.pairs[:, 1]
    n = counts.n_models
    s = expit(theta[i] - theta[j])
    curvature = counts.weight.sum(axis=1) * s * (1.0 - s)
    # score of a vote from i's side is w (y - s) with y = 1 (i won), 0 (j won), 1/2 (tie)
    sq = counts.weight_sq
    meat = sq[:, 0] * (1.0 - s) ** 2 + sq[:, 1] * s**2 + sq[:, 2] * (0.5 - s) ** 2
    a_inv = sum_zero_inverse(laplacians(curvature, counts.pairs, n))
    j_mat = laplacians(meat, counts.pairs, n)
    return a_inv @ j_mat @ a_inv


def sandwich_standard_errors(theta: np.ndarray, counts: PairCounts, anchor: int) -> np.ndarray:
    """Standard errors of ``theta_k - theta_anchor`` (zero for the anchor)."""
    cov = sandwich_covariance(theta, counts)
    diag = np.diag(cov)
    var = diag + diag[anchor] - 2.0 * cov[:, anchor]
    return np.sqrt(np.maximum(var, 0.0))


def normal_quantile(level: float) -> float:
    """Two-sided normal critical value (1.96 for 0.95)."""
    return float(ndtri(0.5 + level / 2.0))


def rank_from_intervals(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``1 + #{m : low_m > high_k}`` for every model ``k`` (an undefined upper bound counts as +inf)."""
    lows = np.sort(np.asarray(low, dtype=np.float64)[~np.isnan(low)])
    highs = np.where(np.isnan(high), np.inf, high)
    return 1 + len(lows) - np.searchsorted(lows, highs, side="right")


def provisional_models(votes: np.ndarray, min_votes: int = DEFAULT_MIN_VOTES) -> np.ndarray:
    """Boolean mask of models with fewer than ``min_votes`` votes."""
    return np.asarray(votes) < min_votes
