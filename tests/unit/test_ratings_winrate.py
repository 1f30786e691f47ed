"""Head-to-head tables: observed win rates and expected win probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from ratings import count_pairs, expected_win_matrix, expected_win_probability, win_rate_matrix


def test_win_rate_matrix_counts_wins_ties_and_games_per_pair():
    counts = count_pairs(
        ["a", "a", "b", "c", "a"],
        ["b", "b", "a", "a", "c"],
        ["model_a", "tie", "model_a", "model_b", "tie (bothbad)"],
    )
    table = win_rate_matrix(counts)
    assert table.models == ("a", "b", "c")
    np.testing.assert_array_equal(table.wins, [[0, 1, 1], [1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(table.ties, [[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(table.games, [[0, 3, 2], [3, 0, 0], [2, 0, 0]])
    rate = table.rate
    assert rate[0, 1] == pytest.approx(0.5) and rate[0, 2] == pytest.approx(0.75)
    assert np.isnan(rate[1, 2]) and np.isnan(rate[0, 0])
    np.testing.assert_allclose((rate + rate.T)[table.games > 0], 1.0)


def test_expected_win_probability_follows_the_elo_formula():
    assert expected_win_probability(1400, 1000) == pytest.approx(10 / 11)
    assert expected_win_probability(1000, 1000) == pytest.approx(0.5)
    assert expected_win_probability(0, 1e6) == pytest.approx(0.0, abs=1e-300)
    matrix = expected_win_matrix(np.array([1000.0, 1200.0, 800.0]))
    np.testing.assert_allclose(np.diag(matrix), 0.5)
    assert matrix[1, 2] == pytest.approx(1 / (1 + 10 ** (-1.0)))
