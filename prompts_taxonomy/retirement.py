"""Prompt retirement statistics: does a prompt still tell the models apart?

For every kept vote on a prompt the *favorite* is the model placed higher on the current overall board of
the vote's modality. A prompt's favorite win rate is the favorite's share of its decisive votes (ties, both
good or both bad, are counted beside it and left out of the rate).

The rule: a prompt is flagged when an exact two-sided binomial test of its favorite wins against 0.5 fails to
reject at level ``alpha``, and only once it has at least ``min_decisive`` decisive votes, so a new or rarely
served prompt is never retired for lack of data. With p0 = 0.5 the binomial distribution is symmetric, so
the two-sided p-value is twice the smaller tail and the test fails to reject exactly when the central
Clopper-Pearson interval at level ``1 - alpha`` contains 0.5: the reported interval and the decision agree.

Defaults (``ARENA_RETIREMENT_ALPHA`` = 0.10, ``ARENA_RETIREMENT_MIN_DECISIVE_VOTES`` = 100) and why: the rule
retires unless the prompt shows it discriminates, so ``alpha`` is the chance that a coin-flip prompt escapes
one month's review (it is reviewed again next month with more votes), while the false retirement of a real
but modest discriminator shrinks as ``alpha`` grows. At 100 decisive votes a prompt whose favorite truly wins
65% is retired wrongly 8.8% of the time at alpha 0.10 against 17% at 0.05 (`flag_probability`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats

DEFAULT_ALPHA = 0.10
DEFAULT_MIN_DECISIVE = 100
DECISIVE = ("model_a", "model_b")
TIES = ("tie", "tie (bothbad)")

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_MIN_DECISIVE",
    "Discrimination",
    "FavoriteTally",
    "binomial_p_value",
    "board_positions",
    "clopper_pearson",
    "flag_probability",
    "judge_discrimination",
    "tally_favorites",
]


def binomial_p_value(k: int, n: int, p: float = 0.5) -> float:
    """Exact two-sided binomial p-value of ``k`` successes in ``n`` trials against success rate ``p``.

    Sums the probabilities of every outcome no more likely than the observed one (the "minlike" method of
    ``scipy.stats.binomtest``); 1.0 when ``n`` is 0.
    """
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    if p == 0.5:
        return float(_p_values_all_k(n)[k])
    return float(stats.binomtest(k, n, p, alternative="two-sided").pvalue)


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) central interval for a binomial rate; (0, 1) when ``n`` is 0."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    tail = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else float(stats.beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1.0 - tail, k + 1, n - k))
    return low, high


@lru_cache(maxsize=4096)
def _p_values_all_k(n: int) -> np.ndarray:
    """The two-sided p-value against 0.5 for every k in 0..n (twice the smaller tail, capped at 1: with a
    symmetric null this equals scipy's "minlike" two-sided p-value). Cached per n; read-only."""
    k = np.arange(n + 1)
    lower = stats.binom.cdf(k, n, 0.5)
    upper = stats.binom.sf(k - 1, n, 0.5)
    values = np.minimum(1.0, 2.0 * np.minimum(lower, upper))
    values.setflags(write=False)
    return values


def flag_probability(p_true: float, n: int, *, alpha: float = DEFAULT_ALPHA) -> float:
    """Exact probability that the rule flags a prompt with ``n`` decisive votes whose favorite truly wins with
    probability ``p_true`` (for ``p_true`` = 0.5 this is one minus the missed-retirement rate)."""
    if n <= 0:
        return 0.0
    keep_region = _p_values_all_k(n) >= alpha
    return float(stats.binom.pmf(np.arange(n + 1), n, p_true)[keep_region].sum())


def board_positions(ratings: Mapping[str, float]) -> dict[str, int]:
    """Position of each model on a board (0 = top): by rating, highest first, ties by slug.

    The board's ``rank`` column is interval-based and shares ranks between close models, so "ranked higher"
    is taken as the board's own order, by the rating point estimate.
    """
    ordered = sorted(ratings, key=lambda m: (-float(ratings[m]), m))
    return {model: i for i, model in enumerate(ordered)}


@dataclass(frozen=True)
class FavoriteTally:
    """Vote counts of one prompt from the favorite's side."""

    favorite_wins: int = 0
    favorite_losses: int = 0
    ties: int = 0
    both_bad: int = 0
    unranked: int = 0  # votes where a model is not on the board: no favorite, left out

    @property
    def decisive(self) -> int:
        """Votes with a winner."""
        return self.favorite_wins + self.favorite_losses


def tally_favorites(
    votes: Iterable[tuple[str, str, str, int]], positions: Mapping[str, int]
) -> FavoriteTally:
    """Count votes, given as (model_a, model_b, winner, count) rows, by whether the favorite (the model with
    the lower board position) won; ties are counted apart, votes with a model off the board as unranked."""
    wins = losses = ties = both_bad = unranked = 0
    for model_a, model_b, winner, count in votes:
        if model_a not in positions or model_b not in positions or model_a == model_b:
            unranked += count
        elif winner == "tie":
            ties += count
        elif winner == "tie (bothbad)":
            both_bad += count
        elif winner in DECISIVE:
            favorite = model_a if positions[model_a] < positions[model_b] else model_b
            won = model_a if winner == "model_a" else model_b
            if won == favorite:
                wins += count
            else:
                losses += count
        else:
            raise ValueError(f"unknown winner {winner!r}")
    return FavoriteTally(wins, losses, ties, both_bad, unranked)


@dataclass(frozen=True)
class Discrimination:
    """The rule's verdict on one prompt, with everything an operator needs to check it."""

    favorite_wins: int
    decisive: int
    ties: int
    both_bad: int
    win_rate: float | None
    ci_low: float
    ci_high: float
    p_value: float
    evaluated: bool  # enough decisive votes for the rule to apply
    flagged: bool
    reason: str


def judge_discrimination(
    tally: FavoriteTally, *, alpha: float = DEFAULT_ALPHA, min_decisive: int = DEFAULT_MIN_DECISIVE
) -> Discrimination:
    """Apply the rule to one prompt's tally (see the module docstring)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be in (0, 1)")
    k, n = tally.favorite_wins, tally.decisive
    p_value = binomial_p_value(k, n)
    low, high = clopper_pearson(k, n, 1.0 - alpha)
    rate = k / n if n else None
    evaluated = n >= max(1, min_decisive)
    flagged = evaluated and p_value >= alpha
    if not evaluated:
        reason = f"too few decisive votes ({n} < {min_decisive}): not judged"
    elif flagged:
        reason = (
            f"favorite win rate {k}/{n} = {k / n:.2f} [{low:.2f}, {high:.2f}] is indistinguishable from "
            f"chance (p = {p_value:.3f} >= {alpha:g})"
        )
    elif k / n < 0.5:
        reason = (
            f"favorite loses more often than chance (p = {p_value:.3g}): discriminates, against the board"
        )
    else:
        reason = f"favorite wins {k / n:.2f} (p = {p_value:.3g} < {alpha:g}): discriminates"
    return Discrimination(
        favorite_wins=k,
        decisive=n,
        ties=tally.ties,
        both_bad=tally.both_bad,
        win_rate=rate,
        ci_low=low,
        ci_high=high,
        p_value=p_value,
        evaluated=evaluated,
        flagged=flagged,
        reason=reason,
    )
