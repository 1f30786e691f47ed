"""A simulated month of votes on prompts with known discrimination: the rule's error rates at the defaults.

Bounds are derived, not tuned: every judged prompt is flagged with an exactly computable probability
(`flag_probability` of its true favorite win rate and its decisive votes), so the number of errors is a sum of
independent Bernoulli variables with known mean and variance; the observed rate must lie within 4 standard
errors of the exact expectation. The README quotes these rates (`python -m prompts_taxonomy.retirement_sim`).
"""

import numpy as np
import pytest

from prompts_taxonomy.retirement import DEFAULT_ALPHA
from prompts_taxonomy.retirement_sim import DEFAULT_RATINGS, favorite_win_probability, simulate_month


@pytest.fixture(scope="module")
def month():
    rng = np.random.default_rng(1)
    strengths = np.concatenate([rng.uniform(0.5, 1.5, 800), np.zeros(800)])
    return simulate_month(strengths, seed=2)


def test_nearly_every_prompt_of_a_150_vote_month_is_judged(month):
    assert month.judged.mean() > 0.99


def test_missed_retirements_of_coin_flips_stay_within_alpha(month):
    rate, expected, se, n = month.missed_retirement()
    assert n > 790
    assert expected <= DEFAULT_ALPHA  # the exact test is conservative
    assert abs(rate - expected) <= 4 * se
    assert rate <= DEFAULT_ALPHA + 4 * np.sqrt(DEFAULT_ALPHA * (1 - DEFAULT_ALPHA) / n)


def test_false_retirements_match_their_exact_expectation_and_fall_with_strength(month):
    rate, expected, se, n = month.false_retirement()
    assert n == 800
    assert abs(rate - expected) <= 4 * se
    assert 0.04 < expected < 0.12  # ~8% at the defaults for strengths 0.5-1.5 (favorite wins 58-73%)
    weak = month.false_retirement(0.5, 0.75)
    strong = month.false_retirement(1.0, 1.5)
    assert abs(weak[0] - weak[1]) <= 4 * weak[2] and abs(strong[0] - strong[1]) <= 4 * max(strong[2], 0.005)
    assert weak[1] > 0.15 and strong[1] < 0.02


def test_a_prompt_as_discriminating_as_the_board_is_almost_never_retired():
    p = favorite_win_probability(DEFAULT_RATINGS, 1.0)
    assert 0.64 < p < 0.68  # 8 models 40 Elo apart, uniform pairs
    month = simulate_month(np.ones(300), seed=5)
    assert month.flagged[month.judged].mean() < 0.05


def test_prompts_below_the_minimum_are_not_judged_and_so_not_retired():
    month = simulate_month(np.zeros(100), mean_votes=40, seed=7)
    assert not month.judged.any() and not month.flagged.any()
