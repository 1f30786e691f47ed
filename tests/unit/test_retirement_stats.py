"""The old (binomial) retirement rule's statistics, kept for the bench and schema-1 reports: exact binomial
p-values, Clopper-Pearson intervals, favorite tallies."""

import numpy as np
import pytest
from scipy import stats

from prompts_taxonomy.retirement import (
    BINOMIAL_ALPHA,
    BINOMIAL_MIN_DECISIVE,
    FavoriteTally,
    binomial_p_value,
    board_positions,
    clopper_pearson,
    flag_probability,
    judge_binomial,
    tally_favorites,
)


@pytest.mark.parametrize(
    ("k", "n", "expected"),
    [
        (8, 10, 0.109375),  # 2 * (45 + 10 + 1) / 1024
        (15, 20, 0.04138946533203125),  # 2 * 21700 / 2**20
        (5, 10, 1.0),
        (0, 5, 0.0625),
        (3, 3, 0.25),
    ],
)
def test_binomial_p_value_matches_hand_computed_answers(k, n, expected):
    assert binomial_p_value(k, n) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n", [1, 2, 7, 30, 101, 250])
def test_binomial_p_value_equals_scipy_binomtest_for_every_outcome(n):
    for k in range(n + 1):
        assert binomial_p_value(k, n) == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-9, abs=1e-15)


def test_binomial_p_value_against_another_rate_uses_scipy_and_refuses_bad_counts():
    assert binomial_p_value(7, 20, 0.3) == pytest.approx(stats.binomtest(7, 20, 0.3).pvalue)
    assert binomial_p_value(0, 0) == 1.0
    with pytest.raises(ValueError):
        binomial_p_value(5, 4)


def test_clopper_pearson_matches_known_intervals():
    # Known answers (e.g. R's binom.test(7, 20)$conf.int): 0.1539092 .. 0.5921885.
    low, high = clopper_pearson(7, 20, 0.95)
    assert (low, high) == pytest.approx((0.1539092, 0.5921885), abs=1e-6)
    assert clopper_pearson(0, 10, 0.95) == pytest.approx((0.0, 0.3084971), abs=1e-6)
    assert clopper_pearson(10, 10, 0.95) == pytest.approx((0.6915029, 1.0), abs=1e-6)
    assert clopper_pearson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("n", [20, 57, 100, 160])
def test_the_rule_flags_exactly_when_the_interval_at_one_minus_alpha_contains_one_half(n):
    for alpha in (0.05, 0.10):
        for k in range(n + 1):
            verdict = judge_binomial(FavoriteTally(k, n - k), alpha=alpha, min_decisive=1)
            low, high = verdict.ci_low, verdict.ci_high
            assert verdict.flagged == (low <= 0.5 <= high), (k, n, alpha)


def test_a_prompt_with_too_few_decisive_votes_is_never_flagged_whatever_its_ties():
    verdict = judge_binomial(FavoriteTally(30, 30, ties=500, both_bad=200), min_decisive=100)
    assert not verdict.evaluated and not verdict.flagged
    assert "too few decisive votes (60 < 100)" in verdict.reason
    assert verdict.ties == 500 and verdict.both_bad == 200


def test_coin_flip_is_flagged_and_a_clear_favorite_is_spared():
    flip = judge_binomial(FavoriteTally(52, 48))
    assert flip.evaluated and flip.flagged and flip.p_value > BINOMIAL_ALPHA
    assert flip.win_rate == pytest.approx(0.52) and flip.ci_low < 0.5 < flip.ci_high
    clear = judge_binomial(FavoriteTally(70, 30))
    assert clear.evaluated and not clear.flagged and clear.p_value < 0.001
    assert "discriminates" in clear.reason


def test_a_favorite_that_loses_significantly_still_discriminates():
    verdict = judge_binomial(FavoriteTally(30, 70))
    assert not verdict.flagged and "against the board" in verdict.reason


def test_board_positions_follow_rating_and_break_ties_by_slug():
    assert board_positions({"b": 1000.0, "a": 1000.0, "c": 1100.0}) == {"c": 0, "a": 1, "b": 2}


def test_tally_counts_favorite_wins_from_either_side_and_keeps_ties_and_unranked_apart():
    positions = {"top": 0, "mid": 1, "low": 2}
    votes = [
        ("low", "top", "model_b", 5),  # favorite (top) is model_b and wins
        ("mid", "top", "model_a", 2),  # favorite loses
        ("low", "mid", "model_a", 1),  # favorite (mid) is model_b: low won, favorite loses
        ("mid", "top", "tie", 3),
        ("low", "top", "tie (bothbad)", 4),
        ("ghost", "top", "model_a", 6),
    ]
    tally = tally_favorites(votes, positions)
    assert tally == FavoriteTally(favorite_wins=5, favorite_losses=3, ties=3, both_bad=4, unranked=6)
    assert tally.decisive == 8
    with pytest.raises(ValueError):
        tally_favorites([("low", "top", "left", 1)], positions)


def test_flag_probability_is_the_exact_chance_of_flagging():
    # A coin flip is flagged unless the test rejects: at most alpha are missed (the exact test is conservative).
    assert 1 - flag_probability(0.5, BINOMIAL_MIN_DECISIVE) <= BINOMIAL_ALPHA
    # The documented figures: a 65% favorite at 100 decisive votes.
    assert flag_probability(0.65, 100, alpha=0.10) == pytest.approx(0.088, abs=0.001)
    assert flag_probability(0.65, 100, alpha=0.05) == pytest.approx(0.172, abs=0.001)
    # More votes, fewer false retirements.
    probs = [flag_probability(0.62, n) for n in (100, 200, 400)]
    assert probs == sorted(probs, reverse=True)
    # Monte Carlo agrees with the exact sum.
    rng = np.random.default_rng(3)
    k = rng.binomial(120, 0.6, size=4000)
    flagged = np.mean([judge_binomial(FavoriteTally(int(x), 120 - int(x))).flagged for x in k])
    assert flagged == pytest.approx(flag_probability(0.6, 120), abs=0.03)
