"""How sure a board is: probability of being best / in the top k, settled adjacent pairs, votes to settle.

* ``P(best)`` and ``P(top k)`` are direct counts over draws of the log-strengths from an empirical-Bayes
  posterior (:func:`shrunk_posterior`): the sum-zero estimate ``t`` with sandwich covariance ``S`` is
  combined with a normal prior ``N(0, tau^2)`` on each (centred) strength, ``tau^2`` estimated from the
  board by moments (``|t|^2 = (n - 1) tau^2 + tr S``). Draws centred at ``t`` itself (the old rule) crown
  the model that is highest *partly because its errors were favourable* too often (the winner's curse): a
  reported 0.80-0.95 was truly best 77% of the time. The shrunk draws are calibrated (bench/bench_certainty.py).
  Both interval methods use these draws (the sandwich covariance of the board; the cluster-robust sandwich
  matches the cluster bootstrap, bench/bench_coverage.py), ``NORMAL_DRAWS`` of them in model-name order from a
  fixed seed, so the figures are deterministic and do not depend on the anchor. A draw where several models
  tie for the top splits its count between them, so ``P(best)`` sums to 1; ``P(top k)`` counts every model
  tied at the k-th place (it sums to at least k).
* Adjacent pairs (neighbours in rating order) are *settled* when the higher one's lead is
  significant at the board's simultaneous critical value ``z`` (the published ``above`` relation).
* Votes to settle an unsettled pair (:func:`settle_probability`, :func:`votes_to_settle`): the votes ``m``
  between the two that give a ``SETTLE_PROBABILITY`` (80%) chance that the pair is settled afterwards,
  *in either direction* (the lead may turn out to be the other one's). The gap's variance ``v`` splits
  into a prompt part ``v_c`` and a vote part ``v_vote = v - v_c``: new votes are cast on the same prompts
  (the same stored outputs), so they shrink only the vote part (``1 / v_vote + m w`` is its precision after
  them, ``w = p (1 - p) * efficiency``). ``v_c`` is what the cluster-robust sandwich adds to the vote-level
  one (with the same small-sample factor), averaged over every pair of the board: the per-pair difference of
  two variance estimates is too noisy to use (0 when the votes carry no prompts). The gap on these
  prompts is uncertain, ``N(d, v_vote)``, so the future estimate is ``N(d, m w v_vote / (1/v_vote + m w))``
  and its standard error ``se_m = sqrt(1 / (1/v_vote + m w) + v_c)``; the chance of settling is
  ``P(|d_m| > z se_m)``. ``m`` is the smallest count reaching the probability (searched on a grid, then
  bisected); ``inf`` when no count up to ``MAX_SETTLE_VOTES`` reaches it (a gap near zero, or one smaller
  than the prompt part lets any number of votes resolve).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ratings.intervals import difference_variances, normal_quantile
from ratings.pairs import PairCounts

__all__ = [
    "MAX_SETTLE_VOTES",
    "SETTLE_PROBABILITY",
    "TOP_K",
    "Certainty",
    "board_certainty",
    "normal_draws",
    "prompt_variance",
    "rank_probabilities",
    "settle_probability",
    "shrunk_posterior",
    "votes_to_settle",
]

TOP_K = 3
NORMAL_DRAWS = 4000
#: The quoted votes to settle give this chance that the pair is settled (either way) after them.
SETTLE_PROBABILITY = 0.80
#: No quote above this many votes between one pair: beyond it the figure is ``inf`` ("more than").
MAX_SETTLE_VOTES = 1_000_000


@dataclass(frozen=True, eq=False)
class Certainty:
    """Per model (``counts.models`` order): ``p_best``, ``p_top`` (top ``TOP_K``), and for each model
    the pair it forms with the next model down in rating order: ``settled_below`` and
    ``votes_to_settle`` (0 when settled, ``inf`` when no count up to ``MAX_SETTLE_VOTES`` gives a
    ``probability`` chance of settling; NaN for the last model)."""

    p_best: np.ndarray
    p_top: np.ndarray
    settled_below: np.ndarray
    votes_to_settle: np.ndarray
    source: str  # "posterior": draws from the empirical-Bayes posterior (the sandwich covariance)
    tau2: float = float("nan")  # the prior variance of the centred strengths the draws used
    probability: float = SETTLE_PROBABILITY


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


def shrunk_posterior(theta: np.ndarray, cov: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Empirical-Bayes posterior ``(mean, covariance, tau^2)`` of the sum-zero log-strengths.

    Prior: the centred strengths ``N(0, tau^2 P)`` (``P = I - 11'/n``, the centring); data: the centred
    estimate ``t ~ N(theta, S)``. ``tau^2 = max(0, (|t|^2 - tr S) / (n - 1))`` (moments). Then
    ``mean = tau^2 (tau^2 P + S)^+ t`` and ``cov = tau^2 P - tau^4 (tau^2 P + S)^+`` restricted to sum zero.
    With ``tau^2 = 0`` (the spread is all noise) every strength is 0 and the draws tie.
    """
    t = np.asarray(theta, dtype=np.float64)
    t = t - t.mean()
    s = np.asarray(cov, dtype=np.float64)
    n = len(t)
    if n < 2:
        return t, np.zeros((n, n)), 0.0
    tau2 = max(0.0, float((t @ t - np.trace(s)) / (n - 1)))
    if tau2 == 0.0:
        return np.zeros(n), np.zeros((n, n)), 0.0
    centring = np.eye(n) - 1.0 / n
    ones = np.full((n, n), 1.0 / n)
    # tau^2 P + S has the ones vector as its null space: adding 11'/n makes it invertible on the same subspace
    inner = np.linalg.inv(tau2 * centring + s + ones) - ones
    mean = tau2 * (inner @ t)
    post = tau2 * centring - tau2 * tau2 * inner
    post = (post + post.T) / 2.0
    return mean - mean.mean(), post, tau2


