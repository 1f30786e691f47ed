"""Where ratings go when the likelihood has no finite maximum (used by resampled boards)."""

from __future__ import annotations

import numpy as np

from ratings.graph import (
    FINITE,
    MINUS_INF,
    PLUS_INF,
    UNDEFINED,
    comparison_components,
    largest_strong_member,
    limit_states,
)


def test_limit_states_place_models_relative_to_the_references_component():
    # 0 <-> 1 trade wins (reference component); 2 beat 1; 0 beat 3; 4 and 5 only met each other
    pairs = np.array([[0, 1], [1, 2], [0, 3], [4, 5]])
    wins = np.array([[3.0, 2.0], [0.0, 4.0], [5.0, 0.0], [1.0, 1.0]])
    states = limit_states(6, pairs, wins, reference=0)
    assert states.tolist() == [FINITE, FINITE, PLUS_INF, MINUS_INF, UNDEFINED, UNDEFINED]


def test_a_tie_links_both_ways_and_zero_rows_link_nothing():
    pairs = np.array([[0, 1], [1, 2]])
    wins = np.array([[0.5, 0.5], [0.0, 0.0]])
    assert limit_states(3, pairs, wins, reference=1).tolist() == [FINITE, FINITE, UNDEFINED]
    parts = comparison_components(3, pairs, wins.sum(axis=1))
    assert [p.tolist() for p in parts] == [[0, 1], [2]]


def test_the_bootstrap_reference_is_the_largest_strongly_connected_part_whatever_the_anchor():
    # 0 beat 1 only; 2, 3, 4 trade wins in a cycle: {2, 3, 4} is the largest part
    pairs = np.array([[0, 1], [2, 3], [3, 4], [4, 2], [1, 2]])
    wins = np.array([[2.0, 0.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    assert largest_strong_member(5, pairs, wins) == 1  # 1 ties 2, so {1, 2, 3, 4} is one part
    wins[4] = [0.0, 3.0]  # now 2 only beat 1: the part is {2, 3, 4}
    assert largest_strong_member(5, pairs, wins) == 2
    assert limit_states(5, pairs, wins, 2).tolist() == [UNDEFINED, MINUS_INF, FINITE, FINITE, FINITE]
