"""The vote plan's math: the split of the next votes over pairs of models that most lowers the expected number
of pairs a Bradley-Terry fit orders wrongly, D = sum over pairs of Phi(-|r_i - r_j| / s_ij) (Fisher information
with full covariance, exponentiated-gradient descent on the simplex). Pure numpy/scipy; `arena.voting.matchmaking`
explains the choice and applies the variety rules on top.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from ratings.scale import ELO_PER_NAT

__all__ = ["PLAN_STEPS", "PLAN_STEP_SIZE", "Pair", "expected_misorders", "misorder_benefit", "plan_votes"]

PLAN_STEPS = 150
PLAN_STEP_SIZE = 0.5

Pair = tuple[str, str]


@dataclass(frozen=True)
class _Design:
    """The rated models' pairs as arrays: indices, difference vectors, gaps (nats), p(1-p), and the Fisher
    information of the votes already cast."""

    models: list[str]
    pi: np.ndarray
    pj: np.ndarray
    u: np.ndarray
    gap: np.ndarray
    q: np.ndarray
    base: np.ndarray

    @classmethod
    def build(cls, ratings: Mapping[str, float], pair_votes: Mapping[Pair, float]) -> _Design:
        models = sorted(ratings)
        k = len(models)
        theta = np.array([ratings[m] for m in models]) / ELO_PER_NAT
        pi, pj = np.triu_indices(k, 1)
        gap = np.abs(theta[pi] - theta[pj])
        p = 1.0 / (1.0 + np.exp(-gap))
        q = p * (1.0 - p)
        u = np.zeros((k, len(pi)))
        u[pi, np.arange(len(pi))] = 1.0
        u[pj, np.arange(len(pi))] = -1.0
        design = cls(models, pi, pj, u, gap, q, np.zeros((k, k)))
        return replace(design, base=design.information(design.per_pair(pair_votes)))

    def pairs(self) -> list[Pair]:
        return [(self.models[i], self.models[j]) for i, j in zip(self.pi, self.pj, strict=True)]

    def per_pair(self, values: Mapping[Pair, float]) -> np.ndarray:
        """`values` as an array in pair order (0 for pairs it leaves out)."""
        return np.array([float(values.get(pair, 0.0)) for pair in self.pairs()])

    def information(self, votes: np.ndarray) -> np.ndarray:
        """Fisher information of `votes` per pair (added to the votes already cast)."""
        return self.base + (self.u * (votes * self.q)) @ self.u.T

    def spread(self, votes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(covariance of the ratings, variance of each pair's difference) with `votes` more per pair."""
        pi, pj = self.pi, self.pj
        cov = np.linalg.pinv(self.information(votes))
        return cov, np.maximum(cov[pi, pi] + cov[pj, pj] - 2.0 * cov[pi, pj], 1e-12)

    def benefit(self, alloc: np.ndarray) -> np.ndarray:
        """-dD/dn per pair: how much one more planned vote on each pair lowers the expected misorders D."""
        pi, pj = self.pi, self.pj
        cov, var = self.spread(alloc)
        z = self.gap / np.sqrt(var)
        a = z * np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) / (2.0 * var)
        m = cov @ self.u  # column (i, j) is C (e_i - e_j)
        s = (m * a) @ m.T  # sum_ij a_ij ((e_i - e_j)' C (e_k - e_l))**2 = S_kk + S_ll - 2 S_kl
        return self.q * (s[pi, pi] + s[pj, pj] - 2.0 * s[pi, pj])


def misorder_benefit(
    ratings: Mapping[str, float], pair_votes: Mapping[Pair, float], planned: Mapping[Pair, float]
) -> dict[Pair, float]:
    """How much one more vote on each pair lowers the expected number of misordered pairs, given the votes
    cast (`pair_votes`) and planned (`planned`); ratings in Elo. Exposed for tests and the audit."""
    design = _Design.build(ratings, pair_votes)
    return dict(zip(design.pairs(), design.benefit(design.per_pair(planned)).tolist(), strict=True))


def expected_misorders(ratings: Mapping[str, float], pair_votes: Mapping[Pair, float]) -> float:
    """Expected number of pairs a Bradley-Terry fit of these votes orders wrongly, if `ratings` (Elo) are the
    truth (normal approximation): sum over pairs of Phi(-|gap| / se of the difference)."""
    from scipy.special import ndtr

    design = _Design.build(ratings, {})
    _, var = design.spread(design.per_pair(pair_votes))
    return float(np.sum(ndtr(-design.gap / np.sqrt(var))))


def plan_votes(
    ratings: Mapping[str, float], pair_votes: Mapping[Pair, float], batch: float, *, steps: int = PLAN_STEPS
) -> dict[Pair, float]:
    """Shares (summing to 1) of the next `batch` votes over all pairs of the rated models, by exponentiated-
    gradient descent of the expected misorders (see `arena.voting.matchmaking`). `ratings` are in Elo, `pair_votes`
    counts votes already cast per sorted pair (`arena.voting.matchmaking.pair_key`)."""
    if len(ratings) < 2:
        return {}
    design = _Design.build(ratings, pair_votes)
    n_pairs = len(design.pi)
    alloc = np.full(n_pairs, batch / n_pairs)
    for _ in range(steps):
        benefit = design.benefit(alloc)
        top = benefit.max()
        if not np.isfinite(top) or top <= 0:
            break
        alloc = alloc * np.exp(PLAN_STEP_SIZE * benefit / top)
        alloc *= batch / alloc.sum()
    share = alloc / alloc.sum()
    return dict(zip(design.pairs(), share.tolist(), strict=True))
