"""Simulations with known truth: interval coverage and consistency of the ranking.

An interval's target is what the data can identify without choosing an anchor: each model's
log-strength in the sum-zero gauge, ``400/ln(10) * (theta_k - mean(theta))``. The display interval
is that interval plus the board's one offset, so subtracting the offset recovers it. Coverage is
pooled over every model (the anchor included) of many independently simulated leaderboards, and the
pairwise ranks are checked for wrong claims ("j above i" when truly j < i).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau

from ratings import (
    ELO_PER_NAT,
    center,
    display_offset,
    fit_bradley_terry,
    pair_counts,
    pairwise_above,
    replicate_intervals,
    simulate_votes,
)
from ratings.aggregate import aggregate_votes, board_rows
from ratings.bootstrap import bootstrap_board

MODELS = tuple(f"m{k}" for k in range(8))


def test_bootstrap_95_percent_intervals_cover_the_true_centred_ratings_and_ranks_rarely_lie():
    rng = np.random.default_rng(2024)
    covered = trials = wrong = claims = 0
    for board in range(200):
        truth = rng.normal(0.0, 0.6, len(MODELS))
        a, b, o = simulate_votes(truth, 3000, rng)
        rows = board_rows(aggregate_votes(a, b, o, models=MODELS))
        fit = fit_bradley_terry(pair_counts(rows))
        boot = bootstrap_board(rows, fit.theta, n_rounds=200, rng=np.random.default_rng(board))
        offset = display_offset(fit.theta, 0, 1000.0)
        low, high = replicate_intervals(boot.theta, offset)
        target = offset + ELO_PER_NAT * center(truth)
        inside = (low <= target) & (target <= high)
        covered += int(inside.sum())
        trials += len(MODELS)
        above = pairwise_above(boot.theta)
        claims += int(above.sum())
        wrong += int((above & (truth[:, None] < truth[None, :])).sum())
    coverage = covered / trials
    assert 0.93 <= coverage <= 0.97, coverage
    assert claims > 1000 and wrong / claims < 0.025, (wrong, claims)


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


def test_an_external_model_does_not_reshuffle_the_sandbox_truth() -> None:
    """Issue 28 item 7: registering one model without a `quality` knob kept the sandbox's quality-based truth
    for the sandbox models (it switched every model to seeded random before)."""
    from types import SimpleNamespace

    from arena.simulation.voters import truth_for, truth_from_quality

    sandbox = [
        SimpleNamespace(slug="sandbox-aurora", params={"quality": 0.95}),
        SimpleNamespace(slug="sandbox-ember", params={"quality": 0.55}),
        SimpleNamespace(slug="sandbox-mist", params={"quality": 0.7}),
    ]
    external = SimpleNamespace(slug="my-external", params={})
    alone = truth_for(sandbox, seed=3)
    mixed = truth_for([*sandbox, external], seed=3)
    assert alone == truth_from_quality({m.slug: m.params["quality"] for m in sandbox})
    assert {k: mixed[k] for k in alone} == alone
    assert max(alone, key=alone.get) == "sandbox-aurora"
    assert (
        "my-external" in mixed
        and mixed["my-external"] == truth_for([*sandbox, external], seed=3)["my-external"]
    )
    assert truth_for([external], seed=3) == truth_for([external], seed=3)
