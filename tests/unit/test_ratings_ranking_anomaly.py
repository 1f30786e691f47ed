"""The position-bias test for K-wise voters: exact null distributions, power against position voters, and
calibration on honest voters simulated with shuffled screens."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ratings.ranking_anomaly import inversions, mahonian, position_bias


def test_mahonian_matches_enumeration():
    for m in (2, 3, 4, 5):
        counts = np.zeros(m * (m - 1) // 2 + 1)
        for p in itertools.permutations(range(m)):
            counts[inversions(p)] += 1
        np.testing.assert_allclose(mahonian(m), counts / math.factorial(m), atol=1e-15)


def test_a_voter_who_always_ranks_left_to_right_is_flagged_exactly():
    rng = np.random.default_rng(0)
    shown = [list(rng.permutation(20)[:4]) for _ in range(6)]
    result = position_bias(shown, shown)  # ranking = screen order
    assert result.forward and result.n_identical == 6 and result.fraction_identical == 1.0
    assert result.p_identical == pytest.approx((1 / 24) ** 6)
    assert result.p_kendall == pytest.approx((1 / 24) ** 6)
    assert result.mean_tau == pytest.approx(1.0)
    assert result.p_value == pytest.approx(4 * (1 / 24) ** 6)
    backwards = position_bias([s[::-1] for s in shown], shown)
    assert not backwards.forward and backwards.p_value == pytest.approx(4 * (1 / 24) ** 6)


def test_one_vote_in_position_order_out_of_two_has_the_binomial_tail():
    shown = [[1, 2, 3], [4, 5, 6]]
    result = position_bias([[1, 2, 3], [6, 4, 5]], shown)
    q = 1 / 6
    assert result.n_identical == 1
    assert result.p_identical == pytest.approx(1 - (1 - q) ** 2)
    assert result.expected_identical == pytest.approx(2 * q)


def test_honest_voters_with_shuffled_screens_are_calibrated_and_mostly_position_voters_are_caught():
    rng = np.random.default_rng(42)
    strengths = rng.normal(size=12)
    honest_p, biased_p = [], []
    for _ in range(400):
        rankings, shown, lazy = [], [], []
        for _ in range(15):
            items = rng.choice(12, size=4, replace=False)
            screen = [int(x) for x in rng.permutation(items)]
            g = strengths[items] + rng.gumbel(size=4)
            rankings.append([int(x) for x in items[np.argsort(-g)]])
            shown.append(screen)
            # a lazy voter: screen order, with one adjacent swap half the time
            order = list(screen)
            if rng.random() < 0.5:
                s = int(rng.integers(0, 3))
                order[s], order[s + 1] = order[s + 1], order[s]
            lazy.append(order)
        honest_p.append(position_bias(rankings, shown).p_value)
        biased_p.append(position_bias(lazy, shown).p_value)
    honest_p, biased_p = np.array(honest_p), np.array(biased_p)
    assert np.mean(honest_p < 0.05) <= 0.05  # valid (conservative: Bonferroni over two tests, two directions)
    assert np.mean(honest_p < 0.2) > 0.02  # but not vacuous
    assert np.mean(biased_p < 1e-3) > 0.99


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="not shown"):
        position_bias([[1, 9]], [[1, 2, 3]])
    with pytest.raises(ValueError, match="no rankings"):
        position_bias([], [])
    with pytest.raises(ValueError, match="screen orders"):
        position_bias([[1, 2]], [])
