"""Agreement between a judge and people: rates with Wilson intervals, Cohen's kappa with a bootstrap interval,
and rank correlations between two boards. Pure numpy/scipy, so the bench and the report share every formula.

Outcomes use the ratings package's codes from A's point of view: 0 = A wins, 1 = B wins, 2 = tie.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "Agreement",
    "RankCorrelation",
    "cohen_kappa",
    "confusion_matrix",
    "kendall_rows",
    "measure_agreement",
    "rank_correlation",
    "spearman_rows",
    "symmetrize",
    "wilson_interval",
]

N_CATEGORIES = 3


def wilson_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (stays inside [0, 1], sane at 0 and n successes)."""
    if n <= 0:
        return (float("nan"), float("nan"))
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, float(centre - half)), min(1.0, float(centre + half)))


def confusion_matrix(judge: np.ndarray, human: np.ndarray, k: int = N_CATEGORIES) -> np.ndarray:
    """``k x k`` counts: rows are the judge's outcome, columns the human majority's."""
    judge = np.asarray(judge, dtype=np.int64)
    human = np.asarray(human, dtype=np.int64)
    if judge.shape != human.shape:
        raise ValueError("judge and human outcomes differ in length")
    return np.bincount(judge * k + human, minlength=k * k).reshape(k, k).astype(np.float64)


MIRROR = np.array([1, 0, 2])  # A wins <-> B wins, tie stays


def symmetrize(tables: np.ndarray) -> np.ndarray:
    """Average a confusion table (or a stack) with its A/B mirror image. Which model of a matchup is "A" is
    arbitrary (name order), so chance agreement must not depend on it: without this, a data set where A happens
    to be the weaker model in most matchups would have a lopsided marginal and a kappa near 0 for any judge."""
    return (tables + tables[..., MIRROR, :][..., :, MIRROR]) / 2


def _kappa_from_tables(tables: np.ndarray) -> np.ndarray:
    """Cohen's kappa of one or many confusion tables (last two axes); nan where chance agreement is 1."""
    n = tables.sum(axis=(-2, -1))
    p_o = np.trace(tables, axis1=-2, axis2=-1) / n
    p_e = (tables.sum(axis=-1) * tables.sum(axis=-2)).sum(axis=-1) / (n * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p_e < 1, (p_o - p_e) / (1 - p_e), np.nan)


def cohen_kappa(judge: np.ndarray, human: np.ndarray, *, symmetric: bool = False) -> float:
    """Cohen's kappa: (observed - chance agreement) / (1 - chance agreement); `symmetric` first averages the
    table with its A/B mirror (see :func:`symmetrize`)."""
    table = confusion_matrix(judge, human)
    return float(_kappa_from_tables(symmetrize(table) if symmetric else table))


