"""Agreement between a judge and people: rates with Wilson intervals, Cohen's kappa and the kappa with
A/B-symmetrised marginals with bootstrap intervals. Pure numpy/scipy, so the bench and the judge's report share
every formula (rank correlations between two boards are in :mod:`ratings.rank_correlation`).

Outcomes use the ratings package's codes from A's point of view: 0 = A wins, 1 = B wins, 2 = tie.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ratings.proportions import wilson_interval

__all__ = ["Agreement", "cohen_kappa", "confusion_matrix", "measure_agreement", "symmetrize"]

N_CATEGORIES = 3


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
    """How often the judge's outcome equals the human majority's, with intervals, the chance levels, and two
    kappas, each named for what it is:

    - ``cohen_kappa``: Cohen's kappa of the judge-vs-human confusion table as it stands (chance agreement from
      the two raters' own marginals, ``cohen_chance``);
    - ``sym_kappa``: kappa with A/B-symmetrised marginals: Cohen's kappa of the table averaged with its A/B
      mirror (:func:`symmetrize`), the same as Cohen's kappa of every matchup counted once as labelled and once
      with A and B swapped. Its chance level is ``sym_chance``. It does not depend on which model of a matchup
      is called A (name order), which plain Cohen's kappa does.

    ``decisive_*`` is the agreement on the matchups where neither the judge nor the human majority is a tie.
    ``bootstrap`` says what the kappa intervals resample: ``prompts`` (matchups of one prompt together) or
    ``matchups``.
    """

    n: int
    agree: int
    rate: float
    low: float
    high: float
    decisive_n: int
    decisive_agree: int
    decisive_rate: float
    decisive_low: float
    decisive_high: float
    cohen_chance: float
    cohen_kappa: float
    cohen_kappa_low: float
    cohen_kappa_high: float
    sym_chance: float
    sym_kappa: float
    sym_kappa_low: float
    sym_kappa_high: float
    bootstrap: str
    clusters: int

    def to_dict(self) -> dict[str, float | int | str | None]:
        """JSON-safe (nan becomes None)."""
        return {
            k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in self.__dict__.items()
        }


def _chance(tables: np.ndarray) -> np.ndarray:
    """Agreement expected from the row and column marginals alone (kappa's p_e)."""
    n = tables.sum(axis=(-2, -1))
    return (tables.sum(axis=-1) * tables.sum(axis=-2)).sum(axis=-1) / (n * n)


def _boot_tables(
    judge: np.ndarray,
    human: np.ndarray,
    clusters: np.ndarray | None,
    n_bootstrap: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, int]:
    """Bootstrap replicates of the confusion table, (n_bootstrap, k, k), and the number of resampled units.

    Without clusters, matchups are resampled with replacement: a multinomial draw of the table. With clusters
    (a prompt id per matchup), whole clusters are resampled with replacement, so matchups of the same prompt,
    which share a prompt's difficulty, move together and the interval is not narrowed by their correlation.
    """
    k = N_CATEGORIES
    cells = judge * k + human
    if clusters is None:
        n = cells.size
        counts = np.bincount(cells, minlength=k * k)
        draws = rng.multinomial(n, counts / n, size=n_bootstrap)
        return draws.reshape(-1, k, k).astype(np.float64), n
    _, index = np.unique(np.asarray(clusters, dtype=object).astype(str), return_inverse=True)
    n_clusters = int(index.max()) + 1
    per_cluster = np.zeros((n_clusters, k * k))
    np.add.at(per_cluster, (index, cells), 1.0)
    weights = rng.multinomial(n_clusters, np.full(n_clusters, 1 / n_clusters), size=n_bootstrap)
    return (weights @ per_cluster).reshape(-1, k, k), n_clusters


def _quantiles(values: np.ndarray, level: float) -> tuple[float, float]:
    values = values[np.isfinite(values)]
    if values.size == 0:
        return (float("nan"), float("nan"))
    tail = (1 - level) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return (float(low), float(high))


def measure_agreement(
    judge: np.ndarray,
    human: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    level: float = 0.95,
    n_bootstrap: int = 2000,
    rng: np.random.Generator | None = None,
) -> Agreement:
    """Agreement rate and decisive agreement (Wilson intervals), Cohen's kappa and the kappa with A/B-symmetrised
    marginals (percentile bootstrap intervals from the same replicates) of outcomes coded from A's point of view.

    The bootstrap resamples prompts when ``clusters`` (one prompt id per matchup) is given, else matchups
    (a multinomial draw of the confusion table, the same as resampling matchups with replacement).
    """
    judge = np.asarray(judge, dtype=np.int64)
    human = np.asarray(human, dtype=np.int64)
    table = confusion_matrix(judge, human)
    n = int(table.sum())
    nan = float("nan")
    unit = "matchups" if clusters is None else "prompts"
    if n == 0:
        return Agreement(
            0, 0, nan, nan, nan, 0, 0, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, unit, 0
        )
    agree = int(np.trace(table))
    low, high = wilson_interval(agree, n, level)
    decisive = table[:2, :2]
    d_n, d_agree = int(decisive.sum()), int(np.trace(decisive))
    d_rate = d_agree / d_n if d_n else nan
    d_low, d_high = wilson_interval(d_agree, d_n, level)
    sym = symmetrize(table)
    rng = rng or np.random.default_rng(0)
    draws, units = _boot_tables(judge, human, clusters, n_bootstrap, rng)
    c_low, c_high = _quantiles(_kappa_from_tables(draws), level)
    s_low, s_high = _quantiles(_kappa_from_tables(symmetrize(draws)), level)
    return Agreement(
        n,
        agree,
        agree / n,
        low,
        high,
        d_n,
        d_agree,
        d_rate,
        d_low,
        d_high,
        float(_chance(table)),
        float(_kappa_from_tables(table)),
        c_low,
        c_high,
        float(_chance(sym)),
        float(_kappa_from_tables(sym)),
        s_low,
        s_high,
        unit,
        units,
    )
