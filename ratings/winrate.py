"""Head-to-head tables for the model pages: observed win rates and expected win probabilities.

The observed table counts what happened between each pair of models; the expected probability
is what the ratings imply, ``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))`` (a tie counting
as half a win), so ``P(i beats j) + P(j beats i) = 1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ratings.pairs import PairCounts
from ratings.scale import ELO_PER_NAT

__all__ = ["WinRates", "expected_win_matrix", "expected_win_probability", "win_rate_matrix"]


@dataclass(frozen=True, eq=False)
class WinRates:
    """Observed results between every two models (row model against column model).

    Attributes
    ----------
    models : tuple of str
        Row and column order.
    wins : numpy.ndarray
        ``(n, n)`` votes the row model won against the column model.
    ties : numpy.ndarray
        ``(n, n)`` tied votes (symmetric).
    games : numpy.ndarray
        ``(n, n)`` votes between the two (symmetric).
    """

    models: tuple[str, ...]
    wins: np.ndarray
    ties: np.ndarray
    games: np.ndarray

    @property
    def rate(self) -> np.ndarray:
        """``(wins + ties / 2) / games``; ``nan`` where two models never met."""
        score = self.wins + 0.5 * self.ties
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.games > 0, score / np.where(self.games > 0, self.games, 1), np.nan)


def win_rate_matrix(counts: PairCounts, *, weighted: bool = False) -> WinRates:
    """Observed win table from pair counts.

    Parameters
    ----------
    counts : PairCounts
        A board's counts (``Board.counts``).
    weighted : bool
        Use the fitted vote weights instead of raw vote counts.
    """
    n = counts.n_models
    src = counts.weight if weighted else counts.votes.astype(np.float64)
    i, j = counts.pairs[:, 0], counts.pairs[:, 1]
    wins = np.zeros((n, n))
    ties = np.zeros((n, n))
    wins[i, j] = src[:, 0]
    wins[j, i] = src[:, 1]
    ties[i, j] = ties[j, i] = src[:, 2]
    games = wins + wins.T + ties
    return WinRates(models=counts.models, wins=wins, ties=ties, games=games)


def expected_win_probability(rating_i: float | np.ndarray, rating_j: float | np.ndarray) -> np.ndarray:
    """``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))`` (broadcasts)."""
    diff = (np.asarray(rating_j, dtype=np.float64) - np.asarray(rating_i, dtype=np.float64)) / 400.0
    return 1.0 / (1.0 + np.power(10.0, np.clip(diff, -300.0, 300.0)))


def expected_win(rating_a: float, rating_b: float) -> float:
    """Bradley-Terry probability that `a` beats `b` (a tie counting half) from two Elo-like ratings."""
    return 1.0 / (1.0 + math.exp(-(rating_a - rating_b) / ELO_PER_NAT))


def expected_win_matrix(ratings: np.ndarray) -> np.ndarray:
    """``(n, n)`` matrix of :func:`expected_win_probability` (row beats column; 0.5 on the diagonal)."""
    r = np.asarray(ratings, dtype=np.float64)
    return expected_win_probability(r[:, None], r[None, :])
