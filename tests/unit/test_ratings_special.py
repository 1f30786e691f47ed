"""The fit's numpy replacements for scipy (special functions, sparse incidence products, graph searches, the
Cholesky steps) against scipy itself and exact values, and the whole board fitted both ways."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse import csr_array
from scipy.sparse.csgraph import breadth_first_order, connected_components
from scipy.special import expit as scipy_expit
from scipy.special import ndtri, pdtr

import ratings
from ratings import graph, max_t, newton, resample
from ratings import intervals as iv
from ratings.special import expit, normal_ppf, poisson_cdf


def test_normal_quantile_matches_scipy_over_the_whole_range():
    p = np.concatenate(
        [
            np.logspace(-300, -1, 2000),
            np.linspace(0.001, 0.999, 4001),
            1.0 - np.logspace(-16, -1, 2000),
        ]
    )
    mine = np.array([normal_ppf(v) for v in p])
    ref = ndtri(p)
    assert np.all(np.abs(mine - ref) <= 1e-12 * np.maximum(1.0, np.abs(ref)))


def test_normal_quantile_known_values_and_ends():
    assert normal_ppf(0.975) == pytest.approx(1.959963984540054, abs=1e-15)
    assert normal_ppf(0.5) == 0.0
    assert normal_ppf(0.025) == pytest.approx(-normal_ppf(0.975), abs=1e-15)
    assert normal_ppf(0.0) == -math.inf and normal_ppf(1.0) == math.inf
    assert math.isnan(normal_ppf(1.5)) and math.isnan(normal_ppf(-0.1)) and math.isnan(normal_ppf(math.nan))
    assert iv.normal_quantile(0.95) == pytest.approx(1.959963984540054, abs=1e-15)
    assert iv.normal_quantile(0.99) == pytest.approx(2.5758293035489004, abs=1e-15)


def test_expit_matches_scipy_without_overflow():
    x = np.concatenate([np.linspace(-745.0, 745.0, 20001), [-1e6, 1e6, 0.0]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        mine = expit(x)
    ref = scipy_expit(x)
    assert np.all(np.abs(mine - ref) <= 4e-16 * ref + 1e-300)  # subnormal tails aside
    assert expit(-1e6) == 0.0 and expit(1e6) == 1.0


@pytest.mark.parametrize("lam", [1e-3, 0.2, 0.5, 1.0, 3.7, 17.3, 40.0, 63.99, 64.0])
def test_poisson_cdf_is_within_rounding_of_the_exact_values(lam):
    mpmath.mp.dps = 40
    top = math.ceil(lam + 12.0 * math.sqrt(lam) + 30.0)
    exact = np.array(
        [float(mpmath.gammainc(k + 1, lam, mpmath.inf, regularized=True)) for k in range(top + 1)]
    )
    assert np.abs(poisson_cdf(top, lam) - exact).max() <= 4e-16
    assert np.abs(poisson_cdf(top, lam) - pdtr(np.arange(top + 1), lam)).max() <= 1e-15


def test_inversion_tables_are_the_ones_scipy_pdtr_gives(monkeypatch):
    lams = np.concatenate([np.linspace(0.05, resample.TABLE_MAX_MEAN, 400), [0.999, 1.0, 2.0, 31.0]])
    ours = [resample._PoissonTable(float(lam)) for lam in lams]
    monkeypatch.setattr(resample, "poisson_cdf", lambda top, lam: pdtr(np.arange(top + 1), lam))
    for lam, mine in zip(lams, ours, strict=True):
        ref = resample._PoissonTable(float(lam))
        assert np.array_equal(mine.guide, ref.guide)
        assert np.array_equal(mine.base, ref.base)
        assert np.allclose(mine.breaks, ref.breaks, rtol=0, atol=1e-15)


def _random_pairs(rng: np.random.Generator, n: int, p: int, *, shuffled: bool) -> np.ndarray:
    i = rng.integers(0, n, p)
    j = (i + rng.integers(1, n, p)) % n
    pairs = np.column_stack([i, j])
    return pairs if shuffled else pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


@pytest.mark.parametrize("shuffled", [False, True])
def test_incidence_products_match_the_sparse_matrix(shuffled):
    rng = np.random.default_rng(3)
    for n, p in [(2, 1), (5, 12), (30, 200), (100, 4950)]:
        pairs = _random_pairs(rng, n, p, shuffled=shuffled)
        cols = np.arange(p)
        dense_i = csr_array((np.ones(p), (pairs[:, 0], cols)), shape=(n, p))
        dense_j = csr_array((np.ones(p), (pairs[:, 1], cols)), shape=(n, p))
        inc = newton.incidence(n, pairs)
        for x in (rng.normal(size=p), rng.normal(size=(p, 7))):
            assert np.allclose(inc @ x, (dense_i - dense_j) @ x, rtol=1e-13, atol=1e-12)
            assert np.allclose(inc.unsigned(x), (dense_i + dense_j) @ x, rtol=1e-13, atol=1e-12)
            assert np.allclose(inc.first(x), dense_i @ x, rtol=1e-13, atol=1e-12)
            assert np.allclose(inc.second(x), dense_j @ x, rtol=1e-13, atol=1e-12)
    assert (newton.incidence(3, np.zeros((0, 2), dtype=int)) @ np.zeros(0)).tolist() == [0.0, 0.0, 0.0]


def _scipy_graph(g: np.ndarray) -> csr_array:
    r, c = np.nonzero(g)
    return csr_array((np.ones(len(r)), (r, c)), shape=g.shape)


def test_strong_components_give_scipys_labels_on_random_graphs():
    rng = np.random.default_rng(7)
    for _ in range(1500):
        n = int(rng.integers(1, 60))
        g = rng.random((n, n)) < rng.uniform(0.0, 0.3)
        np.fill_diagonal(g, False)
        n_comp, labels = connected_components(_scipy_graph(g), directed=True, connection="strong")
        mine_n, mine = graph.strong_components(g)
        assert mine_n == n_comp
        assert np.array_equal(mine, labels)  # the same numbering, not only the same partition


def test_reachability_and_comparison_parts_match_csgraph():
    rng = np.random.default_rng(11)
    for _ in range(500):
        n = int(rng.integers(1, 40))
        p = int(rng.integers(0, 3 * n))
        pairs = _random_pairs(rng, max(n, 2), p, shuffled=True) if n > 1 else np.zeros((0, 2), dtype=int)
        n = max(n, 2)
        wins = rng.integers(0, 3, size=(len(pairs), 2)).astype(float)
        g = graph._win_graph(n, pairs, wins)
        start = int(rng.integers(0, n))
        expected = np.zeros(n, dtype=bool)
        expected[breadth_first_order(_scipy_graph(g), start, directed=True, return_predecessors=False)] = True
        assert np.array_equal(graph._reachable(g, start), expected)
        total = wins.sum(axis=1)
        met = total > 0
        undirected = csr_array((np.ones(int(met.sum())), (pairs[met, 0], pairs[met, 1])), shape=(n, n))
        k, labels = connected_components(undirected, directed=False)
        ref = sorted((np.flatnonzero(labels == c) for c in range(k)), key=lambda q: (-len(q), q[0]))
        mine = graph.comparison_components(n, pairs, total)
        assert [q.tolist() for q in mine] == [q.tolist() for q in ref]


def _cho_inverse(lap: np.ndarray) -> np.ndarray:
    system = newton._with_ones(lap)
    return cho_solve(cho_factor(system), np.eye(len(system)))


def test_newton_steps_and_the_sum_zero_inverse_match_scipys_cholesky():
    rng = np.random.default_rng(5)
    n = 12
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    curv = rng.uniform(0.5, 20.0, size=(len(pairs), 6))
    laps = newton.laplacians(curv, pairs, n)
    grad = rng.normal(size=(n, 6))
    grad -= grad.mean(axis=0)
    steps = newton._newton_steps(laps, grad)
    for k in range(6):
        ref = cho_solve(cho_factor(newton._with_ones(laps[k])), grad[:, k])
        assert np.allclose(steps[:, k], ref, rtol=1e-11, atol=1e-13)
        assert np.allclose(newton.sum_zero_inverse(laps[k]), _cho_inverse(laps[k]), rtol=1e-11, atol=1e-13)


def test_a_system_that_is_not_positive_definite_falls_back_column_by_column():
    lap = np.zeros((2, 3, 3))
    lap[0] = newton.laplacians(np.array([1.0, 2.0]), np.array([[0, 1], [1, 2]]), 3)
    lap[1] = -lap[0]  # negative definite once the ones are added
    grad = np.array([[1.0, 1.0], [-2.0, -2.0], [1.0, 1.0]])
    steps = newton._newton_steps(lap, grad)
    system = newton._with_ones(lap)
    assert np.allclose(system[0] @ steps[:, 0], grad[:, 0])
    assert np.allclose(steps[:, 1], np.linalg.lstsq(system[1], grad[:, 1], rcond=None)[0])


class _ScipyIncidence:
    """The solver's incidence operator as the scipy.sparse matrices it replaced."""

    def __init__(self, n: int, pairs: np.ndarray) -> None:
        cols = np.arange(len(pairs))
        ones = np.ones(len(pairs))
        self.a = csr_array((ones, (pairs[:, 0], cols)), shape=(n, len(pairs)))
        self.b = csr_array((ones, (pairs[:, 1], cols)), shape=(n, len(pairs)))

    def first(self, x: np.ndarray) -> np.ndarray:
        return self.a @ x

    def second(self, x: np.ndarray) -> np.ndarray:
        return self.b @ x

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        return (self.a - self.b) @ x

    def unsigned(self, x: np.ndarray) -> np.ndarray:
        return (self.a + self.b) @ x


