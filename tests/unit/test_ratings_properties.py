"""Properties the Bradley-Terry fit must have whatever the votes (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import (
    ELO_PER_NAT,
    count_pairs,
    expected_win_matrix,
    expected_win_probability,
    fit_bradley_terry,
    to_elo,
)

WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")
FLIP = {"model_a": "model_b", "model_b": "model_a", "tie": "tie", "tie (bothbad)": "tie (bothbad)"}
PROPERTY = settings(max_examples=60, deadline=None)


@st.composite
def vote_sets(draw: st.DrawFn) -> tuple[int, list[tuple[int, int, str]]]:
    """Random votes among 2-6 models plus a ring of ties, so that finite ratings always exist."""
    n = draw(st.integers(2, 6))
    pair = st.tuples(st.integers(0, n - 1), st.integers(1, n - 1)).map(lambda t: (t[0], (t[0] + t[1]) % n))
    votes = draw(st.lists(st.tuples(pair, st.sampled_from(WINNERS)), min_size=0, max_size=40))
    ring = [((k, (k + 1) % n), "tie") for k in range(n if n > 2 else 1)]
    return n, [(a, b, w) for (a, b), w in votes + ring]


def _theta(votes: list[tuple[int, int, str]], names: list[str]) -> dict[str, float]:
    counts = count_pairs(
        [names[a] for a, _, _ in votes], [names[b] for _, b, _ in votes], [w for *_, w in votes]
    )
    fit = fit_bradley_terry(counts)
    assert fit.converged
    return dict(zip(counts.models, fit.theta - fit.theta.mean(), strict=True))


@PROPERTY
@given(vote_sets(), st.randoms(use_true_random=False))
def test_relabelling_models_permutes_the_ratings(data, random):
    n, votes = data
    names = [f"m{k}" for k in range(n)]
    shuffled = names[:]
    random.shuffle(shuffled)
    original = _theta(votes, names)
    relabelled = _theta(votes, shuffled)
    for k in range(n):
        assert abs(original[names[k]] - relabelled[shuffled[k]]) < 1e-8


@PROPERTY
@given(vote_sets())
def test_swapping_sides_and_flipping_outcomes_changes_nothing(data):
    n, votes = data
    names = [f"m{k}" for k in range(n)]
    swapped = [(b, a, FLIP[w]) for a, b, w in votes]
    original, mirrored = _theta(votes, names), _theta(swapped, names)
    for name in names:
        assert abs(original[name] - mirrored[name]) < 1e-9


@PROPERTY
@given(vote_sets(), st.integers(2, 4))
def test_duplicating_every_vote_leaves_the_mle_unchanged(data, copies):
    n, votes = data
    names = [f"m{k}" for k in range(n)]
    original, duplicated = _theta(votes, names), _theta(votes * copies, names)
    for name in names:
        assert abs(original[name] - duplicated[name]) < 1e-8


@PROPERTY
@given(
    st.floats(-3000, 3000, allow_nan=False),
    st.floats(-3000, 3000, allow_nan=False),
)
def test_win_probabilities_of_a_pair_sum_to_one(r_i, r_j):
    p = expected_win_probability(r_i, r_j) + expected_win_probability(r_j, r_i)
    assert abs(float(p) - 1.0) < 1e-12


@PROPERTY
@given(st.lists(st.floats(-50, 50, allow_nan=False), min_size=2, max_size=8), st.data())
def test_the_anchor_reads_exactly_its_rating_and_gaps_scale_by_400_over_ln10(theta, data):
    anchor = data.draw(st.integers(0, len(theta) - 1))
    rating = data.draw(st.floats(-5000, 5000, allow_nan=False))
    elo = to_elo(np.array(theta), anchor, rating)
    assert elo[anchor] == rating
    np.testing.assert_allclose(np.diff(elo), ELO_PER_NAT * np.diff(theta), atol=1e-9)
    matrix = expected_win_matrix(elo)
    np.testing.assert_allclose(matrix + matrix.T, 1.0, atol=1e-12)
