"""Where ratings go when the likelihood has no finite maximum (used by resampled boards)."""

from __future__ import annotations

import numpy as np

from ratings.graph import FINITE, MINUS_INF, PLUS_INF, UNDEFINED, comparison_components, limit_states


def test_limit_states_place_models_relative_to_the_anchors_component():
    # 0 <-> 1 trade wins (anchor's component); 2 beat 1; 0 beat 3; 4 and 5 only met each other
    pairs = np.array([[0, 1], [1, 2], [0, 3], [4, 5]])
    wins = np.array([[3.0, 2.0], [0.0, 4.0], [5.0, 0.0], [1.0, 1.0]])
    states = limit_states(6, pairs, wins, anchor=0)
    assert states.tolist() == [FINITE, FINITE, PLUS_INF, MINUS_INF, UNDEFINED, UNDEFINED]


def test_a_tie_links_both_ways_and_zero_rows_link_nothing():
    pairs = np.array([[0, 1], [1, 2]])
    wins = np.array([[0.5, 0.5], [0.0, 0.0]])
    assert limit_states(3, pairs, wins, anchor=1).tolist() == [FINITE, FINITE, UNDEFINED]
    parts = comparison_components(3, pairs, wins.sum(axis=1))
    assert [p.tolist() for p in parts] == [[0, 1], [2]]
