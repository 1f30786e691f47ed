"""Intervals of rating differences: "is X better than the anchor (or any chosen model), and by how much?".

A board's displayed interval of a model is the interval of its rating on the board's *centred* scale (sum-zero
log-strengths, shifted by one constant so the anchor's point estimate reads 1000; :mod:`ratings.intervals`). It
is not an interval of the gap to the anchor: the anchor has sampling error of its own, so "1000 + the true gap
to the anchor" falls in it well under 95% of the time (``bench/bench_anchor_intervals.py``). The gap to a
reference model needs the interval of the difference, which depends on the *joint* uncertainty of the two.

Here the difference ``d = R_x - R_ref`` (Elo-like, the point estimates; the display shift cancels) gets
``d -+ z se`` with ``se`` the standard error of the difference the board's pairwise claims use
(:func:`difference_standard_errors`: the replicates' root mean square deviation of the difference from ``d``
on a bootstrap board, the sandwich covariance on a sandwich board), and ``z`` the normal quantile of the level:
a **per-pair** interval, right about ``level`` of the time for that one pair. The simultaneous version
``d -+ c se`` uses the board's max-T critical value ``c``, the intervals the ranks are read from (all pairs of
the board right together about ``level`` of the time). Both are anchor-invariant: no anchor enters ``se``,
``c`` or ``d``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ratings.intervals import DEFAULT_LEVEL, center, difference_variances, normal_quantile
from ratings.scale import ELO_PER_NAT

__all__ = [
    "Difference",
    "difference_standard_errors",
    "relative_differences",
    "sandwich_difference_standard_errors",
]


def difference_standard_errors(replicates: np.ndarray, theta_hat: np.ndarray) -> np.ndarray:
    """``(n, n)`` Elo-like standard errors of ``R_j - R_i`` from ``(R, n)`` bootstrap replicates (nats, any gauge).

    ``se_ij`` is the root mean square deviation of the replicates' difference from the estimate's difference,
    the ``se`` of the board's max-T rule (:func:`ratings.intervals.pairwise_above_simultaneous`). A pair whose
    difference is infinite or undefined in some replicate (a model with no loss or no win in a resample) has
    no finite standard error: ``nan``, read as an unbounded interval. Zero on the diagonal.
    """
    x = np.asarray(replicates, dtype=np.float64)
    theta_hat = center(theta_hat)
    n = x.shape[1]
    se = np.full((n, n), np.nan)
    np.fill_diagonal(se, 0.0)
    if len(x) < 2:
        return se
    i, j = np.triu_indices(n, 1)
    with np.errstate(invalid="ignore"):
        dev = (x[:, i] - x[:, j]) - (theta_hat[i] - theta_hat[j])
    ok = np.isfinite(dev).all(axis=0)
    values = np.full(len(i), np.nan)
    values[ok] = ELO_PER_NAT * np.sqrt(np.mean(dev[:, ok] ** 2, axis=0))
    se[i, j] = values
    se[j, i] = values
    return se


def sandwich_difference_standard_errors(cov: np.ndarray) -> np.ndarray:
    """``(n, n)`` Elo-like standard errors of ``R_j - R_i`` from a covariance of the log-strengths (nats)."""
    return ELO_PER_NAT * np.sqrt(difference_variances(np.asarray(cov, dtype=np.float64)))


@dataclass(frozen=True)
class Difference:
    """``R_model - R_reference`` (Elo-like) with its per-pair and simultaneous intervals (``None``: unbounded)."""

    model: str
    estimate: float
    low: float | None
    high: float | None
    simultaneous_low: float | None
    simultaneous_high: float | None


def _ends(d: float, half: float) -> tuple[float | None, float | None]:
    if not np.isfinite(half):
        return None, None
    return d - half, d + half


def relative_differences(
    models: list[str] | tuple[str, ...],
    ratings: np.ndarray,
    se: np.ndarray,
    reference: int,
    *,
    level: float = DEFAULT_LEVEL,
    critical: float = float("nan"),
) -> list[Difference]:
    """Every model's difference from model ``reference``: ``d -+ z se`` per pair and ``d -+ critical se``.

    Parameters
    ----------
    models : sequence of str
        Model names, in the order of ``ratings`` and of ``se``'s rows and columns.
    ratings : numpy.ndarray
        ``(n,)`` Elo-like point ratings (any common shift: only differences are used).
    se : numpy.ndarray
        ``(n, n)`` Elo-like standard errors of the differences (:func:`difference_standard_errors`).
    reference : int
        Index of the model the differences are taken from (its own difference is 0, interval [0, 0]).
    level : float
        Coverage of the per-pair interval.
    critical : float
        The board's simultaneous (max-T) critical value; ``nan`` (unknown) or ``inf`` leaves the
        simultaneous ends ``None``.
    """
    ratings = np.asarray(ratings, dtype=np.float64)
    z = normal_quantile(level)
    out = []
    for k, model in enumerate(models):
        d = float(ratings[k] - ratings[reference])
        s = float(se[k, reference])
        low, high = _ends(d, z * s)
        sim_low, sim_high = _ends(d, critical * s) if np.isfinite(critical) else (None, None)
        out.append(Difference(model, d, low, high, sim_low, sim_high))
    return out
