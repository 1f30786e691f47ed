"""Certainty figures: P(best), P(top 3), settled adjacent pairs and votes to settle.

Known answers (a direct count written as plain loops over draws; the settling chance against a Monte Carlo of
the same model; the posterior against a brute-force Gaussian conditioning), simulations with known truth (one
clearly best model; a field of equals; P(best) calibrated where the old centred draws were overconfident),
and a simulation of the votes-to-settle quote: add that many votes between the two models, refit, and count
how often the pair is settled (the quote promises 80%).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ratings import Votes, compute_board, fit_bradley_terry, pair_counts, simulate_votes
from ratings.aggregate import aggregate_votes, board_rows
from ratings.certainty import (
    SETTLE_PROBABILITY,
    rank_probabilities,
    settle_probability,
    shrunk_posterior,
    votes_to_settle,
)
from ratings.intervals import difference_variances, pairwise_above_normal_simultaneous, sandwich_covariance
from ratings.simulate import outcomes_with_effects

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


def test_probabilities_sum_to_one_and_are_the_same_on_bootstrap_and_sandwich_boards():
    # P(best) / P(top 3) come from posterior draws built on the board's sandwich covariance with a fixed seed,
    # whichever interval method the board uses (they no longer count the bootstrap replicates)
    votes = _votes([0.6, 0.5, 0.4, 0.0, -0.3], 1500, seed=1)
    boot = compute_board(votes, anchor="m0", n_bootstrap=300)
    sand = compute_board(votes, anchor="m3", interval="sandwich")
    by_model = {r.model: r for r in sand.rows}
    for r in boot.rows:
        assert r.p_best == pytest.approx(by_model[r.model].p_best, abs=1e-12)
        assert r.p_top3 == pytest.approx(by_model[r.model].p_top3, abs=1e-12)
    assert sum(r.p_best for r in boot.rows) == pytest.approx(1.0, abs=1e-12)
    assert sum(r.p_top3 for r in boot.rows) == pytest.approx(3.0, abs=1e-12)


def test_rank_probabilities_equal_a_direct_count():
    draws = np.round(np.random.default_rng(4).normal(size=(300, 5)), 1)  # rounded: some ties
    best, top = _direct_count(draws, 3)
    got_best, got_top = rank_probabilities(draws, top_k=3)
    np.testing.assert_allclose(got_best, best, atol=1e-12)
    np.testing.assert_allclose(got_top, top, atol=1e-12)


def test_shrunk_posterior_equals_gaussian_conditioning_in_free_coordinates():
    # independent implementation: strengths x = B u with B an orthonormal basis of sum-zero vectors, u ~ N(0, tau2 I),
    # data t = B (u + e), e ~ N(0, B' S B): posterior of u by the textbook formula, mapped back
    rng = np.random.default_rng(8)
    n = 5
    x = rng.normal(size=(n, n))
    s = x @ x.T * 0.01
    centring = np.eye(n) - 1.0 / n
    s = centring @ s @ centring
    t = centring @ rng.normal(0, 0.5, n)
    mean, cov, tau2 = shrunk_posterior(t, s)
    assert tau2 == pytest.approx((t @ t - np.trace(s)) / (n - 1))
    basis = np.linalg.svd(centring)[0][:, : n - 1]
    s_u = basis.T @ s @ basis
    gain = tau2 * np.linalg.inv(tau2 * np.eye(n - 1) + s_u)
    np.testing.assert_allclose(mean, basis @ (gain @ (basis.T @ t)), atol=1e-12)
    np.testing.assert_allclose(cov, basis @ ((np.eye(n - 1) - gain) * tau2) @ basis.T, atol=1e-12)
    # all noise: everything shrinks to 0
    zero_mean, zero_cov, zero_tau2 = shrunk_posterior(np.array([0.01, -0.01, 0.0]), np.eye(3) - 1.0 / 3)
    assert zero_tau2 == 0.0 and not zero_mean.any() and not zero_cov.any()


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
    # equal in truth: many votes, or none that reach an 80% chance (null)
    assert rows[0].settled_below is False
    assert rows[0].votes_to_settle is None or rows[0].votes_to_settle > 100
    assert rows[1].settled_below is True


def _monte_carlo_chance(m: float, gap: float, v: float, v_vote: float, w: float, z: float, n: int) -> float:
    """Independent simulation of the same model: the gap on these prompts ~ N(gap, v_vote); m votes measure
    it with precision m w; the combined estimate is settled when it exceeds z times its standard error."""
    rng = np.random.default_rng(11)
    pool_gap = rng.normal(gap, np.sqrt(v_vote), n)
    fresh = rng.normal(pool_gap, np.sqrt(1.0 / (m * w)))
    precision = 1.0 / v_vote + m * w
    future = (gap / v_vote + m * w * fresh) / precision
    se = np.sqrt(1.0 / precision + (v - v_vote))
    return float(np.mean(np.abs(future) > z * se))


@pytest.mark.parametrize(
    ("gap", "v", "v_vote"), [(0.1, 0.01, 0.01), (0.25, 0.012, 0.009), (-0.05, 0.02, 0.02)]
)
def test_settle_probability_equals_a_monte_carlo_of_the_same_model(gap, v, v_vote):
    z, w = 3.0, 0.24
    for m in (50.0, 400.0, 3000.0):
        mc = _monte_carlo_chance(m, gap, v, v_vote, w, z, 200_000)
        assert settle_probability(m, gap, v, w, z, v_vote) == pytest.approx(mc, abs=0.004)


def test_votes_to_settle_reaches_the_probability_and_no_fewer_do():
    z, w = 3.0, 0.25
    m = votes_to_settle(0.15, 0.01, 0.5, 0.95, critical=z)
    assert 0 < m < np.inf
    assert settle_probability(m, 0.15, 0.01, w, z) >= SETTLE_PROBABILITY
    assert settle_probability(m - 2, 0.15, 0.01, w, z) < SETTLE_PROBABILITY
    grid = np.linspace(0, 5 * m, 200)
    assert np.all(np.diff(settle_probability(grid, 0.15, 0.01, w, z)) >= -1e-12)  # rises with the votes
    # a higher probability asks for more votes
    assert votes_to_settle(0.15, 0.01, 0.5, 0.95, critical=z, probability=0.9) > m


def test_votes_to_settle_is_zero_when_settled_and_inf_when_out_of_reach():
    assert votes_to_settle(0.5, 0.01, 0.6, 0.95, critical=3.0) == 0.0
    # a gap of 0.05 with a prompt part of variance 0.004 (se 0.063): however many votes, |gap| stays under
    # 3 x 0.063 in most futures, so no count gives an 80% chance
    assert votes_to_settle(0.05, 0.01, 0.5, 0.95, critical=3.0, vote_variance=0.006) == float("inf")
    # without a prompt part the same gap is within reach
    assert np.isfinite(votes_to_settle(0.05, 0.01, 0.5, 0.95, critical=3.0))
    # the old rule's answer (the gap taken as exact) is a different, smaller number: it settles only about half
    old = (3.0**2 / 0.15**2 - 1 / 0.01) / 0.25
    assert settle_probability(old, 0.15, 0.01, 0.25, 3.0) < 0.6


def test_quoted_votes_settle_the_pair_at_the_quoted_rate():
    # fast twin of bench/bench_certainty.py (a): small vote-level boards with random true strengths; for every
    # unsettled adjacent pair, cast exactly the quoted votes between the two (from the truth), refit with the
    # sandwich, and count settled (either way) at the board's critical value. The quote promises 80%; with about
    # 120 pairs the share has a standard error near 0.04
    settled, tried = 0, 0
    for k in range(40):
        rng = np.random.default_rng([31, k])
        truth = rng.normal(0.0, 0.25, 6)
        a, b, o = simulate_votes(truth, 1200, rng)
        board = compute_board(Votes.from_columns(NAMES[a], NAMES[b], o), anchor="m0", interval="sandwich")
        rows = list(board.rows)
        z = _critical(board)
        for upper, lower in itertools.pairwise(rows):
            if upper.settled_below or upper.votes_to_settle is None:
                continue
            hi, lo = int(upper.model[1:]), int(lower.model[1:])
            m = int(np.ceil(upper.votes_to_settle))
            side = rng.random(m) < 0.5
            xa, xb = np.where(side, hi, lo), np.where(side, lo, hi)
            xo = simulate_votes_between(truth, xa, xb, rng)
            names = tuple(f"m{i}" for i in range(6))
            counts = pair_counts(
                board_rows(aggregate_votes(np.r_[a, xa], np.r_[b, xb], np.r_[o, xo], models=names))
            )
            theta = fit_bradley_terry(counts).theta
            se = np.sqrt(difference_variances(sandwich_covariance(theta, counts))[hi, lo])
            settled += abs(theta[hi] - theta[lo]) > z * se
            tried += 1
    assert tried >= 80
    assert abs(settled / tried - SETTLE_PROBABILITY) < 0.12, (settled, tried)


def _critical(board) -> float:
    """The board's simultaneous critical value, recomputed as the board computes it (sandwich max-T)."""
    counts = board.counts
    cov = sandwich_covariance(board.fit.theta, counts)
    return pairwise_above_normal_simultaneous(board.fit.theta, cov)[1]


