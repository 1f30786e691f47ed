"""The one Wilson interval and the head-to-head win expectation, both in the pure ratings package."""

import math

import pytest

from ratings.proportions import wilson_interval
from ratings.winrate import expected_win, expected_win_probability


def test_no_data_gives_nan_and_exact_ends_at_zero_and_all_successes():
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    assert wilson_interval(0, 7)[0] == 0.0 and wilson_interval(7, 7)[1] == 1.0


def test_a_tie_counts_half_and_a_wider_level_gives_a_wider_interval():
    low, high = wilson_interval(4.5, 10)
    assert low < 0.45 < high
    wide = wilson_interval(4.5, 10, 0.99)
    assert wide[0] < low and wide[1] > high


def test_expected_win_agrees_with_the_elo_form_and_is_complementary():
    assert expected_win(1100.0, 1000.0) == pytest.approx(float(expected_win_probability(1100.0, 1000.0)))
    assert expected_win(1100.0, 1000.0) + expected_win(1000.0, 1100.0) == pytest.approx(1.0)
    assert expected_win(1000.0, 1000.0) == 0.5