def _scipy_steps(lap: np.ndarray, grad: np.ndarray) -> np.ndarray:
    system = newton._with_ones(lap)
    return np.column_stack([cho_solve(cho_factor(system[k]), grad[:, k]) for k in range(grad.shape[1])])


def _scipy_components(g: np.ndarray) -> tuple[int, np.ndarray]:
    return connected_components(_scipy_graph(g), directed=True, connection="strong")


@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
def test_the_board_is_the_same_fitted_with_the_scipy_pieces(monkeypatch, interval):
    # models far apart: in some replicates the weakest draws no win and takes the likelihood's limit
    rng = np.random.default_rng(4)
    names = np.array([f"m{k}" for k in range(9)], dtype=object)
    a, b, o = ratings.simulate.simulate_votes(1.5 * np.arange(9.0), 800, rng)
    use_case = rng.choice(["x", "y"], size=len(a)).tolist()
    votes = ratings.Votes.from_columns(names[a], names[b], o, use_case=use_case)
    kwargs = {"anchor": "m4", "n_bootstrap": 300, "seed": 1, "interval": interval}
    ours = ratings.compute_board(votes, **kwargs)
    if interval == "bootstrap":
        assert any("replicates left some model with no loss" in note for note in ours.notes)
    monkeypatch.setattr(newton, "Incidence", _ScipyIncidence)
    monkeypatch.setattr(newton, "_newton_steps", _scipy_steps)
    monkeypatch.setattr(newton, "sum_zero_inverse", lambda lap: _cho_inverse(lap))
    monkeypatch.setattr(iv, "sum_zero_inverse", lambda lap: _cho_inverse(lap))
    monkeypatch.setattr(iv, "expit", scipy_expit)
    monkeypatch.setattr(iv, "normal_ppf", lambda p: float(ndtri(p)))
    monkeypatch.setattr(graph, "strong_components", _scipy_components)
    monkeypatch.setattr(resample, "poisson_cdf", lambda top, lam: pdtr(np.arange(top + 1), lam))
    from ratings import bootstrap

    monkeypatch.setattr(bootstrap, "Incidence", _ScipyIncidence)
    theirs = ratings.compute_board(votes, **kwargs)
    assert [r.model for r in ours.rows] == [r.model for r in theirs.rows]
    for a, b in zip(ours.rows, theirs.rows, strict=True):
        assert a.rating == pytest.approx(b.rating, abs=1e-9)
        assert a.ci_low == pytest.approx(b.ci_low, abs=1e-9)
        assert a.ci_high == pytest.approx(b.ci_high, abs=1e-9)
        assert (a.rank, a.above) == (b.rank, b.above)
        assert a.p_best == pytest.approx(b.p_best, abs=1e-9)


