"""Seeded vote simulator with known true strengths, for tests and benchmarks.

Pairs are drawn uniformly among distinct models with a random A/B side. The outcome follows
Bradley-Terry with ties: with ``s = 1 / (1 + exp(theta_b - theta_a))`` a tie happens with
probability ``t = tie_rate * 4 s (1 - s)`` and A wins with probability ``s - t / 2``. Evenly
matched models tie at ``tie_rate``; lopsided pairs rarely tie; and A's expected score (a tie
counting half) is exactly ``s``, so counting ties as half wins estimates ``theta`` without bias.
"""

from __future__ import annotations

import numpy as np

from ratings.votes import A_WINS, B_WINS, TIE

__all__ = ["simulate_votes"]


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
    t = tie_rate * 4.0 * s * (1.0 - s)
    u = rng.random(n_votes)
    outcome = np.where(u < s - t / 2.0, A_WINS, np.where(u < s + t / 2.0, TIE, B_WINS)).astype(np.int8)
    return a, b, outcome