@dataclass(frozen=True)
class Agreement:
    """How often the judge's outcome equals the human majority's, with intervals, and the chance level."""

    n: int
    agree: int
    rate: float
    low: float
    high: float
    chance: float  # agreement expected from the two marginals alone (kappa's p_e)
    kappa: float
    kappa_low: float
    kappa_high: float

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-safe (nan becomes None)."""
        return {
            k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in self.__dict__.items()
        }


def measure_agreement(
    judge: np.ndarray,
    human: np.ndarray,
    *,
    level: float = 0.95,
    n_bootstrap: int = 2000,
    rng: np.random.Generator | None = None,
) -> Agreement:
    """Agreement rate (Wilson interval) and Cohen's kappa (percentile bootstrap over matchups) of outcomes
    coded from A's point of view. Kappa and the chance level are computed on the A/B-symmetrized table
    (:func:`symmetrize`), so they do not depend on which model of each matchup is called A; the agreement
    rate is the same either way.

    The kappa bootstrap resamples the confusion table multinomially, which is the same as resampling
    matchups with replacement and costs nothing per matchup.
    """
    table = confusion_matrix(judge, human)
    n = int(table.sum())
    nan = float("nan")
    if n == 0:
        return Agreement(0, 0, nan, nan, nan, nan, nan, nan, nan)
    agree = int(np.trace(table))
    low, high = wilson_interval(agree, n, level)
    sym = symmetrize(table)
    chance = float((sym.sum(axis=1) * sym.sum(axis=0)).sum() / (n * n))
    kappa = float(_kappa_from_tables(sym))
    rng = rng or np.random.default_rng(0)
    draws = rng.multinomial(n, table.ravel() / n, size=n_bootstrap).reshape(-1, N_CATEGORIES, N_CATEGORIES)
    boot = _kappa_from_tables(symmetrize(draws.astype(np.float64)))
    boot = boot[np.isfinite(boot)]
    tail = (1 - level) / 2
    k_low, k_high = (nan, nan) if boot.size == 0 else np.quantile(boot, [tail, 1 - tail])
    return Agreement(n, agree, agree / n, low, high, chance, kappa, float(k_low), float(k_high))


@dataclass(frozen=True)
class RankCorrelation:
    """Kendall's tau-b and Spearman's rho between two boards' ratings, with basic bootstrap intervals."""

    n_models: int
    kendall: float
    kendall_low: float
    kendall_high: float
    spearman: float
    spearman_low: float
    spearman_high: float
    replicates: int

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-safe (nan becomes None)."""
        return {
            k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in self.__dict__.items()
        }


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row of ``x`` with the same row of ``y`` (rows of equal length, finite)."""
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    i, j = np.triu_indices(x.shape[1], 1)
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sx * sy).sum(axis=1) / np.sqrt((sx != 0).sum(axis=1) * (sy != 0).sum(axis=1))


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho (Pearson correlation of average ranks) of each row pair."""
    rx = stats.rankdata(np.atleast_2d(x), axis=1)
    ry = stats.rankdata(np.atleast_2d(y), axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(axis=1) / np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))


def _rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both correlations per row; a row with a non-finite rating drops that model from that row."""
    tau, rho = np.full(len(x), np.nan), np.full(len(x), np.nan)
    ok = np.isfinite(x).all(axis=1) & np.isfinite(y).all(axis=1)
    if ok.any():
        tau[ok], rho[ok] = kendall_rows(x[ok], y[ok]), spearman_rows(x[ok], y[ok])
    for k in np.flatnonzero(~ok):
        keep = np.isfinite(x[k]) & np.isfinite(y[k])
        if keep.sum() >= 3:
            tau[k] = kendall_rows(x[k, keep], y[k, keep])[0]
            rho[k] = spearman_rows(x[k, keep], y[k, keep])[0]
    return tau, rho


def rank_correlation(
    judge: np.ndarray, human: np.ndarray, judge_boot: np.ndarray, human_boot: np.ndarray, level: float = 0.95
) -> RankCorrelation:
    """Correlations of the point ratings, with basic (reverse-percentile) bootstrap intervals from paired
    replicates (rows of ``*_boot``), clipped to [-1, 1].

    Estimation noise pulls a sample rank correlation towards zero, and a replicate's noise pulls it further;
    the basic interval (2 x estimate - upper quantile, 2 x estimate - lower quantile) undoes that shift to
    first order, where a percentile interval would sit below the true value.
    """
    judge, human = np.asarray(judge, float), np.asarray(human, float)
    tau, rho = (float(v[0]) for v in _rows(judge[None, :], human[None, :]))
    boot_tau, boot_rho = _rows(np.asarray(judge_boot, float), np.asarray(human_boot, float))
    tail = (1 - level) / 2
    nan = float("nan")

    def basic(point: float, col: np.ndarray) -> tuple[float, float]:
        col = col[np.isfinite(col)]
        if col.size == 0 or not np.isfinite(point):
            return (nan, nan)
        lo_q, hi_q = np.quantile(col, [tail, 1 - tail])
        return (float(max(-1.0, 2 * point - hi_q)), float(min(1.0, 2 * point - lo_q)))

    k_low, k_high = basic(tau, boot_tau)
    s_low, s_high = basic(rho, boot_rho)
    return RankCorrelation(len(judge), tau, k_low, k_high, rho, s_low, s_high, len(boot_tau))
