"""A prompt's discrimination slope: how strongly its votes follow the board's strength gaps.

For the decisive votes on one prompt, with board strengths theta (nats) of the two models shown, the model is

    logit P(i beats j) = beta * (theta_i - theta_j)        (no intercept: left/right is a coin flip)

so beta = 1 is a prompt that separates models exactly as the board does, beta = 0 a coin flip and beta = 0.5 a
prompt showing half the board's discrimination. Unlike the favourite's win rate, beta does not depend on how
far apart the served pairs were: close pairs just carry little information about it, and the interval says so.

`fit_slope` finds the maximum-likelihood beta (a 1-D concave problem, Newton's method with bisection as the
safeguard) and one-sided profile-likelihood bounds: the upper bound at level ``confidence`` is the beta above
the estimate where twice the log-likelihood drop reaches z**2 (z the standard normal ``confidence`` quantile);
the lower bound likewise below it. Profile bounds, not Wald ones: with few votes or when every favourite won,
the estimate runs off to infinity and a Wald interval is meaningless, while the profile bound is then simply
infinite on that side. Betas are searched in [-BETA_LIMIT, BETA_LIMIT]; a bound beyond it is reported as
infinite (a prompt 50 times as discriminating as the board is not a question the data can answer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BETA_LIMIT = 50.0

__all__ = ["BETA_LIMIT", "SlopeFit", "fit_slope", "slope_log_likelihood"]


@dataclass(frozen=True)
class SlopeFit:
    """The slope estimate, its one-sided bounds at `confidence` (infinite when the data do not bound that
    side), the Fisher information at the estimate (0 when it is infinite), and the decisive votes used."""

    beta: float
    lower: float
    upper: float
    information: float
    votes: int
    confidence: float


def slope_log_likelihood(beta: float, gap: np.ndarray, won: np.ndarray, weight: np.ndarray) -> float:
    """Log-likelihood of beta: sum of weight * log sigmoid(+-beta * gap), + when the first model won."""
    from scipy.special import log_expit

    sign = np.where(won, 1.0, -1.0)
    return float(np.sum(weight * log_expit(sign * beta * gap)))


def _score(beta: float, gap: np.ndarray, won: np.ndarray, weight: np.ndarray) -> tuple[float, float]:
    """(d loglik / d beta, information = - d2 loglik / d beta2)."""
    from scipy.special import expit

    p = expit(beta * gap)
    return float(np.sum(weight * gap * (won - p))), float(np.sum(weight * gap * gap * p * (1.0 - p)))


def _maximize(gap: np.ndarray, won: np.ndarray, weight: np.ndarray) -> float:
    """The maximizer in [-BETA_LIMIT, BETA_LIMIT] (an end when the likelihood still rises there)."""
    lo, hi = -BETA_LIMIT, BETA_LIMIT
    if _score(hi, gap, won, weight)[0] >= 0:
        return hi
    if _score(lo, gap, won, weight)[0] <= 0:
        return lo
    beta = 0.0
    for _ in range(200):
        grad, info = _score(beta, gap, won, weight)
        if abs(grad) <= 1e-10 * max(1.0, info) or hi - lo < 1e-12:
            break
        if grad > 0:
            lo = beta
        else:
            hi = beta
        step = beta + grad / info if info > 0 else math.nan
        beta = step if lo < step < hi else 0.5 * (lo + hi)  # Newton inside the bracket, else bisect
    return beta


def fit_slope(
    gap: Sequence[float] | np.ndarray,
    won: Sequence[bool] | np.ndarray,
    weight: Sequence[float] | np.ndarray | None = None,
    *,
    confidence: float = 0.95,
) -> SlopeFit:
    """Fit beta to decisive votes: `gap` = theta_first - theta_second (nats, board strengths of the two models
    shown), `won` = the first model won, `weight` = how many such votes (default 1 each)."""
    from scipy import optimize, stats

    if not 0.5 < confidence < 1.0:
        raise ValueError("confidence must be in (0.5, 1)")
    g = np.asarray(gap, dtype=float)
    w = np.ones(len(g)) if weight is None else np.asarray(weight, dtype=float)
    y = np.asarray(won, dtype=bool).astype(float)
    if not (len(g) == len(w) == len(y)):
        raise ValueError("gap, won and weight must have the same length")
    votes = round(float(w.sum()))
    keep = (w > 0) & (g != 0)  # a vote between equally rated models says nothing about beta
    g, w, y = g[keep], w[keep], y[keep]
    if not len(g):
        return SlopeFit(math.nan, -math.inf, math.inf, 0.0, votes, confidence)
    beta = _maximize(g, y, w)
    top = slope_log_likelihood(beta, g, y, w)
    cut = 0.5 * float(stats.norm.ppf(confidence)) ** 2

    def drop(b: float) -> float:
        return top - slope_log_likelihood(b, g, y, w) - cut

    upper = math.inf if drop(BETA_LIMIT) <= 0 else float(optimize.brentq(drop, beta, BETA_LIMIT, xtol=1e-10))
    lower = (
        -math.inf if drop(-BETA_LIMIT) <= 0 else float(optimize.brentq(drop, -BETA_LIMIT, beta, xtol=1e-10))
    )
    info = _score(beta, g, y, w)[1] if abs(beta) < BETA_LIMIT else 0.0
    if abs(beta) >= BETA_LIMIT:
        beta = math.copysign(math.inf, beta)
    return SlopeFit(float(beta), lower, upper, info, votes, confidence)
