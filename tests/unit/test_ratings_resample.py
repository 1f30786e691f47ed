"""The fast multinomial sampler draws exactly Multinomial(N, counts / N)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ratings import MultinomialSampler, resample
from ratings.resample import _GUIDE_CELLS, _PoissonTable


@pytest.mark.parametrize("lam", [0.2, 3.7, 64.0, 5000.5])
def test_the_inversion_table_matches_cdf_inversion_cell_by_cell(lam):
    table = _PoissonTable(lam)
    edges = np.arange(_GUIDE_CELLS + 1) / _GUIDE_CELLS
    left = np.searchsorted(table.cdf, edges[:-1], side="right")
    right = np.searchsorted(table.cdf, edges[1:], side="left")
    clear = right == left
    np.testing.assert_array_equal(table.guide[clear], (left + table.offset)[clear])
    assert np.all(table.guide[~clear] < 0) and np.mean(~clear) < 0.02
    # an ambiguous cell resolves a uniform inside it exactly as inverting the CDF would
    rng = np.random.default_rng(5)
    cells = np.flatnonzero(~clear)
    u = (cells + rng.random(len(cells))) / _GUIDE_CELLS
    k = -1 - table.guide[cells].astype(np.int64)
    resolved = table.base[k] + (u[:, None] >= table.breaks[k]).sum(axis=1)
    np.testing.assert_array_equal(resolved, table.offset + np.searchsorted(table.cdf, u, side="right"))


@pytest.mark.parametrize(
    "counts",
    [
        [50, 30, 20],
        [3, 1, 6],
        [0, 4, 0, 9],
        [1] * 40,
        [7, 7, 7, 200, 1, 1, 0, 35],
        [3000, 5, 70, 64, 900, 0, 66],
    ],
)
@pytest.mark.parametrize("method", ["numpy", "poisson"])
def test_replicates_have_multinomial_totals_means_and_covariances(counts, method):
    c = np.array(counts)
    n = int(c.sum())
    draws = MultinomialSampler(c, method=method).draw(np.random.default_rng(7), 40_000)
    assert draws.shape == (len(c), 40_000)
    assert np.all(draws.sum(axis=0) == n)
    p = c / n
    expected_cov = n * (np.diag(p) - np.outer(p, p))
    tolerance = 5 * np.sqrt(n * p * (1 - p) / 40_000) + 1e-12
    assert np.all(np.abs(draws.mean(axis=1) - n * p) <= tolerance)
    np.testing.assert_allclose(np.cov(draws), expected_cov, atol=0.06 * expected_cov.diagonal().max())


@pytest.mark.parametrize("method", ["numpy", "poisson"])
def test_the_joint_distribution_passes_a_chi_square_test_against_the_exact_pmf(method):
    c = np.array([5, 3, 4])  # N = 12 > K: "poisson" is the Poisson path with top-up
    n = int(c.sum())
    sampler = MultinomialSampler(c, method=method)
    assert sampler.method == method
    draws = sampler.draw(np.random.default_rng(11), 60_000)
    outcomes = [k for k in itertools.product(range(n + 1), repeat=2) if sum(k) <= n]
    pmf = np.array([stats.multinomial.pmf([x, y, n - x - y], n, c / n) for x, y in outcomes])
    index = {k: m for m, k in enumerate(outcomes)}
    observed = np.bincount(
        [index[(x, y)] for x, y in zip(draws[0], draws[1], strict=True)], minlength=len(outcomes)
    )
    expected = pmf * draws.shape[1]
    keep = expected >= 5
    pooled_obs = np.append(observed[keep], observed[~keep].sum())
    pooled_exp = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(pooled_obs, pooled_exp).pvalue > 1e-3


def test_numpy_draws_for_at_most_root_n_rows_and_the_poisson_path_above():
    """The crossover (module docstring): numpy's binomial per row and replicate against the Poisson path's
    2 sqrt(N) top-up votes per replicate."""
    assert MultinomialSampler(np.full(570, 1754)).method == "numpy"  # 20 models' rows, a million votes
    assert MultinomialSampler(np.full(2340, 427)).method == "poisson"  # 40 models
    assert MultinomialSampler(np.full(100, 100)).method == "numpy"  # exactly sqrt(N) rows
    assert MultinomialSampler(np.full(101, 100)).method == "poisson"
    assert MultinomialSampler(np.array([1, 0, 1])).method == "votes"
    with pytest.raises(ValueError, match="unknown method"):
        MultinomialSampler(np.array([3, 4]), method="fast")


def test_numpy_draws_come_back_as_rows_by_replicates_in_either_dtype():
    c = np.array([900, 0, 50, 50])
    sampler = MultinomialSampler(c)
    assert sampler.method == "numpy"
    as_int = sampler.draw(np.random.default_rng(5), 7)
    as_float = sampler.draw(np.random.default_rng(5), 7, np.float64)
    assert as_int.shape == (4, 7) and as_int.dtype == np.int32 and as_int.flags.c_contiguous
    np.testing.assert_array_equal(as_int, as_float)
    assert np.all(as_int.sum(axis=0) == 1000) and np.all(as_int[1] == 0)


def test_same_seed_same_draws_and_unsorted_counts_are_fine():
    c = np.array([9, 2, 40, 0, 13, 13, 5])
    a = MultinomialSampler(c).draw(np.random.default_rng(3), 50)
    b = MultinomialSampler(c).draw(np.random.default_rng(3), 50)
    np.testing.assert_array_equal(a, b)
    assert np.all(a[3] == 0)
    assert math.isclose(a.mean(axis=1)[2], 40, rel_tol=0.1)


def test_fewer_votes_than_rows_draws_votes_directly():
    c = np.array([1, 0, 1, 1, 0, 0, 1])
    draws = MultinomialSampler(c).draw(np.random.default_rng(0), 1000)
    assert np.all(draws.sum(axis=0) == 4)
    assert np.all(draws[[1, 4, 5]] == 0)


def test_float_output_holds_the_same_draws():
    c = np.array([5, 3, 40, 2, 0, 7])
    as_int = MultinomialSampler(c).draw(np.random.default_rng(1), 30)
    as_float = MultinomialSampler(c).draw(np.random.default_rng(1), 30, np.float64)
    assert as_float.dtype == np.float64
    np.testing.assert_array_equal(as_int, as_float)


def test_tables_only_for_small_means_so_memory_does_not_grow_with_the_votes():
    """Rows with many votes draw from numpy's Poisson sampler: the shared table cache stays bounded by
    TABLE_MAX_MEAN however many distinct counts a large history has."""
    from ratings.resample import TABLE_MAX_MEAN

    tables: dict = {}
    counts = np.arange(1, 5001)  # 5,000 distinct counts, 12.5 million votes
    draws = MultinomialSampler(counts, tables).draw(np.random.default_rng(2), 20)
    assert np.all(draws.sum(axis=0) == counts.sum())
    assert tables and max(tables) <= TABLE_MAX_MEAN and len(tables) <= TABLE_MAX_MEAN
    assert np.all(np.abs(draws.mean(axis=1) - counts) <= 5 * np.sqrt(counts / 20) + 1)


def test_draws_keep_their_digits():
    # pinned when the top-up stopped sorting its draws (the same stream as before)
    c = np.array([1750, 3, 1801, 0, 40, 1750, 7, 64, 12])
    draws = MultinomialSampler(c, method="poisson").draw(np.random.default_rng(3), 4)
    assert draws.tolist() == [
        [1694, 1755, 1792, 1742],
        [4, 1, 3, 3],
        [1853, 1842, 1746, 1797],
        [0, 0, 0, 0],
        [30, 29, 47, 46],
        [1775, 1718, 1761, 1761],
        [11, 4, 5, 7],
        [54, 61, 61, 57],
        [6, 17, 12, 14],
    ]


@pytest.mark.parametrize(
    "counts",
    [
        np.random.default_rng(1).poisson(1750, 300),  # few rows with many votes: a dense top-up
        np.random.default_rng(2).integers(0, 40, 5000),  # many rows: a sparse top-up
        np.array([9, 2, 40, 0, 13, 13, 5, 100_000]),
        np.full(50_000, 3),  # few top-up votes for many rows: added one by one
    ],
)
def test_the_top_up_by_vote_table_or_by_sorting_gives_the_same_draws(counts, monkeypatch):
    draws = []
    for vote_table in (0, 1 << 40):
        monkeypatch.setattr(resample, "_VOTE_TABLE_MAX", vote_table)
        sampler = MultinomialSampler(counts, method="poisson")
        draws.append([sampler.draw(np.random.default_rng(s), r, np.float64) for s, r in [(3, 1), (4, 300)]])
    for one, other in zip(*draws, strict=True):
        np.testing.assert_array_equal(one, other)