def _general_max_t(x: np.ndarray, theta: np.ndarray, level: float) -> tuple[np.ndarray, float]:
    """The masked max-T of `pairwise_above_simultaneous` for replicates that may be infinite (its general path)."""
    theta = iv.center(theta)
    n = x.shape[1]
    i, j = np.triu_indices(n, 1)
    dev = (x[:, i] - x[:, j]) - (theta[i] - theta[j])
    se = np.sqrt(np.nanmean(np.where(np.isfinite(dev), dev, np.nan) ** 2, axis=0))
    d = theta[i] - theta[j]
    up, c = max_t.max_t_above(d, se, dev, level)
    down, _ = max_t.max_t_above(-d, se, dev, level)
    return max_t.pairs_to_matrix(n, i, j, up, down), c


@pytest.mark.parametrize("n", [2, 7, 40])
@pytest.mark.parametrize("level", [0.8, 0.95])
def test_the_max_t_of_finite_replicates_is_the_general_one_to_the_last_digit(n, level):
    rng = np.random.default_rng(n)
    theta = rng.normal(size=n) * 0.4
    x = theta + rng.normal(size=(500, n)) * rng.uniform(0.01, 0.2, size=n)
    theta[0] = theta[1]
    x[:, 0] = x[:, 1]  # a pair whose difference never moves: se 0, never claimed
    above, c = iv.pairwise_above_simultaneous(x, theta, level)
    ref_above, ref_c = _general_max_t(x, theta, level)
    assert c == ref_c
    assert np.array_equal(above, ref_above)
    assert not above[0, 1] and not above[1, 0]
