"""Pair counts: per model pair, how often each side won and how often they tied.

:class:`PairCounts` is the sufficient statistic of a Bradley-Terry fit: its cost depends on the
number of model pairs, never on the number of votes behind them. :func:`pair_counts` sums a
board's rows into it (balancing taxonomy cells on the overall board, see
:mod:`ratings.weighting`); :func:`count_pairs` goes straight from slug-valued votes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ratings.aggregate import BoardRows, aggregate_votes, board_rows
from ratings.votes import factorize, outcome_codes
from ratings.weighting import cell_balance_factors

__all__ = ["PairCounts", "count_pairs", "pair_counts", "row_weights"]


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Per model pair ``i < j``: counts of ``[i won, j won, tie]``.

    Attributes
    ----------
    models : tuple of str
        Model names; ``pairs`` index into it.
    pairs : numpy.ndarray
        ``(P, 2)`` int pairs with ``i < j``.
    votes : numpy.ndarray
        ``(P, 3)`` raw number of votes.
    weight : numpy.ndarray
        ``(P, 3)`` total vote weight (after cell balancing); this is what the fit uses.
    weight_sq : numpy.ndarray
        ``(P, 3)`` sum of squared vote weights (for the sandwich variance).
    """

    models: tuple[str, ...]
    pairs: np.ndarray
    votes: np.ndarray
    weight: np.ndarray
    weight_sq: np.ndarray

    @property
    def n_models(self) -> int:
        """Number of models."""
        return len(self.models)

    @property
    def wins(self) -> np.ndarray:
        """``(P, 2)`` effective wins of ``i`` and of ``j``: a tie counts half a win each way."""
        half = 0.5 * self.weight[:, 2]
        return np.column_stack([self.weight[:, 0] + half, self.weight[:, 1] + half])

    def model_totals(self) -> dict[str, np.ndarray]:
        """Raw ``votes``, ``wins``, ``losses`` and ``ties`` of each model (arrays by model index)."""
        n = self.n_models
        i, j = self.pairs[:, 0], self.pairs[:, 1]
        v = self.votes

        def per_model(x_i: np.ndarray, x_j: np.ndarray) -> np.ndarray:
            return (np.bincount(i, x_i, minlength=n) + np.bincount(j, x_j, minlength=n)).astype(np.int64)

        wins = per_model(v[:, 0], v[:, 1])
        losses = per_model(v[:, 1], v[:, 0])
        ties = per_model(v[:, 2], v[:, 2])
        return {"votes": wins + losses + ties, "wins": wins, "losses": losses, "ties": ties}


def row_weights(board: BoardRows) -> np.ndarray:
    """Per-vote weight of each row after cell balancing (the board's own weights if it balances no cells)."""
    w = board.weight
    if board.cell is not None:
        totals = np.bincount(board.cell, weights=board.count * w, minlength=board.n_cells)
        w = w * cell_balance_factors(totals)[board.cell]
    return w


def pair_counts(board: BoardRows) -> PairCounts:
    """Sum a board's rows into :class:`PairCounts`, balancing taxonomy cells if the board does."""
    w = row_weights(board)
    col = board.pair.astype(np.int64) * 3 + board.outcome
    size = 3 * len(board.pairs)

    def total(values: np.ndarray) -> np.ndarray:
        return np.bincount(col, weights=values, minlength=size).reshape(-1, 3)

    return PairCounts(
        models=board.models,
        pairs=board.pairs,
        votes=np.rint(total(board.count.astype(np.float64))).astype(np.int64),
        weight=total(board.count * w),
        weight_sq=total(board.count * w * w),
    )


def count_pairs(
    model_a: np.ndarray | list[str],
    model_b: np.ndarray | list[str],
    outcome: np.ndarray | list[object],
    weight: np.ndarray | list[float] | None = None,
) -> PairCounts:
    """Pair counts straight from slug-valued votes (one board, no cell balancing).

    A convenience for small data and tests; :func:`ratings.board.compute_board` is the full path.
    """
    models, (ia, ib) = factorize(model_a, model_b)
    codes = outcome_codes(outcome)
    w = None if weight is None else np.asarray(weight, dtype=np.float64)
    rows = aggregate_votes(ia, ib, codes, models=models, weight=w)
    return pair_counts(board_rows(rows))