def settle_probability(
    m: np.ndarray | float,
    gap: float,
    variance: float,
    per_vote: float,
    critical: float,
    vote_variance: float | None = None,
) -> np.ndarray:
    """Chance that a pair with estimated gap ``gap`` is settled (either way) after ``m`` more votes between them.

    ``variance`` is the gap's (cluster-robust) variance, ``vote_variance`` its vote-level part (default:
    all of it), ``per_vote`` the precision one vote adds, ``critical`` the board's ``z``. See the module
    docstring: ``P(|d_m| > z se_m)`` with ``d_m ~ N(gap, m w v_vote / (1/v_vote + m w))``.
    """
    from scipy.special import ndtr

    m = np.asarray(m, dtype=np.float64)
    vv = variance if vote_variance is None else min(vote_variance, variance)
    vc = max(variance - vv, 0.0)
    if vv <= 0.0:
        return np.where(abs(gap) > critical * np.sqrt(vc), 1.0, 0.0) * np.ones_like(m)
    added = m * per_vote
    precision = 1.0 / vv + added
    spread = np.sqrt(added * vv / precision)
    se = np.sqrt(1.0 / precision + vc)
    g = abs(gap)
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.where(spread > 0, ndtr((g - critical * se) / spread), (g > critical * se).astype(float))
        down = np.where(spread > 0, ndtr((-g - critical * se) / spread), 0.0)
    return up + down


_GRID = np.concatenate([[0.0], np.geomspace(1.0, MAX_SETTLE_VOTES, 121)])


def votes_to_settle(
    gap: float,
    variance: float,
    p: float,
    level: float,
    efficiency: float = 1.0,
    critical: float | None = None,
    *,
    vote_variance: float | None = None,
    probability: float = SETTLE_PROBABILITY,
) -> float:
    """The fewest new votes between two models that give a ``probability`` chance of settling the pair.

    ``gap`` (nats) with cluster-robust variance ``variance`` (vote-level part ``vote_variance``, default all
    of it); ``p`` the expected win probability, ``efficiency`` that of the pair's vote weights; ``critical``
    the board's simultaneous critical value (default the per-pair normal one at ``level``). 0 when the
    pair is already settled; ``inf`` when no count up to ``MAX_SETTLE_VOTES`` reaches ``probability``.
    """
    z = normal_quantile(level) if critical is None or not np.isfinite(critical) else critical
    if variance <= 0.0 or gap * gap > z * z * variance:
        return 0.0
    per_vote = p * (1.0 - p) * efficiency
    if per_vote <= 0.0:
        return float("inf")
    chance = settle_probability(_GRID, gap, variance, per_vote, z, vote_variance)
    hit = np.flatnonzero(chance >= probability)
    if len(hit) == 0:
        return float("inf")
    k = int(hit[0])
    if k == 0:
        return 0.0
    lo, hi = int(np.floor(_GRID[k - 1])), int(np.ceil(_GRID[k]))
    while hi - lo > 1:  # integer bisection between the grid points (the chance rises there)
        mid = (lo + hi) // 2
        if settle_probability(mid, gap, variance, per_vote, z, vote_variance) >= probability:
            hi = mid
        else:
            lo = mid
    return float(hi)


