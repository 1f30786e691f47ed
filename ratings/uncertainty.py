"""One board's uncertainty in one call: display intervals, the pairwise ``above`` relation, replicates.

The rule (see :mod:`ratings.intervals`): replicates never see the anchor; display intervals are the
replicates shifted by the board's one offset; model ``j`` is above model ``i`` when the simultaneous
interval of ``theta_j - theta_i`` (all pairs of the board together at the level, max-T) lies above zero.
:func:`board_uncertainty` applies it with the bootstrap or the sandwich, so callers (the board, and anything
that needs the replicates or the covariance later) share one implementation. Both are cluster-robust
(prompts resampled, scores summed per prompt) when the board's rows carry clusters, and vote-level otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ratings.aggregate import BoardRows
from ratings.bootstrap import bootstrap_board
from ratings.bt import DEFAULT_MAX_ITER
from ratings.intervals import (
    DEFAULT_LEVEL,
    board_sandwich_covariance,
    display_offset,
    pairwise_above_normal_simultaneous,
    pairwise_above_simultaneous,
    replicate_intervals,
    sandwich_intervals,
)
from ratings.leaderboard import IntervalMethod
from ratings.pairs import pair_counts
from ratings.resample import TableCache
from ratings.scale import DEFAULT_ANCHOR_RATING

__all__ = ["Uncertainty", "board_uncertainty"]


@dataclass(frozen=True, eq=False)
class Uncertainty:
    """What :func:`board_uncertainty` returns, in ``counts.models`` order.

    Attributes
    ----------
    low, high : numpy.ndarray
        ``(n,)`` display interval ends (Elo-like; ``+-inf`` when unbounded).
    above : numpy.ndarray
        ``(n, n)`` bool, ``above[j, i]``: model ``j``'s lead over model ``i`` is significant, all pairs
        of the board controlled together (max-T over pairs).
    offset : float
        The board's one shift: ``rating = offset + ELO_PER_NAT * center(theta)``.
    replicates : numpy.ndarray or None
        ``(R, n)`` bootstrap log-strengths in the sum-zero gauge; ``None`` for the sandwich.
    covariance : numpy.ndarray or None
        ``(n, n)`` sandwich covariance of the sum-zero log-strengths; ``None`` for the bootstrap.
    notes : tuple of str
        Replicates at infinity or unconverged, if any.
    critical : float
        The simultaneous (max-T) critical value behind ``above``: a lead counts when it exceeds
        ``critical`` standard errors of the difference.
    """

    low: np.ndarray
    high: np.ndarray
    above: np.ndarray
    offset: float
    replicates: np.ndarray | None = None
    covariance: np.ndarray | None = None
    notes: tuple[str, ...] = field(default=())
    critical: float = float("nan")


def board_uncertainty(
    board: BoardRows,
    theta: np.ndarray,
    anchor: int,
    *,
    interval: IntervalMethod = "bootstrap",
    level: float = DEFAULT_LEVEL,
    anchor_rating: float = DEFAULT_ANCHOR_RATING,
    n_bootstrap: int = 1000,
    rng: np.random.Generator | None = None,
    max_iter: int = DEFAULT_MAX_ITER,
    workers: int | None = None,
    tables: TableCache | None = None,
) -> Uncertainty:
    """Intervals and the pairwise relation of one board whose finite estimate ``theta`` exists.

    ``anchor`` only sets the display offset: the replicates, ``above`` and the interval widths do not
    depend on it. ``rng`` seeds the bootstrap (required for it).
    """
    offset = display_offset(theta, anchor, anchor_rating)
    if interval == "sandwich":
        cov = board_sandwich_covariance(theta, board, pair_counts(board))
        low, high = sandwich_intervals(theta, cov, offset, level)
        above, critical = pairwise_above_normal_simultaneous(theta, cov, level)
        return Uncertainty(low, high, above, offset, covariance=cov, critical=critical)
    if rng is None:
        raise ValueError("the bootstrap needs a random generator (rng)")
    boot = bootstrap_board(
        board, theta, n_rounds=n_bootstrap, rng=rng, max_iter=max_iter, workers=workers, tables=tables
    )
    low, high = replicate_intervals(boot.theta, offset, level)
    notes = []
    if boot.n_limit:
        notes.append(
            f"{boot.n_limit} of {n_bootstrap} bootstrap replicates left some model with no loss "
            "or no win; its rating is infinite in those replicates and the intervals include them"
        )
    if boot.n_unconverged:
        notes.append(f"{boot.n_unconverged} bootstrap replicates did not reach the tolerance")
    above, critical = pairwise_above_simultaneous(boot.theta, theta, level)
    return Uncertainty(low, high, above, offset, replicates=boot.theta, notes=tuple(notes), critical=critical)
