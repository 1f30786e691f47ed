"""The few special functions the rating fit needs, on numpy and the standard library (no scipy).

`arena ratings fit` is a fresh process per run, and importing scipy's special functions and the common layer
they pull in cost about a quarter of a second of its start-up (docs/benchmarks.md, `bench_cli`). These are
accurate to a few units in the last place of a double, like scipy's (``tests/unit/test_ratings_special.py``
compares them with ``scipy.special`` over grids):

* :func:`normal_ppf`: the standard normal quantile (scipy's ``ndtri``), Acklam's rational approximation
  refined by one Halley step on ``math.erfc``;
* :func:`expit`: the logistic function, without overflow for any argument;
* :func:`poisson_cdf`: the Poisson CDF ``P(X <= k)`` for ``k = 0, 1, ..., K`` (``pdtr`` on a range).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["expit", "normal_ppf", "poisson_cdf"]

# Acklam's coefficients (P. J. Acklam, "An algorithm for computing the inverse normal cumulative distribution
# function", 2003): relative error below 1.15e-9 before the refinement.
_A = (
    -39.69683028665376,
    220.9460984245205,
    -275.9285104469687,
    138.3577518672690,
    -30.66479806614716,
    2.506628277459239,
)
_B = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572)
_C = (
    -0.007784894002430293,
    -0.3223964580411365,
    -2.400758277161838,
    -2.549732539343734,
    4.374664141464968,
    2.938163982698783,
)
_D = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
_P_LOW = 0.02425
_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)


def _lower_tail_ppf(p: float) -> float:
    """The quantile of a lower-tail probability ``0 < p <= 0.5`` (so the result is <= 0)."""
    if p < _P_LOW:
        q = math.sqrt(-2.0 * math.log(p))
        x = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / (
            (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0
        )
    else:
        q = p - 0.5
        r = q * q
        x = (
            (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5])
            * q
            / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
        )
    # One Halley step on F(x) = p: the relative error goes from ~1e-9 to the rounding of erfc.
    e = 0.5 * math.erfc(-x / _SQRT2) - p
    u = e * _SQRT2PI * math.exp(0.5 * x * x)
    return x - u / (1.0 + 0.5 * x * u)


def normal_ppf(p: float) -> float:
    """Standard normal quantile: ``x`` with ``P(Z <= x) = p`` (``-inf`` at 0, ``inf`` at 1, ``nan`` outside)."""
    p = float(p)
    if not 0.0 <= p <= 1.0 or math.isnan(p):
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    # Work in the smaller tail: erfc keeps its relative accuracy there, and the quantile is odd about 1/2.
    return _lower_tail_ppf(p) if p <= 0.5 else -_lower_tail_ppf(1.0 - p)


def expit(x: np.ndarray | float) -> np.ndarray:
    """The logistic function ``1 / (1 + exp(-x))``, elementwise, with no overflow: ``exp`` only sees ``-|x|``."""
    arr = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(arr))
    return np.where(arr >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def poisson_cdf(top: int, lam: float) -> np.ndarray:
    """``P(X <= k)`` for ``X ~ Poisson(lam)`` and ``k = 0, 1, ..., top`` (``lam > 0``).

    The probabilities are taken relative to the mode's by the ratios ``lam / k`` and normalised by their sum
    (which needs no factorial, so no cancellation between large logarithms); past the mode the CDF is read as
    ``1 -`` the upper tail summed from the far end. Within 2.3e-16 of the exact values where scipy's ``pdtr`` is
    within 6.7e-16 (both against mpmath, means up to 64).
    """
    end = max(top, math.ceil(lam + 12.0 * math.sqrt(lam) + 40.0))  # beyond: below 1e-30 of the total
    mode = math.floor(lam)
    terms = np.empty(end + 1)
    terms[mode] = 1.0
    terms[mode + 1 :] = np.cumprod(lam / np.arange(mode + 1, end + 1))
    terms[:mode] = np.cumprod(np.arange(mode, 0, -1) / lam)[::-1]
    total = math.fsum(terms)
    cdf = np.cumsum(terms) / total
    above = np.cumsum(terms[::-1])[::-1] / total  # above[k] = P(X >= k)
    cdf[mode:-1] = 1.0 - above[mode + 1 :]
    return cdf[: top + 1]
