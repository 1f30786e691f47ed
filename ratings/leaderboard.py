"""What a computed leaderboard looks like: rows, exclusions, the board, a modality's set of boards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ratings.bt import BTFit
from ratings.errors import RatingsError
from ratings.pairs import PairCounts
from ratings.weighting import BoardKey

__all__ = ["Board", "BoardRow", "BoardSet", "Exclusion", "IntervalMethod"]

IntervalMethod = Literal["bootstrap", "sandwich"]


@dataclass(frozen=True)
class BoardRow:
    """One model on a board. ``rating``/``ci_*`` are Elo-like; counts are raw votes.

    ``rank`` is ``1 +`` the number of models in ``above``: those whose lead over this model is
    significant with all pairs of the board controlled together (the simultaneous, max-T interval of the
    rating difference lies above zero), strongest first. When a board has unsettled models (fewer than
    ``min_votes`` votes or an infinite interval end) and at least two settled ones, the pairs are those of the
    settled models only: an unsettled model has nothing in ``above``, is in no one's, and its rank is 1 + the
    number of settled models (:mod:`ratings.settled`).
    """

    model: str
    rating: float
    ci_low: float
    ci_high: float
    rank: int
    votes: int
    wins: int
    losses: int
    ties: int
    provisional: bool
    above: tuple[str, ...] = ()
    p_best: float | None = None  # probability of being the best (ratings.certainty)
    p_top3: float | None = None  # probability of being in the top 3
    settled_below: bool | None = None  # lead over the next model down is significant (None: last row)
    votes_to_settle: float | None = None  # new votes with the next model down to settle the pair


@dataclass(frozen=True)
class Exclusion:
    """A model left off a board, and why."""

    model: str
    reason: str


@dataclass(frozen=True, eq=False)
class Board:
    """A computed leaderboard.

    Attributes
    ----------
    key : BoardKey
        Which board.
    anchor, anchor_rating : str, float
        The model that reads ``anchor_rating`` by construction.
    rows : tuple of BoardRow
        Models by decreasing rating.
    counts : PairCounts
        The pair counts that were fitted (for win-rate matrices, :mod:`ratings.winrate`).
    fit : BTFit
        Convergence information of the point estimate.
    interval, level, n_bootstrap, seed : str, float, int, int
        How the intervals were computed (``n_bootstrap`` is 0 for the sandwich).
    min_votes : int
        Threshold under which a model is provisional.
    excluded : tuple of Exclusion
        Models left off because their rating is unbounded.
    notes : tuple of str
        Anything else worth telling a reader (bootstrap replicates at infinity, ...).
    replicates : numpy.ndarray or None
        Bootstrap replicates ``(R, n)`` of the log-strengths in ``counts.models`` order, each in
        the sum-zero gauge (the anchor plays no part; see :mod:`ratings.intervals`); ``None`` for
        the sandwich. ``ELO_PER_NAT * replicates`` are rating draws up to one constant per board.
    n_clusters : int
        Prompts the intervals resampled (bootstrap) or summed scores over (sandwich): the intervals are
        cluster-robust; 0 when the votes carried no prompt and the intervals are vote-level.
    difference_se : numpy.ndarray or None
        ``(n, n)`` Elo-like standard errors of every rating difference ``R_j - R_i`` in ``counts.models`` order
        (:mod:`ratings.differences`; ``nan``: unbounded), the ones the pairwise claims use: what an interval of
        a model's gap to the anchor, or to any other model, needs (the rows' intervals are not that).
    critical : float
        The simultaneous (max-T) critical value of the ranks: ``d -+ critical * se`` are the intervals the
        ``above`` relation is read from (``nan`` when unknown).
    """

    key: BoardKey | str  # a str names a board fitted from a selection (ratings.board.fit_selected_rows)
    anchor: str
    anchor_rating: float
    rows: tuple[BoardRow, ...]
    counts: PairCounts
    fit: BTFit
    interval: IntervalMethod
    level: float
    n_bootstrap: int
    seed: int
    min_votes: int
    excluded: tuple[Exclusion, ...]
    notes: tuple[str, ...]
    replicates: np.ndarray | None = None
    n_clusters: int = 0
    difference_se: np.ndarray | None = None
    critical: float = float("nan")

    @property
    def n_votes(self) -> int:
        """Votes that entered the fit."""
        return int(self.counts.votes.sum())

    def row(self, model: str) -> BoardRow:
        """The row of ``model`` (``KeyError`` if it is not on the board)."""
        for r in self.rows:
            if r.model == model:
                return r
        raise KeyError(model)

    def ratings(self) -> dict[str, float]:
        """``{model: rating}``."""
        return {r.model: r.rating for r in self.rows}


@dataclass(frozen=True, eq=False)
class BoardSet:
    """Every board of a modality: computed ``boards`` and the ``failures`` that had no valid fit."""

    boards: dict[str, Board]
    failures: dict[str, RatingsError]
