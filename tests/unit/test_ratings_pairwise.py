"""The pairwise machinery on its own: `pairwise_above` against a plain per-pair `numpy.nanquantile`,
with infinite and undefined replicates, and the small helpers built around it."""

from __future__ import annotations

import numpy as np
import pytest

from ratings import (
    center,
    difference_variances,
    display_offset,
    pairwise_above,
    pairwise_above_normal,
    ranks_from_above,
    replicate_intervals,
)
from ratings.scale import ELO_PER_NAT


def _plain(x: np.ndarray, level: float) -> np.ndarray:
    """above[j, i] by one nanquantile per pair (infinite differences as +-1e300, undefined ones skipped)."""
    n = x.shape[1]
    out = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            with np.errstate(invalid="ignore"):
                d = x[:, j] - x[:, i]
            d = np.clip(d[~np.isnan(d)], -1e300, 1e300)
            out[j, i] = d.size > 0 and np.quantile(d, (1 - level) / 2) > 0
    return out


def test_pairwise_above_matches_a_plain_quantile_per_pair_with_ties_infinities_and_gaps():
    rng = np.random.default_rng(5)
    for _ in range(300):
        rounds, n = int(rng.integers(1, 50)), int(rng.integers(2, 7))
        x = np.round(rng.normal(size=(rounds, n)) * 2) / 2 + rng.normal(size=n) * rng.uniform(0, 3)
        u = rng.random((rounds, n))
        x[u < 0.05] = np.inf
        x[(u >= 0.05) & (u < 0.1)] = -np.inf
        x[(u >= 0.1) & (u < 0.13)] = np.nan
        level = float(rng.choice([0.5, 0.8, 0.9, 0.95]))
        np.testing.assert_array_equal(pairwise_above(x, level), _plain(x, level))


def test_a_lead_is_never_significant_both_ways_and_ranks_count_the_models_above():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 9)) * 0.2 + np.linspace(0, 2, 9)
    above = pairwise_above(x)
    assert not (above & above.T).any() and not above.diagonal().any()
    np.testing.assert_array_equal(ranks_from_above(above), 1 + above.sum(axis=0))
    assert ranks_from_above(above)[-1] == 1 and ranks_from_above(above)[0] > 1
    # the gauge of each replicate does not matter: shifting every replicate by its own constant changes nothing
    np.testing.assert_array_equal(pairwise_above(x + rng.normal(size=(400, 1)) * 50), above)


def test_the_one_offset_puts_the_anchor_at_its_rating_and_moves_with_the_anchor_only():
    theta = np.array([0.3, -0.1, 0.8, -1.0])
    reps = center(theta + np.random.default_rng(2).normal(size=(500, 4)) * 0.1)
    for anchor in range(4):
        offset = display_offset(theta, anchor, 1200.0)
        assert offset + ELO_PER_NAT * center(theta)[anchor] == pytest.approx(1200.0, abs=1e-9)
    low0, high0 = replicate_intervals(reps, display_offset(theta, 0))
    low2, high2 = replicate_intervals(reps, display_offset(theta, 2))
    shift = display_offset(theta, 2) - display_offset(theta, 0)
    np.testing.assert_allclose(low2 - low0, shift, atol=1e-9)
    np.testing.assert_allclose(high2 - high0, shift, atol=1e-9)
    assert (high0 - low0 > 0).all()


def test_difference_variances_and_the_normal_rule():
    cov = np.array([[1.0, 0.2, 0.0], [0.2, 2.0, 0.5], [0.0, 0.5, 0.5]])
    var = difference_variances(cov)
    assert var[0, 1] == pytest.approx(1.0 + 2.0 - 0.4) and var[2, 2] == 0.0
    theta = np.array([0.0, 4.0, 0.5])
    above = pairwise_above_normal(theta, cov)
    assert above[1, 0] == (4.0 - 1.959963984540054 * np.sqrt(2.6) > 0)
    assert not above[2, 0]  # 0.5 - 1.96 * 1.22 < 0
