"""Settled models and the rank family: a model is settled on a board when it has at least ``min_votes`` votes there
and both ends of its interval are finite. Ranks compare settled models only.

Why: one model with three votes leaves some bootstrap replicates at infinity; the max-T critical value of all
pairs then becomes infinite (a replicate with an infinite difference counts as infinite) and no lead anywhere on the
board is significant, so every model shares rank 1 -- the newcomer included, at the top by point estimate. Taking the
simultaneous family over the settled models only keeps their ranks meaningful; an unsettled model claims nothing
and is ranked after every settled one (rank = 1 + the number of settled models).
"""

from __future__ import annotations

import numpy as np

from ratings.intervals import (
    pairwise_above_normal_simultaneous,
    pairwise_above_simultaneous,
    provisional_models,
)

__all__ = ["settled_models", "settled_ranks", "settled_relation"]


def settled_models(votes: np.ndarray, low: np.ndarray, high: np.ndarray, min_votes: int) -> np.ndarray:
    """Boolean mask: at least ``min_votes`` votes and a finite interval at both ends."""
    return ~provisional_models(votes, min_votes) & np.isfinite(low) & np.isfinite(high)


def settled_relation(
    settled: np.ndarray,
    theta: np.ndarray,
    level: float,
    *,
    replicates: np.ndarray | None = None,
    covariance: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """``above`` (full ``(n, n)``, False wherever an unsettled model is involved) and the max-T critical value of
    the pairs of settled models: from the bootstrap ``replicates`` or, without them, normal draws with
    ``covariance`` (the sandwich)."""
    idx = np.flatnonzero(settled)
    n = len(theta)
    above = np.zeros((n, n), dtype=bool)
    if replicates is not None:
        sub, critical = pairwise_above_simultaneous(replicates[:, idx], theta[idx], level)
    elif covariance is not None:
        sub, critical = pairwise_above_normal_simultaneous(theta[idx], covariance[np.ix_(idx, idx)], level)
    else:
        raise ValueError("the settled relation needs the bootstrap replicates or the covariance")
    above[np.ix_(idx, idx)] = sub
    return above, float(critical)


def settled_ranks(above: np.ndarray, settled: np.ndarray) -> np.ndarray:
    """1 + the number of models above each settled model; 1 + the number of settled models for the others."""
    ranks = 1 + np.asarray(above, dtype=bool).sum(axis=0)
    return np.where(settled, ranks, 1 + int(np.sum(settled)))
