"""Baseline: FastChat's ``compute_mle_elo`` path, re-implemented here for timing and agreement checks.

What FastChat (lm-sys/FastChat, ``fastchat/serve/monitor/elo_analysis.py``) does, step by step:

1. pandas groups the string-keyed battles into unique ``(model_a, model_b, winner)`` rows with
   their counts (``"tie"`` and ``"tie (bothbad)"`` stay separate rows, as they are distinct values);
2. a dense design matrix ``X`` gets ``+log(BASE)`` in ``model_a``'s column and ``-log(BASE)`` in
   ``model_b``'s; every row is duplicated, and the labels make an A win two A wins and a tie one
   A win plus one B win ("duplicate battles");
3. scikit-learn's ``LogisticRegression(fit_intercept=False)`` with the L-BFGS solver fits it,
   and ``rating = SCALE * coef + INIT_RATING``, shifted so that a baseline model reads its rating;
4. the bootstrap draws ``np.random.multinomial(n_votes, counts / n_votes)`` over the unique rows
   for every round and refits from scratch with those counts as sample weights.

scikit-learn is not installed here, so step 3 is the same objective solved the way its ``lbfgs``
solver does: ``scipy.optimize.minimize(method="L-BFGS-B")`` on the mean weighted log-loss plus
``||w||^2 / (2 C sum(weights))``, with ``maxiter=100``, ``maxls=50``, ``gtol=tol``,
``ftol=64 * eps``. We use ``C = 1e6`` (a vanishing penalty that only pins down the free
constant) and ``tol = 1e-8`` (FastChat has used 1e-6 and 1e-8; the tighter one keeps the
baseline's own error below 0.01 Elo). This file is for ``bench/`` only; it needs pandas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit

SCALE = 400.0
BASE = 10.0
INIT_RATING = 1000.0


@dataclass
class Design:
    """Unique battle rows of a battles frame and the duplicated design FastChat fits."""

    models: pd.Series  # model name -> column
    counts: np.ndarray  # votes per unique row
    x: np.ndarray  # (2K, p) dense design
    y: np.ndarray  # (2K,) labels


def build_design(battles: pd.DataFrame) -> Design:
    """Steps 1 and 2: pandas aggregation to unique outcome rows, then FastChat's duplicated design."""
    unique = battles.groupby(["model_a", "model_b", "winner"], sort=False).size().reset_index(name="count")
    names = pd.unique(pd.concat([unique["model_a"], unique["model_b"]]))
    models = pd.Series(np.arange(len(names)), index=names)
    k, p = len(unique), len(models)
    x = np.zeros((2 * k, p))
    rows = np.arange(k)
    x[rows, models[unique["model_a"]].to_numpy()] = +math.log(BASE)
    x[rows, models[unique["model_b"]].to_numpy()] = -math.log(BASE)
    x[k:] = x[:k]
    a_won = (unique["winner"] == "model_a").to_numpy()
    tie = unique["winner"].isin(["tie", "tie (bothbad)"]).to_numpy()
    y = np.concatenate([(a_won | tie).astype(float), a_won.astype(float)])
    return Design(models=models, counts=unique["count"].to_numpy().astype(float), x=x, y=y)


def fit_logistic_regression(
    x: np.ndarray,
    y: np.ndarray,
    sample_weight: np.ndarray,
    *,
    c: float = 1e6,
    tol: float = 1e-8,
    max_iter: int = 100,
) -> tuple[np.ndarray, bool]:
    """scikit-learn's binary ``LogisticRegression(fit_intercept=False, solver="lbfgs")`` objective."""
    sw_sum = sample_weight.sum()
    l2 = 1.0 / (c * sw_sum)
    sw = sample_weight / sw_sum

    def loss_gradient(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        loss = np.sum(sw * (np.logaddexp(0.0, z) - y * z)) + 0.5 * l2 * (w @ w)
        grad = x.T @ (sw * (expit(z) - y)) + l2 * w
        return float(loss), grad

    res = minimize(
        loss_gradient,
        np.zeros(x.shape[1]),
        method="L-BFGS-B",
        jac=True,
        options={"maxiter": max_iter, "maxls": 50, "gtol": tol, "ftol": 64 * np.finfo(float).eps},
    )
    return res.x, bool(res.success)


def _elo(coef: np.ndarray, design: Design, anchor: str | None, anchor_rating: float) -> np.ndarray:
    elo = SCALE * coef + INIT_RATING
    if anchor is not None and anchor in design.models.index:
        elo = elo + (anchor_rating - elo[..., [design.models[anchor]]])
    return elo


def compute_mle_elo(
    battles: pd.DataFrame, *, anchor: str | None = None, anchor_rating: float = 1000.0, tol: float = 1e-8
) -> pd.Series:
    """Point ratings, FastChat style (highest first)."""
    design = build_design(battles)
    weights = np.concatenate([design.counts, design.counts])
    coef, _ = fit_logistic_regression(design.x, design.y, weights, tol=tol)
    elo = _elo(coef, design, anchor, anchor_rating)
    return pd.Series(elo, index=design.models.index).sort_values(ascending=False)


def get_bootstrap_result(
    battles: pd.DataFrame,
    num_round: int,
    *,
    seed: int = 0,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    tol: float = 1e-8,
) -> tuple[pd.DataFrame, int]:
    """Bootstrap ratings (one row per round) and the number of rounds whose fit hit the iteration cap."""
    design = build_design(battles)
    n = int(design.counts.sum())
    rounds = np.random.RandomState(seed).multinomial(n, design.counts / n, size=num_round)
    out = np.empty((num_round, len(design.models)))
    unconverged = 0
    for r in range(num_round):
        weights = np.concatenate([rounds[r], rounds[r]]).astype(float)
        coef, ok = fit_logistic_regression(design.x, design.y, weights, tol=tol)
        unconverged += not ok
        out[r] = _elo(coef, design, anchor, anchor_rating)
    frame = pd.DataFrame(out, columns=design.models.index)
    return frame[frame.median().sort_values(ascending=False).index], unconverged
