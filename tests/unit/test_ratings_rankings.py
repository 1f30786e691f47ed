"""The K-wise (Plackett-Luce) board: against the pairwise board, known answers, an independent MM fit, and
simulations with known truth (coverage of the cluster-robust intervals, bias)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ratings import (
    ELO_PER_NAT,
    AnchorNotOnBoardError,
    DisconnectedComparisonsError,
    NoVotesError,
    RankingFormatError,
    UnboundedRatingError,
    Votes,
    compute_board,
    fit_ranking_board,
)
from ratings.plackett_luce import RankingData, fit_plackett_luce, pl_evaluate
from ratings.rankings import ranking_covariance
from tests.support.plackett_luce_mm import mm_plackett_luce, sample_ranking


def _pl_rankings(theta: np.ndarray, n: int, k: int, rng: np.random.Generator, session: int = 1):
    """``n`` rankings of ``k`` distinct random items from Plackett-Luce (Gumbel trick), ``session`` per cluster."""
    rankings, clusters = [], []
    for v in range(n):
        items = rng.choice(len(theta), size=k, replace=False)
        g = theta[items] + rng.gumbel(size=k)
        rankings.append([int(x) for x in items[np.argsort(-g)]])
        clusters.append(v // session)
    return rankings, clusters


@pytest.mark.parametrize("sessions", [1, 7, 40])
def test_two_item_rankings_give_the_pairwise_sandwich_board_digit_for_digit(sessions):
    rng = np.random.default_rng(3)
    theta = rng.normal(0.0, 0.8, 6)
    rankings, clusters = _pl_rankings(theta, 600, 2, rng, session=600 // sessions)
    names = np.array([f"m{k}" for k in range(6)])
    votes = Votes.from_columns(
        names[[r[0] for r in rankings]],
        names[[r[1] for r in rankings]],
        ["model_a"] * len(rankings),
        cluster=clusters if sessions >= 10 else None,
    )
    pairwise = compute_board(votes, anchor="m2", interval="sandwich")
    kwise = fit_ranking_board(rankings, clusters, 6, anchor=2)
    for k in range(6):
        row = pairwise.row(f"m{k}")
        assert kwise.rating[k] == pytest.approx(row.rating, abs=1e-6)
        assert kwise.lower[k] == pytest.approx(row.ci_low, abs=1e-6)
        assert kwise.upper[k] == pytest.approx(row.ci_high, abs=1e-6)
        assert kwise.rank[k] == row.rank
    assert kwise.n_clusters == pairwise.n_clusters


def test_expected_frequencies_of_every_order_give_back_the_truth():
    """Known answer: weights equal to the exact Plackett-Luce probabilities of all 24 orders of 4 items make the
    score zero at the truth, so the maximum-likelihood estimate is the truth."""
    truth = np.array([0.9, 0.2, -0.3, -0.8])
    orders = [list(p) for p in itertools.permutations(range(4))]

    def prob(order):
        out = 1.0
        for s in range(3):
            out *= math.exp(truth[order[s]]) / sum(math.exp(truth[x]) for x in order[s:])
        return out

    data = RankingData.build(orders, 4, weights=[1000.0 * prob(o) for o in orders])
    fit = fit_plackett_luce(data)
    np.testing.assert_allclose(fit.theta, truth - truth.mean(), atol=1e-9)


def test_all_orders_equally_often_give_equal_ratings_and_a_hand_computed_two_item_case():
    orders = [list(p) for p in itertools.permutations(range(3))]
    board = fit_ranking_board(orders * 5, list(range(30)), 3, min_votes=1)
    np.testing.assert_allclose(board.rating, 1000.0, atol=1e-9)
    two = fit_ranking_board([[0, 1]] * 3 + [[1, 0]], [0, 1, 2, 3], 2)
    assert two.rating[0] - two.rating[1] == pytest.approx(ELO_PER_NAT * math.log(3.0), abs=1e-8)


def test_gradient_and_information_agree_with_finite_differences():
    rng = np.random.default_rng(5)
    rankings, clusters = _pl_rankings(rng.normal(size=5), 40, 4, rng)
    rankings += [[0, 3], [2, 1, 4]]
    data = RankingData.build(rankings, 5, [*clusters, 40, 41])
    theta = rng.normal(size=5)
    _ll, grad, info = pl_evaluate(theta, data)
    h = 1e-6
    for k in range(5):
        e = np.zeros(5)
        e[k] = h
        up, down = pl_evaluate(theta + e, data), pl_evaluate(theta - e, data)
        assert (up[0] - down[0]) / (2 * h) == pytest.approx(grad[k], abs=1e-6)
        np.testing.assert_allclose(-(up[1] - down[1]) / (2 * h), info[:, k], atol=1e-6)


@pytest.mark.parametrize("k", [3, 4])
def test_newton_fit_agrees_with_an_independent_mm_implementation(k):
    rng = np.random.default_rng(11 + k)
    truth = rng.normal(0.0, 0.7, 7)
    rankings = []
    for _ in range(150):
        items = [int(x) for x in rng.choice(7, size=k, replace=False)]
        rankings.append(sample_ranking(list(truth), items, list(rng.random(k))))
    rankings += [r[:2] for r in rankings[:30]]  # partial (shorter) rankings too
    mm = mm_plackett_luce(rankings, 7)
    board = fit_ranking_board(rankings, list(range(len(rankings))), 7)
    np.testing.assert_allclose(board.theta, mm, atol=1e-8)


def test_intervals_cover_the_truth_and_estimates_are_unbiased_across_simulated_boards():
    rng = np.random.default_rng(2024)
    truth = np.linspace(-1.0, 1.0, 8)
    centred = truth - truth.mean()
    hits, errors = [], []
    for _ in range(300):
        rankings, clusters = _pl_rankings(truth, 240, 4, rng, session=6)
        b = fit_ranking_board(rankings, clusters, 8)
        se = np.sqrt(np.diag(b.covariance))
        hits.append(np.abs(b.theta - centred) <= 1.959964 * se)
        errors.append(b.theta - centred)
    coverage = float(np.mean(hits))
    assert 0.93 <= coverage <= 0.97
    errors = np.array(errors)
    # bias per item within 4 standard errors of its mean over boards, and small in Elo
    assert np.all(np.abs(errors.mean(axis=0)) < 4 * errors.std(axis=0) / math.sqrt(len(errors)) + 0.01)
    assert np.abs(errors.mean(axis=0)).max() * ELO_PER_NAT < 5.0


def test_cluster_robust_intervals_cover_when_a_session_repeats_its_ranking_and_vote_level_ones_do_not():
    """Each session casts one Plackett-Luce ranking five times: five votes, one unit of evidence."""
    rng = np.random.default_rng(7)
    truth = np.linspace(-0.8, 0.8, 6)
    centred = truth - truth.mean()
    robust, naive = [], []
    for _ in range(200):
        base, _ = _pl_rankings(truth, 60, 4, rng)
        rankings = [r for r in base for _ in range(5)]
        clusters = [v // 5 for v in range(len(rankings))]
        b = fit_ranking_board(rankings, clusters, 6)
        data = RankingData.build(rankings, 6, clusters)
        se_naive = np.sqrt(np.diag(ranking_covariance(b.theta, data, clustered=False)))
        se = np.sqrt(np.diag(b.covariance))
        robust.append(np.abs(b.theta - centred) <= 1.959964 * se)
        naive.append(np.abs(b.theta - centred) <= 1.959964 * se_naive)
    assert 0.92 <= float(np.mean(robust)) <= 0.975
    assert float(np.mean(naive)) < 0.8


def test_a_model_ranked_first_every_time_is_excluded_with_a_reason_or_raises():
    rng = np.random.default_rng(1)
    rankings, clusters = _pl_rankings(np.zeros(5), 200, 3, rng)
    rankings = [[5, *r] for r in rankings]  # item 5 always first
    board = fit_ranking_board(rankings, clusters, 6)
    assert np.isnan(board.rating[5]) and board.rank[5] == 0
    assert board.excluded[0][0] == 5 and "unbounded" in board.excluded[0][1]
    assert np.all(np.isfinite(board.rating[:5]))
    with pytest.raises(UnboundedRatingError):
        fit_ranking_board(rankings, clusters, 6, unbounded="raise")
    with pytest.raises(AnchorNotOnBoardError):
        fit_ranking_board(rankings, clusters, 6, anchor=5)


def test_degenerate_inputs_raise_the_pairwise_boards_errors():
    with pytest.raises(DisconnectedComparisonsError):
        fit_ranking_board([[0, 1], [1, 0], [2, 3], [3, 2]], [0, 1, 2, 3], 4)
    with pytest.raises(NoVotesError):
        fit_ranking_board([], [], 4)
    with pytest.raises(RankingFormatError, match="ranking 1: repeats an item"):
        fit_ranking_board([[0, 1], [1, 1]], [0, 1], 2)
    with pytest.raises(RankingFormatError, match="ranking 0: item index 7"):
        fit_ranking_board([[0, 7]], [0], 3)
    with pytest.raises(RankingFormatError, match="at least two"):
        fit_ranking_board([[0]], [0], 3)
    with pytest.raises(ValueError, match="cluster labels"):
        fit_ranking_board([[0, 1]], [], 3)
    with pytest.raises(ValueError, match="sandwich"):
        fit_ranking_board([[0, 1], [1, 0]], [0, 1], 2, interval="bootstrap")


def test_items_in_no_ranking_are_left_off_and_all_equal_votes_are_counted_not_fitted():
    board = fit_ranking_board([[0, 1, 2], [2, 1, 0], [1, 0, 2]], [0, 1, 2], 5, n_all_equal=4)
    assert [k for k, _ in board.excluded] == [3, 4]
    assert np.isnan(board.rating[3]) and board.n_rankings.tolist() == [3, 3, 3, 0, 0]
    assert board.n_all_equal == 4 and any("all about equal" in n for n in board.notes)
    assert any("vote-level" in n for n in board.notes)


def test_changing_the_anchor_moves_every_rating_and_interval_end_by_one_constant():
    rng = np.random.default_rng(9)
    rankings, clusters = _pl_rankings(rng.normal(size=6), 300, 4, rng, session=10)
    a = fit_ranking_board(rankings, clusters, 6, anchor=0)
    b = fit_ranking_board(rankings, clusters, 6, anchor=4, anchor_rating=1200.0)
    shift = b.rating - a.rating
    np.testing.assert_allclose(shift, shift[0], atol=1e-9)
    np.testing.assert_allclose(b.lower - a.lower, shift[0], atol=1e-9)
    assert b.rating[4] == pytest.approx(1200.0)
    np.testing.assert_array_equal(a.rank, b.rank)
