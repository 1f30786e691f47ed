"""Seeded vote simulator with known true strengths, for tests and benchmarks.

Pairs are drawn uniformly among distinct models with a random A/B side. The outcome follows
Bradley-Terry with ties: with ``s = 1 / (1 + exp(theta_b - theta_a))`` a tie happens with
probability ``t = tie_rate * 4 s (1 - s)`` and A wins with probability ``s - t / 2``. Evenly
matched models tie at ``tie_rate``; lopsided pairs rarely tie; and A's expected score (a tie
counting half) is exactly ``s``, so counting ties as half wins estimates ``theta`` without bias.

:func:`simulate_clustered_votes` adds what a real arena has: a fixed pool of prompts, one stored output
per model and prompt, and a prompt-by-model effect ``e[p, m] ~ N(0, effect_sd^2)`` (nats) fixed per output,
so votes on one prompt are correlated. Its truth is the population-marginal strengths
(:func:`marginal_strengths`): what a fit on infinitely many prompts from the same population would give.
"""

from __future__ import annotations

import numpy as np

from ratings.bt import fit_bradley_terry
from ratings.pairs import PairCounts
from ratings.votes import A_WINS, B_WINS, TIE

__all__ = ["marginal_strengths", "outcomes_with_effects", "simulate_clustered_votes", "simulate_votes"]


def simulate_votes(
    theta: np.ndarray, n_votes: int, rng: np.random.Generator, *, tie_rate: float = 0.1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Simulate ``n_votes`` votes among ``len(theta)`` models.

    Parameters
    ----------
    theta : numpy.ndarray
        True log-strengths (natural-log scale).
    n_votes : int
        Number of votes.
    rng : numpy.random.Generator
        Source of randomness.
    tie_rate : float
        Tie probability between evenly matched models, in ``[0, 0.5]``.

    Returns
    -------
    model_a, model_b, outcome : numpy.ndarray
        Model indices and outcome codes (:data:`~ratings.votes.A_WINS`, ...).
    """
    if not 0.0 <= tie_rate <= 0.5:
        raise ValueError(f"tie_rate must be in [0, 0.5] (got {tie_rate})")
    theta = np.asarray(theta, dtype=np.float64)
    n = len(theta)
    if n < 2:
        raise ValueError("need at least two models")
    a = rng.integers(0, n, size=n_votes)
    b = rng.integers(0, n - 1, size=n_votes)
    b = b + (b >= a)
    s = 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
    return a, b, _outcomes(s, tie_rate, rng)


def _outcomes(s: np.ndarray, tie_rate: float, rng: np.random.Generator) -> np.ndarray:
    t = tie_rate * 4.0 * s * (1.0 - s)
    u = rng.random(len(s))
    return np.where(u < s - t / 2.0, A_WINS, np.where(u < s + t / 2.0, TIE, B_WINS)).astype(np.int8)


def simulate_clustered_votes(
    theta: np.ndarray,
    n_votes: int,
    rng: np.random.Generator,
    *,
    n_prompts: int = 360,
    effect_sd: float = 0.5,
    tie_rate: float = 0.1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Simulate votes on a fixed pool of ``n_prompts`` prompts with a prompt-by-model effect.

    Each vote draws a prompt uniformly from the pool and a pair uniformly; model ``m`` on prompt ``p``
    plays with strength ``theta[m] + e[p, m]``, ``e`` drawn once per call (one stored output per model
    and prompt). Returns ``model_a, model_b, outcome, prompt`` (prompt indices).
    """
    if not 0.0 <= tie_rate <= 0.5:
        raise ValueError(f"tie_rate must be in [0, 0.5] (got {tie_rate})")
    theta = np.asarray(theta, dtype=np.float64)
    n = len(theta)
    if n < 2 or n_prompts < 1:
        raise ValueError("need at least two models and one prompt")
    effect = rng.normal(0.0, effect_sd, size=(n_prompts, n))
    a = rng.integers(0, n, size=n_votes)
    b = rng.integers(0, n - 1, size=n_votes)
    b = b + (b >= a)
    prompt = rng.integers(0, n_prompts, size=n_votes)
    return a, b, outcomes_with_effects(theta, effect, a, b, prompt, rng, tie_rate=tie_rate), prompt


def outcomes_with_effects(
    theta: np.ndarray,
    effect: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    prompt: np.ndarray,
    rng: np.random.Generator,
    *,
    tie_rate: float = 0.1,
) -> np.ndarray:
    """Outcomes of votes ``a`` vs ``b`` on ``prompt`` with the prompt-by-model ``effect`` (``(n_prompts, n)``):
    more votes on the same stored outputs, as :func:`simulate_clustered_votes` casts them."""
    strength = np.asarray(theta, dtype=np.float64)[None, :] + effect
    s = 1.0 / (1.0 + np.exp(strength[prompt, b] - strength[prompt, a]))
    return _outcomes(s, tie_rate, rng)


def marginal_strengths(theta: np.ndarray, effect_sd: float, *, nodes: int = 64) -> np.ndarray:
    """Population-marginal log-strengths (sum zero) of :func:`simulate_clustered_votes`.

    With infinitely many prompts, a pair ``(i, j)`` met uniformly scores ``p_ij = E[s(theta_i - theta_j + d)]``
    for ``i``, where ``d = e_i - e_j ~ N(0, 2 effect_sd^2)`` (Gauss-Hermite quadrature with ``nodes`` points).
    The marginal strengths are the Bradley-Terry fit to those expected scores, every pair with equal weight
    (the simulator's uniform pairs): the limit of the estimate as prompts and votes grow. They are close to
    ``theta`` shrunk towards zero (the attenuation a random effect causes), so comparing intervals with
    ``theta`` itself would mistake that attenuation for undercoverage.
    """
    theta = np.asarray(theta, dtype=np.float64)
    n = len(theta)
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    i, j = np.triu_indices(n, 1)
    gap = theta[i] - theta[j]
    sd = np.sqrt(2.0) * effect_sd
    p = (w[None, :] / (1.0 + np.exp(-(gap[:, None] + sd * x[None, :])))).sum(axis=1)
    scale = 1e6
    weight = np.column_stack([scale * p, scale * (1.0 - p), np.zeros_like(p)])
    counts = PairCounts(
        models=tuple(str(k) for k in range(n)),
        pairs=np.column_stack([i, j]).astype(np.int32),
        votes=np.rint(weight).astype(np.int64),
        weight=weight,
        weight_sq=weight,
    )
    fit = fit_bradley_terry(counts)
    return fit.theta - fit.theta.mean()