def simulate_votes_between(
    truth: np.ndarray, a: np.ndarray, b: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Outcomes of votes ``a`` vs ``b`` from the true strengths, ties as ``simulate_votes`` makes them."""
    return outcomes_with_effects(truth, np.zeros((1, len(truth))), a, b, np.zeros(len(a), dtype=int), rng)


def test_p_best_of_the_top_model_is_calibrated_where_centred_draws_were_overconfident():
    # winner's curse: 10 close models (strength SD 0.1 nats) and 1,000 votes, so the errors are as large as the
    # spread. Draws centred at the estimate reported ~0.49 for the top model that was truly best ~36% of the
    # time; the shrunk posterior reports what happens (within 0.07; the rate's standard error is ~0.027)
    reported, hits = [], []
    for k in range(300):
        rng = np.random.default_rng([9, k])
        truth = rng.normal(0.0, 0.1, 10)
        a, b, o = simulate_votes(truth, 1000, rng)
        names = np.array([f"m{i}" for i in range(10)], dtype=object)
        board = compute_board(Votes.from_columns(names[a], names[b], o), anchor="m0", interval="sandwich")
        top = max(board.rows, key=lambda r: (r.p_best, r.rating))
        reported.append(top.p_best)
        hits.append(top.model == f"m{int(np.argmax(truth))}")
    assert abs(np.mean(reported) - np.mean(hits)) < 0.07, (np.mean(reported), np.mean(hits))
