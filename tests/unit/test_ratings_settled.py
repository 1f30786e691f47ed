"""A 3-vote model with the top point estimate and an unbounded interval (issue 28, item 3): ranks compare the
settled models only, so its infinite bootstrap replicates no longer make every lead on the board insignificant."""

from __future__ import annotations

import math

import numpy as np

from ratings.settled import settled_models, settled_ranks
from tests.support.unrated_board import NEWCOMER, fit_board


def test_the_newcomer_ranks_after_every_settled_model_and_the_settled_ones_stay_separated():
    board = fit_board()
    assert board.rows[0].model == NEWCOMER  # top point estimate
    newcomer = board.row(NEWCOMER)
    assert newcomer.votes == 3 and math.isinf(newcomer.ci_high)
    settled = [r for r in board.rows if r.model != NEWCOMER]
    assert newcomer.rank == 1 + len(settled) and newcomer.above == ()
    assert all(NEWCOMER not in r.above and r.rank == 1 + len(r.above) for r in settled)
    assert math.isfinite(board.critical)
    assert max(r.rank for r in settled) > 1  # one unbounded model used to give every model rank 1
    assert min(r.rank for r in settled) == 1


def test_settled_means_enough_votes_and_a_finite_interval():
    votes = np.array([500, 20, 500, 500])
    low = np.array([900.0, 950.0, -np.inf, 980.0])
    high = np.array([1000.0, 1100.0, 1050.0, 1020.0])
    mask = settled_models(votes, low, high, 300)
    assert mask.tolist() == [True, False, False, True]
    above = np.zeros((4, 4), dtype=bool)
    above[3, 0] = True  # model 3 above model 0
    assert settled_ranks(above, mask).tolist() == [2, 3, 3, 1]
