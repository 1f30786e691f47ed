"""Baseline: FastChat's current Bradley-Terry path (``compute_bt`` + ``compute_bootstrap_bt``), for timing.

Source: lm-sys/FastChat, ``fastchat/serve/monitor/rating_systems.py`` (the "Accelerate Bradley Terry MLE
model fitting" rewrite, #3523, 2024-09; read at commit 0e6d3e4b) and the driver in
``fastchat/serve/monitor/elo_analysis.py``. Re-implemented here from that code, step by step:

1. the battles are read by pandas (``pd.read_json``; a JSON-lines file needs ``lines=True``);
2. ``preprocess_for_bt``: model names become integer ids with ``pd.factorize`` over
   ``model_a`` then ``model_b``; each battle is a row ``(id_a, id_b, outcome)`` with outcome 2 for an A win,
   0 for a B win and 1 for anything else (both tie kinds); ``np.unique(..., axis=0, return_counts=True)``
   keeps the distinct rows and their counts (the weights); labels are ``outcome / 2`` (a tie is half a win);
3. ``fit_bt``: ``scipy.optimize.minimize(method="L-BFGS-B", jac=True)`` from zeros on the weighted
   log-loss of ``expit(alpha * (r_a - r_b))`` with ``alpha = ln 10`` (gradient scattered with
   ``np.add.at``), ``maxiter=100``, ``gtol=tol`` (``tol = 1e-6``); the point fit weights rows by their counts;
4. ``compute_bootstrap_bt``: ``np.random.default_rng(0).multinomial(n, counts / n, size=rounds)`` over the
   distinct rows, weights divided by ``n``, and one ``fit_bt`` per round in a ``multiprocessing.Pool`` of
   ``num_cpu or os.cpu_count()`` processes (``imap_unordered``);
5. ``scale_and_offset``: ``rating = 400 * r + 1000``, shifted so that the baseline (anchor) model reads its
   rating.

Left out, because they do not change the algorithm or its cost here: the tqdm progress bar, FastChat's
filters (anonymous votes only, languages, excluded models, sorting by timestamp: our battles files carry
none of those fields), its online Elo and the leaderboard table built after the fit.
This file is for ``bench/`` only; it needs pandas.

Run as ``python -m bench.fastchat_current FILE --rounds 1000 --anchor MODEL``: prints one JSON object with
the point ratings, the 2.5% / 97.5% bootstrap quantiles and the seconds spent in each step.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import time
from functools import partial

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit

SCALE = 400.0
BASE = 10.0
INIT_RATING = 1000.0
TOL = 1e-6


def read_battles(path: str) -> pd.DataFrame:
    """Step 1: the battles as a data frame (JSON lines, or one JSON array as FastChat publishes)."""
    with open(path, encoding="utf-8") as handle:
        first = handle.read(1)
    return pd.read_json(path, lines=first != "[")


def preprocess_for_bt(battles: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """Step 2: distinct ``(id_a, id_b)`` matchups, their labels (1, 0.5, 0), model names and counts."""
    n = len(battles)
    ids, models = pd.factorize(pd.concat([battles["model_a"], battles["model_b"]]))
    schedule = np.ones((n, 3), dtype=np.int32)  # outcome column prefilled with 1 (tie)
    schedule[:, 0], schedule[:, 1] = ids[:n], ids[n:]
    winner = battles["winner"]
    schedule[(winner == "model_a").to_numpy(), 2] = 2
    schedule[(winner == "model_b").to_numpy(), 2] = 0
    rows, counts = np.unique(schedule, return_counts=True, axis=0)
    return rows[:, :2], rows[:, 2].astype(np.float64) / 2.0, models.to_list(), counts.astype(np.float64)


def bt_loss_and_grad(
    ratings: np.ndarray, matchups: np.ndarray, outcomes: np.ndarray, weights: np.ndarray, alpha: float
) -> tuple[float, np.ndarray]:
    """Weighted Bradley-Terry log-loss and its gradient (FastChat's form: logs of the probabilities)."""
    pair = ratings[matchups]
    probs = expit(alpha * (pair[:, 0] - pair[:, 1]))
    loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    per_row = -alpha * (outcomes - probs) * weights
    grad = np.zeros_like(ratings)
    np.add.at(grad, matchups, per_row[:, None] * np.array([1.0, -1.0]))
    return float(loss), grad


def fit_bt(
    matchups: np.ndarray,
    outcomes: np.ndarray,
    weights: np.ndarray,
    n_models: int,
    alpha: float,
    tol: float = TOL,
) -> np.ndarray:
    """Step 3: one L-BFGS-B fit from zeros (natural-log-10 scale ratings)."""
    result = minimize(
        bt_loss_and_grad,
        np.zeros(n_models),
        args=(matchups, outcomes, weights, alpha),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 100, "gtol": tol},  # FastChat also passes disp=False (deprecated, no effect)
    )
    return result.x


