"""How sure a board is: probability of being best / in the top k, settled adjacent pairs, votes to settle.

* ``P(best)`` and ``P(top k)`` are direct counts over draws of the log-strengths: the bootstrap
  replicates when the board has them, otherwise draws from the normal with the sandwich covariance.
  A replicate where several models tie for the top splits its count between them, so ``P(best)``
  sums to 1; ``P(top k)`` counts every model tied at the k-th place (it sums to at least k).
* Adjacent pairs (neighbours in rating order) are *settled* when the higher one's lead is
  significant at the board's level (the published ``above`` relation).
* Votes to settle an unsettled pair: with ``d`` the estimated gap (nats) and ``v`` its sandwich
  variance, ``m`` new votes between the two add ``m * w`` to the precision of ``d`` (Sherman-Morrison
  on the information; ``w = p (1 - p) * efficiency``, ``p`` the expected win probability and
  ``efficiency = (sum w)^2 / (N sum w^2)`` of the pair's vote weights). The pair is settled once
  ``z^2 / (1/v + m w) < d^2``, so ``m = (z^2 / d^2 - 1/v) / w``, assuming the gap stays as estimated;
  ``z`` is the ranks' simultaneous (max-T) critical value, so "settled" means what the ranks mean.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ratings.intervals import difference_variances, normal_quantile
from ratings.pairs import PairCounts

__all__ = [
    "TOP_K",
    "Certainty",
    "board_certainty",
    "normal_draws",
    "rank_probabilities",
    "votes_to_settle",
]

TOP_K = 3
NORMAL_DRAWS = 4000


@dataclass(frozen=True, eq=False)
class Certainty:
    """Per model (``counts.models`` order): ``p_best``, ``p_top`` (top ``TOP_K``), and for each model
    the pair it forms with the next model down in rating order: ``settled_below`` and
    ``votes_to_settle`` (0 when settled, ``inf`` when the ratings are equal; NaN for the last model)."""

    p_best: np.ndarray
    p_top: np.ndarray
    settled_below: np.ndarray
    votes_to_settle: np.ndarray
    source: str  # "bootstrap" or "normal"


def rank_probabilities(draws: np.ndarray, top_k: int = TOP_K) -> tuple[np.ndarray, np.ndarray]:
    """``(P(best), P(top k))`` of each column of ``(R, n)`` draws; rows with a NaN are left out."""
    draws = np.asarray(draws, dtype=np.float64)
    draws = draws[~np.isnan(draws).any(axis=1)]
    n = draws.shape[1]
    if len(draws) == 0:
        return np.full(n, np.nan), np.full(n, np.nan)
    is_max = draws == draws.max(axis=1, keepdims=True)
    p_best = (is_max / is_max.sum(axis=1, keepdims=True)).mean(axis=0)
    k = min(top_k, n)
    kth = np.partition(draws, n - k, axis=1)[:, n - k : n - k + 1]  # the k-th largest of each row
    p_top = (draws >= kth).mean(axis=0)
    return p_best, p_top


def normal_draws(theta: np.ndarray, cov: np.ndarray, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_draws, n)`` draws from the normal centred at ``theta`` with the (singular) covariance ``cov``.

    The symmetric square root is used: unlike eigenvectors (whose signs are arbitrary) it is a continuous
    function of ``cov``, so the same board computed along two paths gets the same draws.
    """
    values, vectors = np.linalg.eigh(np.asarray(cov, dtype=np.float64))
    root = (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T
    return np.asarray(theta)[None, :] + rng.standard_normal((n_draws, len(values))) @ root


def votes_to_settle(
    gap: float,
    variance: float,
    p: float,
    level: float,
    efficiency: float = 1.0,
    critical: float | None = None,
) -> float:
    """New votes between two models until the gap ``gap`` (nats, variance ``variance``) is significant.

    0 when it already is; ``inf`` when ``gap`` is 0 or ``p (1 - p)`` is 0.
    """
    z = normal_quantile(level) if critical is None or not np.isfinite(critical) else critical
    gap = abs(gap)
    if variance <= 0.0 or gap * gap >= z * z * variance:
        return 0.0
    per_vote = p * (1.0 - p) * efficiency
    if gap == 0.0 or per_vote <= 0.0:
        return float("inf")
    return float(max(0.0, (z * z / (gap * gap) - 1.0 / variance) / per_vote))


def _efficiency(counts: PairCounts, i: int, j: int) -> float:
    """``(sum w)^2 / (N sum w^2)`` of the votes between ``i`` and ``j`` (1 for unweighted votes)."""
    lo, hi = min(i, j), max(i, j)
    hit = np.flatnonzero((counts.pairs[:, 0] == lo) & (counts.pairs[:, 1] == hi))
    if len(hit) == 0:
        return 1.0
    n, w, w2 = counts.votes[hit].sum(), counts.weight[hit].sum(), counts.weight_sq[hit].sum()
    return float(w * w / (n * w2)) if n > 0 and w2 > 0 else 1.0


def board_certainty(
    counts: PairCounts,
    theta: np.ndarray,
    above: np.ndarray,
    covariance: np.ndarray,
    *,
    level: float,
    replicates: np.ndarray | None = None,
    rng: np.random.Generator | None = None,
    critical: float | None = None,
) -> Certainty:
    """The certainty figures of one fitted board (see the module docstring); ``critical`` is the ranks'
    simultaneous critical value (settling a pair means its lead exceeds that many standard errors)."""
    theta = np.asarray(theta, dtype=np.float64)
    if replicates is not None:
        draws, source = replicates, "bootstrap"
    else:
        # drawn in model-name order, so the figures do not depend on the order models were met in the votes
        named = np.argsort(np.asarray(counts.models, dtype=object))
        back = np.argsort(named)
        cov = np.asarray(covariance)[np.ix_(named, named)]
        draws = normal_draws(theta[named], cov, NORMAL_DRAWS, rng or np.random.default_rng(0))[:, back]
        source = "normal"
    p_best, p_top = rank_probabilities(draws)
    n = len(theta)
    order = sorted(range(n), key=lambda k: (-theta[k], counts.models[k]))
    var = difference_variances(covariance)
    settled = np.zeros(n, dtype=bool)
    needed = np.full(n, np.nan)
    for hi, lo in itertools.pairwise(order):
        settled[hi] = bool(above[hi, lo])
        gap = float(theta[hi] - theta[lo])
        p = float(1.0 / (1.0 + np.exp(-gap)))
        if settled[hi]:
            needed[hi] = 0.0
        else:
            needed[hi] = votes_to_settle(
                gap, float(var[hi, lo]), p, level, _efficiency(counts, hi, lo), critical
            )
            needed[hi] = max(needed[hi], 1.0) if needed[hi] == 0.0 else needed[hi]
    return Certainty(p_best, p_top, settled, needed, source)
