"""A seeded simulation of the retirement rule on prompts with known discrimination.

Models have true Elo-like ratings and the board ranks them in that order. Each prompt has a strength ``s``:
on it, model i beats model j with the Bradley-Terry probability of ``s`` times their rating gap, so ``s = 0``
is a coin flip and ``s = 1`` a prompt that separates models exactly as the board does. A month gives each
prompt a Poisson number of votes between uniformly drawn model pairs, 10% of them ties. The rule of
`prompts_taxonomy.retirement` then flags prompts; we count discriminating prompts flagged (false
retirements) and coin flips spared (missed retirements), and the exact expected rates beside them.

Run ``python -m prompts_taxonomy.retirement_sim`` to print the rates at the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from prompts_taxonomy.retirement import (
    DEFAULT_ALPHA,
    DEFAULT_MIN_DECISIVE,
    FavoriteTally,
    flag_probability,
    judge_discrimination,
)

DEFAULT_RATINGS = tuple(1000.0 + 40.0 * i for i in range(8))  # 8 models, 40 Elo apart: 280 top to bottom
TIE_RATE = 0.10

__all__ = ["DEFAULT_RATINGS", "SimulatedMonth", "favorite_win_probability", "simulate_month"]


def favorite_win_probability(ratings: Sequence[float], strength: float) -> float:
    """P(the better-rated model wins a decisive vote) on a prompt of `strength`, pairs drawn uniformly."""
    r = np.asarray(ratings, dtype=float)
    i, j = np.triu_indices(len(r), k=1)
    gap = np.abs(r[i] - r[j]) * strength
    return float(np.mean(1.0 / (1.0 + 10.0 ** (-gap / 400.0))))


@dataclass(frozen=True)
class SimulatedMonth:
    """Per prompt: true strength, decisive votes, favorite wins, whether judged and flagged, and the exact
    probability that the rule flags it given its decisive votes."""

    strength: np.ndarray
    decisive: np.ndarray
    favorite_wins: np.ndarray
    judged: np.ndarray
    flagged: np.ndarray
    flag_chance: np.ndarray

    def _rate(self, mask: np.ndarray, of: np.ndarray) -> tuple[float, float, float, int]:
        """(observed rate, expected rate, standard error of the count's mean, number judged)."""
        sel = mask & self.judged
        n = int(sel.sum())
        if n == 0:
            return 0.0, 0.0, 0.0, 0
        expected = of[sel]
        observed = self.flagged[sel] if of is self.flag_chance else ~self.flagged[sel]
        sd = float(np.sqrt(np.sum(expected * (1 - expected)))) / n
        return float(observed.mean()), float(expected.mean()), sd, n

    def false_retirement(self, low: float = 0.0, high: float = np.inf) -> tuple[float, float, float, int]:
        """Share of judged discriminating prompts (strength in [low, high), > 0) that the rule flags."""
        mask = (self.strength > 0) & (self.strength >= low) & (self.strength < high)
        return self._rate(mask, self.flag_chance)

    def missed_retirement(self) -> tuple[float, float, float, int]:
        """Share of judged coin-flip prompts that the rule spares."""
        return self._rate(self.strength == 0, 1.0 - self.flag_chance)


def simulate_month(
    strengths: Sequence[float],
    *,
    ratings: Sequence[float] = DEFAULT_RATINGS,
    mean_votes: float = 150.0,
    alpha: float = DEFAULT_ALPHA,
    min_decisive: int = DEFAULT_MIN_DECISIVE,
    seed: int = 0,
) -> SimulatedMonth:
    """Simulate one month of votes on prompts of the given strengths and apply the rule to each."""
    rng = np.random.default_rng(seed)
    r = np.asarray(ratings, dtype=float)
    pair_i, pair_j = np.triu_indices(len(r), k=1)
    s = np.asarray(strengths, dtype=float)
    decisive = np.zeros(len(s), dtype=int)
    wins = np.zeros(len(s), dtype=int)
    for p, strength in enumerate(s):
        votes = int(rng.poisson(mean_votes))
        pairs = rng.integers(len(pair_i), size=votes)
        gap = np.abs(r[pair_i[pairs]] - r[pair_j[pairs]]) * strength
        p_fav = 1.0 / (1.0 + 10.0 ** (-gap / 400.0))
        decided = rng.random(votes) >= TIE_RATE
        decisive[p] = int(decided.sum())
        wins[p] = int((rng.random(votes) < p_fav)[decided].sum())
    judged = np.zeros(len(s), dtype=bool)
    flagged = np.zeros(len(s), dtype=bool)
    chance = np.zeros(len(s))
    for p in range(len(s)):
        verdict = judge_discrimination(
            FavoriteTally(int(wins[p]), int(decisive[p] - wins[p])), alpha=alpha, min_decisive=min_decisive
        )
        judged[p], flagged[p] = verdict.evaluated, verdict.flagged
        if verdict.evaluated:
            chance[p] = flag_probability(favorite_win_probability(r, s[p]), int(decisive[p]), alpha=alpha)
    return SimulatedMonth(s, decisive, wins, judged, flagged, chance)


def _main() -> None:
    rng = np.random.default_rng(1)
    strengths = np.concatenate([rng.uniform(0.5, 1.5, 2000), np.zeros(2000)])
    month = simulate_month(strengths, seed=2)
    print(f"defaults: alpha {DEFAULT_ALPHA}, min decisive {DEFAULT_MIN_DECISIVE}; ratings {DEFAULT_RATINGS}")
    print(f"judged: {int(month.judged.sum())} of {len(strengths)} prompts (mean 150 votes, 10% ties)")
    rate, expected, _, n = month.missed_retirement()
    print(f"missed retirement (coin flips spared): {rate:.3f} (exact expectation {expected:.3f}, n={n})")
    rate, expected, _, n = month.false_retirement()
    print(f"false retirement (discriminating flagged): {rate:.3f} (exact expectation {expected:.3f}, n={n})")
    for low, high in ((0.5, 0.75), (0.75, 1.0), (1.0, 1.25), (1.25, 1.5)):
        rate, expected, _, n = month.false_retirement(low, high)
        p = favorite_win_probability(DEFAULT_RATINGS, (low + high) / 2)
        print(f"  strength [{low}, {high}) (favorite ~{p:.2f}): {rate:.3f} (exact {expected:.3f}, n={n})")


if __name__ == "__main__":
    _main()