def scale_and_offset(ratings: np.ndarray, models: list[str], anchor: str, anchor_rating: float) -> np.ndarray:
    """Step 5: Elo-like scale, shifted so that ``anchor`` (when present) reads ``anchor_rating``."""
    scaled = ratings * SCALE + INIT_RATING
    if anchor in models:
        scaled += anchor_rating - scaled[..., [models.index(anchor)]]
    return scaled


def compute_bt(
    battles: pd.DataFrame, *, anchor: str, anchor_rating: float = 1000.0, tol: float = TOL
) -> pd.Series:
    """Point ratings, highest first."""
    matchups, outcomes, models, weights = preprocess_for_bt(battles)
    ratings = fit_bt(matchups, outcomes, weights, len(models), math.log(BASE), tol)
    scaled = scale_and_offset(ratings, models, anchor, anchor_rating)
    return pd.Series(scaled, index=models).sort_values(ascending=False)


def compute_bootstrap_bt(
    battles: pd.DataFrame,
    num_round: int,
    *,
    anchor: str,
    anchor_rating: float = 1000.0,
    tol: float = TOL,
    num_cpu: int | None = None,
) -> pd.DataFrame:
    """Step 4: one row of ratings per bootstrap round, columns by median rating (highest first)."""
    matchups, outcomes, models, weights = preprocess_for_bt(battles)
    n = len(battles)
    draws = np.random.default_rng(seed=0).multinomial(n=n, pvals=weights / weights.sum(), size=num_round)
    boot_weights = draws.astype(np.float64) / n
    one_fit = partial(fit_bt, matchups, outcomes, n_models=len(models), alpha=np.log(BASE), tol=tol)
    with mp.Pool(num_cpu or os.cpu_count()) as pool:
        results = list(pool.imap_unordered(one_fit, boot_weights))
    scaled = scale_and_offset(np.array(results), models, anchor, anchor_rating)
    frame = pd.DataFrame(scaled, columns=models)
    return frame[frame.median().sort_values(ascending=False).index]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("battles", help="battles file (JSON lines or a JSON array)")
    parser.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds")
    parser.add_argument("--anchor", required=True, help="model that reads --anchor-rating")
    parser.add_argument("--anchor-rating", type=float, default=1000.0)
    parser.add_argument("--num-cpu", type=int, default=None, help="bootstrap processes (default: all CPUs)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    battles = read_battles(args.battles)
    t1 = time.perf_counter()
    point = compute_bt(battles, anchor=args.anchor, anchor_rating=args.anchor_rating)
    t2 = time.perf_counter()
    boot = compute_bootstrap_bt(
        battles, args.rounds, anchor=args.anchor, anchor_rating=args.anchor_rating, num_cpu=args.num_cpu
    )
    t3 = time.perf_counter()
    out = {
        "ratings": {m: float(v) for m, v in point.items()},
        "ci_low": {m: float(v) for m, v in boot.quantile(0.025).items()},
        "ci_high": {m: float(v) for m, v in boot.quantile(0.975).items()},
        "seconds": {"read": t1 - t0, "point": t2 - t1, "bootstrap": t3 - t2},
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
