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
    "measure_agreement",
    "rank_correlation",
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


def _kappa_from_tables(tables: np.ndarray) -> np.ndarray:
    """Cohen's kappa of one or many confusion tables (last two axes); nan where chance agreement is 1."""
    n = tables.sum(axis=(-2, -1))
    p_o = np.trace(tables, axis1=-2, axis2=-1) / n
    p_e = (tables.sum(axis=-1) * tables.sum(axis=-2)).sum(axis=-1) / (n * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p_e < 1, (p_o - p_e) / (1 - p_e), np.nan)


def cohen_kappa(judge: np.ndarray, human: np.ndarray) -> float:
    """Cohen's kappa: (observed - chance agreement) / (1 - chance agreement)."""
    return float(_kappa_from_tables(confusion_matrix(judge, human)))


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
    """Agreement rate (Wilson interval) and Cohen's kappa (percentile bootstrap over matchups).

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
    chance = float((table.sum(axis=1) * table.sum(axis=0)).sum() / (n * n))
    kappa = float(_kappa_from_tables(table))
    rng = rng or np.random.default_rng(0)
    draws = rng.multinomial(n, table.ravel() / n, size=n_bootstrap).reshape(-1, N_CATEGORIES, N_CATEGORIES)
    boot = _kappa_from_tables(draws.astype(np.float64))
    boot = boot[np.isfinite(boot)]
    tail = (1 - level) / 2
    k_low, k_high = (nan, nan) if boot.size == 0 else np.quantile(boot, [tail, 1 - tail])
    return Agreement(n, agree, agree / n, low, high, chance, kappa, float(k_low), float(k_high))


@dataclass(frozen=True)
class RankCorrelation:
    """Kendall's tau-b and Spearman's rho between two boards' ratings, with bootstrap percentile intervals."""

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


def _pair(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return (float("nan"), float("nan"))
    tau = stats.kendalltau(x[ok], y[ok]).statistic
    rho = stats.spearmanr(x[ok], y[ok]).statistic
    return (float(tau), float(rho))


def rank_correlation(
    judge: np.ndarray, human: np.ndarray, judge_boot: np.ndarray, human_boot: np.ndarray, level: float = 0.95
) -> RankCorrelation:
    """Correlations of the point ratings, intervals from paired bootstrap replicates (rows of ``*_boot``).

    Replicates where a model's rating is not finite drop that model from that replicate's correlation.
    """
    tau, rho = _pair(np.asarray(judge, float), np.asarray(human, float))
    pairs = np.array([_pair(j, h) for j, h in zip(judge_boot, human_boot, strict=True)]).reshape(-1, 2)
    tail = (1 - level) / 2
    nan = float("nan")

    def bounds(col: np.ndarray) -> tuple[float, float]:
        col = col[np.isfinite(col)]
        return (nan, nan) if col.size == 0 else tuple(float(v) for v in np.quantile(col, [tail, 1 - tail]))

    k_low, k_high = bounds(pairs[:, 0])
    s_low, s_high = bounds(pairs[:, 1])
    return RankCorrelation(len(judge), tau, k_low, k_high, rho, s_low, s_high, len(pairs))
