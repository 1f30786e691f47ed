"""The fast twin of bench/bench_retirement.py: a small seeded month under the arena's own matchmaking.

Coin-flip prompts must be retired more often than board-like ones, board-like prompts rarely, and the old
binomial rule (judged from the first decisive vote) must show the failure the slope rule fixes: it retires
board-like prompts because the matchmaker serves close pairs."""

import numpy as np
import pytest

from tests.support.retirement_sim import Rule, serve_month, simulate, true_strengths


@pytest.fixture(scope="module")
def rates():
    rng = np.random.default_rng(20)
    month = serve_month(true_strengths(20, 100.0, rng), rng, history=3000, month=1500, batch=500)
    assert month.mean_gap() < 110  # the plan concentrates on close pairs (uniform pairs: ~113 Elo at sd 100)
    rules = [Rule.slope(), Rule.binomial(min_decisive=1)]
    counts = simulate(month, rules, (1.0, 0.0), (150,), 150, rng)
    return {key: hits / total for key, (hits, total) in counts.items()}


def test_the_slope_rule_retires_coin_flips_far_more_often_than_board_like_prompts(rates):
    assert rates[(0, 0.0, 150)] > 0.12  # low power is honest: close pairs carry little information (README)
    assert rates[(0, 1.0, 150)] <= 0.05
    assert rates[(0, 0.0, 150)] > rates[(0, 1.0, 150)] + 0.1


def test_the_old_binomial_rule_retires_board_like_prompts_under_the_matchmaker(rates):
    assert rates[(1, 1.0, 150)] > 0.15  # the failure: "failed to show" read as "does not"
    assert rates[(1, 1.0, 150)] > 4 * max(rates[(0, 1.0, 150)], 0.01)
