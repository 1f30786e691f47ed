"""Uncertainty that does not depend on the anchor: display intervals, pairwise ranks, the sandwich.

Only rating *differences* are identified by the data, so the anchor is a choice of where to read 1000,
not a fact. Everything here is computed on quantities the anchor cannot change:

* **Replicates** (bootstrap draws of the log-strengths, ``(R, n)``) live in the board's own gauge:
  each replicate sums to zero (see :func:`center`). The anchor never enters them.
* **Display intervals** are percentiles of the replicates after ONE shift per board, the point
  estimate's anchor offset (:func:`display_offset`): ``rating = offset + 400/ln10 * theta``. So the
  point ratings keep the methodology's scale (the anchor reads 1000), every model including the
  anchor has an interval of positive width, and changing the anchor moves every endpoint of the
  board by the same constant (never a zero-width interval for the anchor).
* **Ranks** come from pairwise differences with *simultaneous* control: model ``j`` is *above* model
  ``i`` when the simultaneous interval of ``theta_j - theta_i`` lies above zero, the intervals
  ``d -+ c se`` of all pairs holding together with probability ``level`` (max-T: ``c`` is the
  ``level`` quantile of the largest studentized deviation over all pairs, from the joint bootstrap
  replicates or from normal draws with the sandwich covariance; :func:`pairwise_above_simultaneous`,
  :func:`pairwise_above_normal_simultaneous`). So the chance that a board carries any wrong-direction
  claim is at most ``1 - level``, not ``1 - level`` per pair (780 pairs on a 40-model board). A model's
  rank is ``1 +`` the number of models above it (:func:`ranks_from_above`), so several models can
  share a rank. :func:`pairwise_above` and :func:`pairwise_above_normal` are the per-pair rules.
* **Sandwich** (fast): the robust covariance ``A^-1 J A^-1`` of the sum-zero log-strengths, where
  ``A`` is the observed information at the estimate and ``J`` the sum of outer products of per-vote
  scores; ties and cell weights make ``J`` differ from ``A`` (Huber 1967; White 1980). When the votes
  carry clusters (prompts), ``J`` sums outer products of the scores *summed per cluster*, times CR1's
  ``C / (C - 1) * (N - 1) / (N - k)`` (:func:`cluster_sandwich_covariance`, :func:`cluster_correction`;
  Liang and Zeger 1986), so votes on one prompt, which share its stored outputs, count as one unit of evidence.
"""

from __future__ import annotations

import numpy as np

from ratings.aggregate import BoardRows
from ratings.max_t import HUGE, finite_max_t, max_t_above, pairs_to_matrix
from ratings.newton import laplacians, sum_zero_inverse
from ratings.pairs import PairCounts, row_weights
from ratings.scale import DEFAULT_ANCHOR_RATING, ELO_PER_NAT
from ratings.special import expit, normal_ppf

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_MIN_VOTES",
    "board_sandwich_covariance",
    "center",
    "cluster_correction",
    "cluster_sandwich_covariance",
    "difference_variances",
    "display_offset",
    "normal_quantile",
    "pairwise_above",
    "pairwise_above_normal",
    "pairwise_above_normal_simultaneous",
    "pairwise_above_simultaneous",
    "percentile_intervals",
    "provisional_models",
    "ranks_from_above",
    "replicate_intervals",
    "sandwich_covariance",
    "sandwich_intervals",
    "sandwich_standard_errors",
    "vote_level_covariance",
]

DEFAULT_LEVEL = 0.95
#: A model with fewer votes than this on a board is marked provisional. At 300 votes against
#: evenly matched opponents the standard error of a rating is about 20 Elo (a 95% interval of
#: about +-40), the point where a rating usually stops moving by whole ranks.
DEFAULT_MIN_VOTES = 300

#: Differences computed at once by :func:`pairwise_above` (about 32 MB of float64).
_PAIR_BLOCK = 1 << 22


def center(theta: np.ndarray) -> np.ndarray:
    """Log-strengths in the board's gauge: each row (the last axis) shifted to sum to zero."""
    theta = np.asarray(theta, dtype=np.float64)
    return theta - theta.mean(axis=-1, keepdims=True)


