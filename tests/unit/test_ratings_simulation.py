"""Simulations with known truth: interval coverage and consistency of the ranking.

"True rating" here is what the data can identify: each model's rating relative to the anchor,
``1000 + 400/ln(10) * (theta_k - theta_anchor)``. The anchor itself is exact by construction, so
coverage is pooled over the non-anchor models of many independently simulated leaderboards.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau

from ratings import ELO_PER_NAT, fit_bradley_terry, pair_counts, percentile_intervals, simulate_votes
from ratings.aggregate import aggregate_votes, board_rows
from ratings.bootstrap import bootstrap_board

MODELS = tuple(f"m{k}" for k in range(8))


def test_bootstrap_95_percent_intervals_cover_the_true_anchor_relative_ratings():
    rng = np.random.default_rng(2024)
    covered = trials = 0
    for board in range(200):
        truth = rng.normal(0.0, 0.6, len(MODELS))
        a, b, o = simulate_votes(truth, 3000, rng)
        rows = board_rows(aggregate_votes(a, b, o, models=MODELS))
        fit = fit_bradley_terry(pair_counts(rows))
        boot = bootstrap_board(rows, fit.theta, 0, n_rounds=200, rng=np.random.default_rng(board))
        low, high = percentile_intervals(1000 + ELO_PER_NAT * boot.theta)
        true_rating = 1000 + ELO_PER_NAT * (truth - truth[0])
        inside = (low <= true_rating) & (true_rating <= high)
        covered += int(inside[1:].sum())
        trials += len(MODELS) - 1
    coverage = covered / trials
    assert 0.93 <= coverage <= 0.97, coverage


def test_kendall_tau_to_the_truth_improves_as_votes_grow():
    rng = np.random.default_rng(7)
    models = tuple(f"m{k}" for k in range(20))
    taus = []
    for n_votes in (400, 4000, 40000):
        per_seed = []
        for _ in range(5):
            truth = rng.normal(0.0, 1.0, len(models))
            a, b, o = simulate_votes(truth, n_votes, rng)
            counts = pair_counts(board_rows(aggregate_votes(a, b, o, models=models)))
            fit = fit_bradley_terry(counts)
            per_seed.append(kendalltau(fit.theta, truth).statistic)
        taus.append(float(np.mean(per_seed)))
    assert taus[0] < taus[1] < taus[2], taus
    assert taus[2] > 0.9