def _efficiency(counts: PairCounts, i: int, j: int) -> float:
    """``(sum w)^2 / (N sum w^2)`` of the votes between ``i`` and ``j`` (1 for unweighted votes)."""
    lo, hi = min(i, j), max(i, j)
    hit = np.flatnonzero((counts.pairs[:, 0] == lo) & (counts.pairs[:, 1] == hi))
    if len(hit) == 0:
        return 1.0
    n, w, w2 = counts.votes[hit].sum(), counts.weight[hit].sum(), counts.weight_sq[hit].sum()
    return float(w * w / (n * w2)) if n > 0 and w2 > 0 else 1.0


def prompt_variance(covariance: np.ndarray, vote_covariance: np.ndarray) -> float:
    """The prompt part of a gap's variance: cluster-robust minus vote-level, averaged over every pair (>= 0)."""
    n = len(covariance)
    if n < 2:
        return 0.0
    i, j = np.triu_indices(n, 1)
    excess = difference_variances(covariance)[i, j] - difference_variances(vote_covariance)[i, j]
    return max(float(excess.mean()), 0.0)


def _rank_chances(
    counts: PairCounts,
    theta: np.ndarray,
    covariance: np.ndarray,
    among: np.ndarray | None,
    rng: np.random.Generator | None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """``(P(best), P(top k), tau^2)`` over the models in ``among`` (all when None; NaN for the rest).

    One model with a few votes has a near-infinite variance; left in, it makes ``tr S`` dwarf the spread, the
    prior variance ``tau^2`` is estimated 0 and every model's chance of being best reads ``1 / n``. So the
    chances are drawn over ``among`` alone: its block of the covariance, re-centred within the block (only
    differences between these models matter, and the centring over every model had added a common shift).
    """
    n = len(theta)
    idx = np.arange(n) if among is None else np.flatnonzero(among)
    p_best, p_top = np.full(n, np.nan), np.full(n, np.nan)
    if len(idx) == 0:
        return p_best, p_top, float("nan")
    # drawn in model-name order, so the figures do not depend on the order models were met in the votes
    names = np.asarray(counts.models, dtype=object)[idx]
    named = idx[np.argsort(names)]
    back = np.argsort(np.argsort(names))
    cov = np.asarray(covariance, dtype=np.float64)[np.ix_(named, named)]
    if among is not None:
        centre = np.eye(len(idx)) - np.full((len(idx), len(idx)), 1.0 / len(idx))
        cov = centre @ cov @ centre
    mean, post, tau2 = shrunk_posterior(theta[named], cov)
    draws = normal_draws(mean, post, NORMAL_DRAWS, rng or np.random.default_rng(0))[:, back]
    p_best[idx], p_top[idx] = rank_probabilities(draws)
    return p_best, p_top, tau2


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
    probability: float = SETTLE_PROBABILITY,
    vote_covariance: np.ndarray | None = None,
    among: np.ndarray | None = None,
) -> Certainty:
    """The certainty figures of one fitted board (see the module docstring); ``critical`` is the ranks'
    simultaneous critical value (settling a pair means its lead exceeds that many standard errors).

    ``covariance`` is the board's sandwich (cluster-robust when its votes carry prompts). ``replicates`` are
    not used for ``P(best)`` any more (draws centred at the estimate are overconfident); the argument stays
    so callers need not change. ``rng`` seeds the posterior draws (default seed 0). ``vote_covariance`` is the
    vote-level sandwich with the cluster sandwich's small-sample factor (:func:`prompt_variance`); without
    it (votes without prompts) new votes are taken to shrink all of a gap's variance. ``among`` (a boolean
    mask, e.g. the settled models) limits ``P(best)`` and ``P(top k)`` to those models; the others get NaN.
    """
    del replicates
    theta = np.asarray(theta, dtype=np.float64)
    n = len(theta)
    p_best, p_top, tau2 = _rank_chances(counts, theta, covariance, among, rng)
    order = sorted(range(n), key=lambda k: (-theta[k], counts.models[k]))
    var = difference_variances(covariance)
    prompt_part = 0.0 if vote_covariance is None else prompt_variance(covariance, vote_covariance)
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
                gap,
                float(var[hi, lo]),
                p,
                level,
                _efficiency(counts, hi, lo),
                critical,
                vote_variance=max(float(var[hi, lo]) - prompt_part, 0.0),
                probability=probability,
            )
            needed[hi] = max(needed[hi], 1.0) if needed[hi] == 0.0 else needed[hi]
    return Certainty(p_best, p_top, settled, needed, "posterior", tau2, probability)
