"""Certainty figures: P(best), P(top 3), settled adjacent pairs and votes to settle.

Known answers (a direct count written as plain loops over replicates), simulations with known truth
(one clearly best model; a field of equals), and a simulation of the votes-to-settle estimate: add
that many votes between the two models, refit, and see how often the pair is settled.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ratings import Votes, compute_board, simulate_votes
from ratings.certainty import rank_probabilities, votes_to_settle

NAMES = np.array([f"m{k}" for k in range(8)], dtype=object)


def _votes(truth: np.ndarray, n: int, seed: int, tie_rate: float = 0.1) -> Votes:
    rng = np.random.default_rng(seed)
    a, b, o = simulate_votes(np.asarray(truth, dtype=float), n, rng, tie_rate=tie_rate)
    return Votes.from_columns(NAMES[a], NAMES[b], o)


def _direct_count(draws: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Independent implementation: per replicate, who is strictly best (ties split) and who is in the top k."""
    n = draws.shape[1]
    best, top = np.zeros(n), np.zeros(n)
    for row in draws:
        winners = [i for i in range(n) if row[i] == max(row)]
        for i in winners:
            best[i] += 1.0 / len(winners)
        for i in range(n):
            if sum(1 for j in range(n) if row[j] > row[i]) < k:
                top[i] += 1
    return best / len(draws), top / len(draws)


def test_probabilities_sum_to_one_and_equal_a_direct_count_over_the_board_replicates():
    board = compute_board(_votes([0.6, 0.5, 0.4, 0.0, -0.3], 1500, seed=1), anchor="m0", n_bootstrap=300)
    assert board.replicates is not None
    best, top = _direct_count(board.replicates, 3)
    by_model = {r.model: r for r in board.rows}
    for k, model in enumerate(board.counts.models):
        assert by_model[model].p_best == pytest.approx(best[k], abs=1e-12)
        assert by_model[model].p_top3 == pytest.approx(top[k], abs=1e-12)
    assert sum(r.p_best for r in board.rows) == pytest.approx(1.0, abs=1e-12)
    assert sum(r.p_top3 for r in board.rows) == pytest.approx(3.0, abs=1e-12)


def test_ties_split_the_best_and_share_the_top_k():
    draws = np.array([[1.0, 1.0, 0.0, -1.0], [np.inf, 0.0, np.inf, 0.0], [0.0, 0.0, 0.0, 0.0]])
    best, top = rank_probabilities(draws, top_k=2)
    np.testing.assert_allclose(best, np.array([0.5 + 0.5 + 0.25, 0.5 + 0.25, 0.5 + 0.25, 0.25]) / 3)
    np.testing.assert_allclose(best.sum(), 1.0)
    np.testing.assert_allclose(top, _direct_count(draws, 2)[1])


@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
def test_a_clearly_best_model_is_best_with_probability_above_095(interval):
    truth = np.array([1.5, 0.3, 0.2, 0.1, 0.0, -0.1])
    board = compute_board(_votes(truth, 3000, seed=2), anchor="m1", interval=interval, n_bootstrap=300)
    rows = {r.model: r for r in board.rows}
    assert rows["m0"].p_best > 0.95
    assert rows["m0"].p_top3 > 0.99
    assert sum(r.p_best for r in board.rows) == pytest.approx(1.0)


def test_a_field_of_equals_gives_each_about_one_in_n():
    # 100 boards: a model's p_best varies from board to board with the vote sample (sd about 0.15), so the
    # mean has a standard error near 0.015; 0.05 is over 3 of them (20 boards left it at ~0.035: too noisy)
    n, boards = 5, 100
    mean = np.zeros(n)
    tops = []
    for seed in range(boards):
        board = compute_board(_votes(np.zeros(n), 2000, seed=1000 + seed), anchor="m0", n_bootstrap=200)
        p = {r.model: r.p_best for r in board.rows}
        mean += np.array([p[f"m{k}"] for k in range(n)]) / boards
        tops.append(max(p.values()))
    np.testing.assert_allclose(mean, 1.0 / n, atol=0.05)
    assert np.median(tops) < 0.6  # no single board crowns anyone with confidence


def test_adjacent_pairs_are_settled_exactly_when_the_published_relation_says_so():
    board = compute_board(_votes([1.2, 1.2, 0.0, -1.0], 3000, seed=3), anchor="m0", n_bootstrap=300)
    rows = list(board.rows)
    for upper, lower in itertools.pairwise(rows):
        assert upper.settled_below == (upper.model in lower.above)
        assert (upper.votes_to_settle == 0.0) == upper.settled_below
    assert rows[-1].settled_below is None and rows[-1].votes_to_settle is None
    assert rows[0].settled_below is False and rows[0].votes_to_settle > 100  # equal in truth
    assert rows[1].settled_below is True


def test_votes_to_settle_closed_form():
    z = 1.959963984540054
    # precision 1/v + m w must reach z^2 / d^2
    m = votes_to_settle(0.1, 0.01, 0.5, 0.95)
    assert 1 / 0.01 + m * 0.25 == pytest.approx(z * z / 0.01)
    assert votes_to_settle(0.5, 0.01, 0.6, 0.95) == 0.0
    assert votes_to_settle(0.0, 0.01, 0.5, 0.95) == float("inf")


def _settled_fraction(base: Votes, hi: str, lo: str, gap: float, m: int, sims: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    p = 1.0 / (1.0 + np.exp(-gap))
    settled = 0
    for _ in range(sims):
        wins = rng.random(m) < p
        extra = Votes.from_columns(
            np.full(m, hi, dtype=object), np.full(m, lo, dtype=object), np.where(wins, 0, 1)
        )
        votes = Votes.from_columns(
            np.concatenate([base.model_a, extra.model_a]),
            np.concatenate([base.model_b, extra.model_b]),
            np.concatenate([base.outcome, extra.outcome]),
        )
        board = compute_board(votes, anchor="m0", interval="sandwich")
        settled += next(r for r in board.rows if r.model == hi).settled_below is True
    return settled / sims


def test_votes_to_settle_is_within_a_factor_of_one_and_a_half_of_a_simulation():
    base = _votes([0.1, 0.0, -0.8], 1200, seed=5, tie_rate=0.0)
    board = compute_board(base, anchor="m0", interval="sandwich")
    top, second = board.rows[0], board.rows[1]
    assert top.settled_below is False
    estimate = top.votes_to_settle
    assert 50 < estimate < 5000
    gap = (top.rating - second.rating) * np.log(10.0) / 400.0
    # Truth = the estimate: at 1/1.5 of the votes most runs are still unsettled, at 1.5x most are settled.
    below = _settled_fraction(base, top.model, second.model, gap, int(estimate / 1.5), 60, seed=5)
    above = _settled_fraction(base, top.model, second.model, gap, int(estimate * 1.5), 60, seed=6)
    assert below < 0.5 < above, (estimate, below, above)
