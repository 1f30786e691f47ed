"""The anomaly filters' p-values through the fast paths (scipy's `ndtr` ufunc, cached `binomtest`) are the
very numbers `scipy.stats` gives, bit for bit, so a verdict never changes with the speed-up."""

import numpy as np
from scipy import stats

from arena.voting.filters.anomaly import normal_cdf, same_side_p_value


def test_normal_cdf_and_its_tail_equal_scipy_stats_bit_for_bit():
    z = np.concatenate([np.random.default_rng(3).normal(0.0, 4.0, 5000), [0.0, -0.0, 8.5, -8.5, 40.0, -40.0]])
    for x in z.tolist():
        assert normal_cdf(x) == float(stats.norm.cdf(x))
        assert normal_cdf(-x) == float(stats.norm.sf(x))
    assert normal_cdf(float("inf")) == 1.0 and normal_cdf(float("-inf")) == 0.0


def test_same_side_p_value_equals_binomtest_for_every_session_size():
    for n in range(10, 61):
        for left in range(n + 1):
            assert same_side_p_value(left, n) == stats.binomtest(left, n, 0.5).pvalue
    assert same_side_p_value(3, 20) < 0.01 < same_side_p_value(6, 20)