def display_offset(theta_hat: np.ndarray, anchor: int, anchor_rating: float = DEFAULT_ANCHOR_RATING) -> float:
    """The board's one shift: ``rating = offset + ELO_PER_NAT * center(theta)`` puts the anchor at ``anchor_rating``."""
    return float(anchor_rating - ELO_PER_NAT * center(theta_hat)[anchor])


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
    x = np.where(np.isposinf(x), HUGE, np.where(np.isneginf(x), -HUGE, x))
    tail = (1.0 - level) / 2.0
    low = np.full(x.shape[1], np.nan)
    high = np.full(x.shape[1], np.nan)
    has = ~np.all(np.isnan(x), axis=0)
    if has.any():
        quantile = np.nanquantile if np.isnan(x[:, has]).any() else np.quantile
        q = quantile(x[:, has], [tail, 1.0 - tail], axis=0)
        low[has], high[has] = q[0], q[1]

    def back(v: np.ndarray) -> np.ndarray:
        return np.where(v > 1e100, np.inf, np.where(v < -1e100, -np.inf, v))

    return back(low), back(high)


def replicate_intervals(
    replicates: np.ndarray, offset: float, level: float = DEFAULT_LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """Display intervals (Elo-like) from ``(R, n)`` sum-zero replicates and the board's one ``offset``."""
    return percentile_intervals(offset + ELO_PER_NAT * np.asarray(replicates, dtype=np.float64), level)


def pairwise_above(replicates: np.ndarray, level: float = DEFAULT_LEVEL) -> np.ndarray:
    """``above[j, i]``: the percentile interval of ``theta_j - theta_i`` over the replicates lies above zero.

    Parameters
    ----------
    replicates : numpy.ndarray
        ``(R, n)`` log-strengths in any per-replicate gauge (differences do not see it); ``+-inf``
        allowed, and a difference that is undefined in a replicate (``inf - inf``, ``nan``) is
        left out of that pair's interval.
    level : float
        Coverage of the difference interval.

    Returns
    -------
    numpy.ndarray of bool
        ``(n, n)``, false on the diagonal; never true both ways.
    """
    x = np.asarray(replicates, dtype=np.float64)
    rounds, n = x.shape
    finite = bool(np.isfinite(x).all())
    above = np.zeros((n, n), dtype=bool)
    step = max(1, _PAIR_BLOCK // max(rounds * n, 1))
    for s in range(0, n, step):
        with np.errstate(invalid="ignore"):
            d = x[:, :, None] - x[:, None, s : s + step]  # (R, n, c): theta_j - theta_i; inf - inf is nan
        if not finite:  # keep the interpolation finite: an infinite difference as a huge number
            d[np.isposinf(d)] = HUGE
            d[np.isneginf(d)] = -HUGE
        above[:, s : s + step] = _lower_quantile_positive(d, (1.0 - level) / 2.0, finite)
    above[np.arange(n), np.arange(n)] = False
    return above


def _lower_quantile_positive(d: np.ndarray, tail: float, finite: bool = False) -> np.ndarray:
    """Whether the ``tail`` quantile along axis 0 (linear interpolation, ``nan`` skipped) is above zero.

    Same answer as ``numpy.nanquantile(d, tail, axis=0) > 0`` without sorting: with ``m`` defined values,
    ``h = (m - 1) tail``, ``k = floor(h)`` and ``c`` values ``<= 0``, the quantile is above zero when
    ``c <= k``, not when ``c >= k + 2``, and when ``c == k + 1`` (rare) it interpolates between the
    largest non-positive value and the smallest positive one.
    """
    m = np.full(d.shape[1:], d.shape[0]) if finite else (~np.isnan(d)).sum(axis=0)
    h = np.maximum(m - 1, 0) * tail
    k = np.floor(h)
    c = (d <= 0.0).sum(axis=0)  # nan compares false
    out = (m > 0) & (c <= k)
    edge = np.nonzero((m > 0) & (c == k + 1) & (h > k))
    if len(edge[0]):
        cols = d[(slice(None), *edge)]  # (R, E)
        lo = np.where(cols <= 0.0, cols, -np.inf).max(axis=0)
        hi = np.where(cols > 0.0, cols, np.inf).min(axis=0)
        frac = (h - k)[edge]
        with np.errstate(invalid="ignore"):
            out[edge] = np.isfinite(hi) & (lo + frac * (hi - lo) > 0.0)
    return out


def difference_variances(cov: np.ndarray) -> np.ndarray:
    """``var(theta_j - theta_i)`` for every pair, ``(n, n)``, from a covariance of the log-strengths."""
    diag = np.diag(cov)
    return np.maximum(diag[:, None] + diag[None, :] - 2.0 * cov, 0.0)


def pairwise_above_normal(theta: np.ndarray, cov: np.ndarray, level: float = DEFAULT_LEVEL) -> np.ndarray:
    """``above[j, i]``: the normal interval ``d -+ z se`` of ``d = theta_j - theta_i`` lies above zero."""
    theta = np.asarray(theta, dtype=np.float64)
    diff = theta[:, None] - theta[None, :]
    above = diff - normal_quantile(level) * np.sqrt(difference_variances(cov)) > 0.0
    above[np.arange(len(theta)), np.arange(len(theta))] = False
    return above


def pairwise_above_simultaneous(
    replicates: np.ndarray, theta_hat: np.ndarray, level: float = DEFAULT_LEVEL
) -> tuple[np.ndarray, float]:
    """``above[j, i]`` with simultaneous control over all pairs, from joint bootstrap replicates (max-T).

    For each pair, ``d = theta_j - theta_i`` at the estimate and ``se`` the replicates' root mean square
    deviation from ``d``
    (infinite replicates left out); ``c`` is the ``level`` quantile over replicates of
    ``max over pairs |d_r - d| / se`` (a replicate with an infinite or undefined difference counts as
    infinite). ``j`` is above ``i`` when ``d - c se > 0``: the claims of a board are all right together
    with probability about ``level``. Differences only, so no anchor enters. Returns ``above`` and ``c``.
    """
    x = np.asarray(replicates, dtype=np.float64)
    theta_hat = center(theta_hat)
    n = x.shape[1]
    i, j = np.triu_indices(n, 1)
    if len(i) == 0 or len(x) < 2:
        return np.zeros((n, n), dtype=bool), normal_quantile(level)
    d = theta_hat[i] - theta_hat[j]
    if np.isfinite(x).all():
        return finite_max_t(x, i, j, d, level)
    with np.errstate(invalid="ignore"):
        dev = (x[:, i] - x[:, j]) - (theta_hat[i] - theta_hat[j])
    finite = np.where(np.isfinite(dev), dev, np.nan)
    se = np.sqrt(np.nanmean(finite**2, axis=0)) if np.isfinite(dev).any() else np.full(len(i), np.nan)
    up, c = max_t_above(d, se, dev, level)
    down, _ = max_t_above(-d, se, dev, level)
    return pairs_to_matrix(n, i, j, up, down), c


#: Normal draws of the sandwich's max-T critical value (seeded: the sandwich board stays deterministic).
MAX_T_DRAWS = 4000


def pairwise_above_normal_simultaneous(
    theta: np.ndarray, cov: np.ndarray, level: float = DEFAULT_LEVEL, *, draws: int = MAX_T_DRAWS
) -> tuple[np.ndarray, float]:
    """``above[j, i]`` with simultaneous control over all pairs under the normal with covariance ``cov`` (max-T).

    ``c`` is the ``level`` quantile of ``max over pairs |Z_j - Z_i| / se_ij`` for ``Z ~ N(0, cov)``
    (``draws`` draws from a fixed seed, so the same board gives the same relation). Returns ``above`` and ``c``.
    """
    theta = center(theta)
    n = len(theta)
    i, j = np.triu_indices(n, 1)
    if len(i) == 0:
        return np.zeros((n, n), dtype=bool), normal_quantile(level)
    values, vectors = np.linalg.eigh(np.asarray(cov, dtype=np.float64))
    root = (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T
    z = np.random.default_rng(0).standard_normal((draws, n)) @ root
    se = np.sqrt(difference_variances(cov)[i, j])
    d = theta[i] - theta[j]
    dev = z[:, i] - z[:, j]
    up, c = max_t_above(d, se, dev, level)
    down, _ = max_t_above(-d, se, dev, level)
    return pairs_to_matrix(n, i, j, up, down), c


def ranks_from_above(above: np.ndarray) -> np.ndarray:
    """Rank of each model: ``1 +`` the number of models above it (column sums of ``above``)."""
    return 1 + np.asarray(above, dtype=bool).sum(axis=0)


def sandwich_covariance(theta: np.ndarray, counts: PairCounts) -> np.ndarray:
    """Robust covariance ``A^-1 J A^-1`` of the sum-zero log-strengths, at ``theta`` (the maximum-likelihood
    estimate) fitted on ``counts`` (``weight_sq`` supplies the per-vote score variance).

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` covariance of ``center(theta)``; :func:`difference_variances` gives the
        variance of any difference ``theta_j - theta_i``.
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


def cluster_sandwich_covariance(theta: np.ndarray, board: BoardRows, counts: PairCounts) -> np.ndarray:
    """Cluster-robust covariance ``A^-1 J_C A^-1`` of the sum-zero log-strengths.

    ``J_C = f * sum_c u_c u_c'`` where ``u_c`` is the score vector of cluster ``c`` (the scores of its
    votes summed) and ``f = cluster_correction(C, n, N)`` the CR1 small-sample factor (``C`` clusters,
    ``N`` votes). With one vote per cluster this is :func:`sandwich_covariance` times HC1's ``N / (N - k)``.
    ``counts`` are ``pair_counts(board)``.

    Raises
    ------
    ValueError
        If the board's rows carry no clusters.
    """
    if board.cluster is None:
        raise ValueError("the board's votes carry no clusters")
    theta = np.asarray(theta, dtype=np.float64)
    n, n_clusters = counts.n_models, board.n_clusters
    i = board.pairs[board.pair, 0].astype(np.int64)
    j = board.pairs[board.pair, 1].astype(np.int64)
    y = np.array([1.0, 0.0, 0.5])[board.outcome]
    g = board.count * row_weights(board) * (y - expit(theta[i] - theta[j]))
    c = board.cluster.astype(np.int64)
    u = np.bincount(c * n + i, weights=g, minlength=n_clusters * n)
    u -= np.bincount(c * n + j, weights=g, minlength=n_clusters * n)
    u = u.reshape(n_clusters, n)
    scale = cluster_correction(n_clusters, n, board.n_votes)
    s = expit(theta[counts.pairs[:, 0]] - theta[counts.pairs[:, 1]])
    a_inv = sum_zero_inverse(laplacians(counts.weight.sum(axis=1) * s * (1.0 - s), counts.pairs, n))
    return a_inv @ (scale * (u.T @ u)) @ a_inv


def cluster_correction(n_clusters: int, n_models: int, n_votes: int) -> float:
    """CR1 variance factor ``C / (C - 1) * (N - 1) / (N - k)`` (``C`` clusters, ``N`` votes, ``k = n_models - 1``;
    Stata's), each part at most 2; 1 without clusters to spare.

    The fit absorbs ``H_c = A^-1 A_c`` of each cluster's score (``A_c`` its information), so under independent
    votes the meat falls short by ``sum_c tr(H_c^2) / k`` on average: ``1 / C`` when a prompt's votes spread
    over all pairs (``A_c ~ A / C``), ``k / N`` for one-vote clusters (HC1). The factor covers both ends; in the
    simulation of ``bench/bench_coverage.py`` it is within 0.0002 of the exact ``k / (k - sum_c tr(H_c^2))``.
    """
    if n_clusters <= 1:
        return 1.0
    k = max(n_models - 1, 0)
    votes = max(n_votes, n_clusters)
    prompts = n_clusters / max(n_clusters - 1.0, n_clusters / 2.0)
    return float(prompts * (votes - 1.0) / max(votes - k, (votes - 1.0) / 2.0))


def board_sandwich_covariance(theta: np.ndarray, board: BoardRows, counts: PairCounts) -> np.ndarray:
    """The board's sandwich: cluster-robust when its rows carry clusters, vote-level otherwise."""
    if board.cluster is not None:
        return cluster_sandwich_covariance(theta, board, counts)
    return sandwich_covariance(theta, counts)


def vote_level_covariance(theta: np.ndarray, board: BoardRows, counts: PairCounts) -> np.ndarray:
    """The vote-level sandwich times the cluster sandwich's small-sample factor: the board's covariance as if
    its votes were independent, on the same footing as :func:`board_sandwich_covariance` (their difference is
    the prompts' share of the variance)."""
    if board.cluster is None:
        return sandwich_covariance(theta, counts)
    scale = cluster_correction(board.n_clusters, counts.n_models, board.n_votes)
    return scale * sandwich_covariance(theta, counts)


def sandwich_standard_errors(theta: np.ndarray, counts: PairCounts) -> np.ndarray:
    """Standard errors of the sum-zero log-strengths (every model, the anchor included, has one)."""
    return np.sqrt(np.maximum(np.diag(sandwich_covariance(theta, counts)), 0.0))


def sandwich_intervals(
    theta: np.ndarray, cov: np.ndarray, offset: float, level: float = DEFAULT_LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """Normal display intervals ``offset + ELO_PER_NAT * (center(theta) -+ z se)``."""
    mid = offset + ELO_PER_NAT * center(theta)
    half = normal_quantile(level) * ELO_PER_NAT * np.sqrt(np.maximum(np.diag(cov), 0.0))
    return mid - half, mid + half


def normal_quantile(level: float) -> float:
    """Two-sided normal critical value (1.96 for 0.95)."""
    return normal_ppf(0.5 + level / 2.0)


def provisional_models(votes: np.ndarray, min_votes: int = DEFAULT_MIN_VOTES) -> np.ndarray:
    """Boolean mask of models with fewer than ``min_votes`` votes."""
    return np.asarray(votes) < min_votes
