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


def test_chances_of_being_best_are_over_the_settled_models_and_match_the_board_without_the_newcomer():
    """The newcomer's near-infinite variance made the prior variance 0, so every model read P(best) = 1/7 and
    P(top 3) = 100%. The chances are now drawn over the settled models only; the newcomer claims none."""
    from ratings import compute_board
    from ratings.votes import Votes
    from tests.support.unrated_board import ANCHOR, MIN_VOTES

    board = fit_board()
    newcomer = board.row(NEWCOMER)
    assert newcomer.p_best is None and newcomer.p_top3 is None
    settled = [r for r in board.rows if r.model != NEWCOMER]
    assert math.isclose(sum(r.p_best for r in settled), 1.0, abs_tol=1e-9)
    assert sum(r.p_top3 for r in settled) >= 3 - 1e-9
    best = max(settled, key=lambda r: r.rating)
    assert (
        best.model == "ub-imagen-ultra" and best.p_best > 0.5
    )  # the truth's strongest model, 40 points clear
    # the same figures as the board fitted without the newcomer's three votes (the same posterior draws)
    rows = [(r.model, r.p_best, r.p_top3) for r in settled]
    rng = np.random.default_rng(3)
    a, b, outcome = [], [], []
    from tests.support.unrated_board import MODELS

    kept = [m for m in MODELS if m[0] != NEWCOMER]
    for _ in range(3000):
        i, j = rng.choice(len(kept), 2, replace=False)
        p = 1.0 / (1.0 + 10 ** ((kept[j][3] - kept[i][3]) / 400.0))
        a.append(kept[i][0])
        b.append(kept[j][0])
        outcome.append("model_a" if rng.random() < p else "model_b")
    alone = compute_board(
        Votes.from_columns(a, b, outcome), anchor=ANCHOR, n_bootstrap=200, seed=3, min_votes=MIN_VOTES
    )
    for model, p_best, p_top3 in rows:
        assert abs(alone.row(model).p_best - p_best) < 0.05, model
        assert abs(alone.row(model).p_top3 - p_top3) < 0.05, model
