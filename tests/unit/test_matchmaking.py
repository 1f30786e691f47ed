"""The matchmaking rule: uncertain, wide-interval pairs first; new models oversampled; share cap; random sides."""

from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from arena.matchmaking import Standing, choose_pair, eligible_models, pair_weight


def test_close_pairs_outweigh_far_pairs_and_wide_intervals_outweigh_narrow_ones():
    close = pair_weight(Standing(1000, 30), Standing(1010, 30), 60)
    far = pair_weight(Standing(1000, 30), Standing(1300, 30), 60)
    assert close > 20 * far
    wide = pair_weight(Standing(1000, 50), Standing(1010, 50), 60)
    assert wide > close


def test_a_new_model_with_a_wide_interval_is_boosted():
    settled = pair_weight(Standing(1000, 30), Standing(1000, 30), 60)
    new = pair_weight(Standing(1000, 30), Standing(1000, 59), 60)
    boosted = pair_weight(Standing(1000, 30), Standing(1000, 61), 60)
    assert boosted > 2.5 * new > 2.5 * settled


def test_pairs_are_drawn_in_proportion_to_their_weights_with_random_sides():
    standings = {
        "a": Standing(1000, 40),
        "b": Standing(1020, 40),
        "c": Standing(1200, 40),
        "d": Standing(980, 80),
    }
    rng = np.random.default_rng(9)
    draws = [choose_pair(list(standings), standings, rng) for _ in range(40_000)]
    pairs = Counter(tuple(sorted(d)) for d in draws)
    keys = sorted(pairs)
    weights = np.array([pair_weight(standings[x], standings[y], 60.0) for x, y in keys])
    expected = weights / weights.sum() * len(draws)
    assert chisquare([pairs[k] for k in keys], expected)[1] > 0.001
    lefts = Counter(d[0] for d in draws if set(d) == {"a", "b"})
    assert abs(lefts["a"] / (lefts["a"] + lefts["b"]) - 0.5) < 0.02


def test_models_over_the_share_cap_are_left_out_unless_fewer_than_two_remain():
    assert eligible_models(["a", "b", "c"], {"a": 0.9, "b": 0.2, "c": 0.3}, 0.5) == ["b", "c"]
    assert eligible_models(["a", "b"], {"a": 0.9, "b": 0.9}, 0.5) == ["a", "b"]
    rng = np.random.default_rng(1)
    seen = {
        m for _ in range(500) for m in choose_pair(["a", "b", "c"], {}, rng, shares={"a": 0.9}, max_share=0.5)
    }
    assert seen == {"b", "c"}


def test_pairing_needs_two_models():
    with pytest.raises(ValueError, match="fewer than two"):
        choose_pair(["a", "a"], {}, np.random.default_rng(0))
