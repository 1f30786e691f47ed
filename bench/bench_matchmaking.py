"""How many votes does matchmaking need to order 20 models (Kendall tau >= 0.9 with the truth), with the
arena's information rule versus uniform random pairs? Both arms use the same simulated voters (Bradley-Terry
with known true ratings, 10% ties) and refit the leaderboard every `--batch` votes, as the snapshot job does.
The votes-to-target is read where the tau curve averaged over seeds first reaches 0.9 (a first-passage count
per seed is too noisy to compare). Goal: the rule needs at least 1.5x fewer votes. Prints a table; not a test.

    python bench/bench_matchmaking.py [--models 20] [--seeds 16] [--batch 200] [--spreads 100,150,200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import kendalltau

from arena.matchmaking import Standing, choose_pair, uniform_pair
from ratings import ELO_PER_NAT, count_pairs, fit_bradley_terry

TARGET_TAU = 0.9


def _standings(models, a, b, outcome) -> dict[str, Standing]:
    counts = count_pairs(np.array(a), np.array(b), np.array(outcome))
    index = {m: i for i, m in enumerate(counts.models)}
    if len(counts.models) < len(models):
        return {}
    try:
        fit = fit_bradley_terry(counts)
    except Exception:  # disconnected or unbounded early on: fall back to "unknown"
        return {}
    se = _marginal_se(fit.theta, counts)
    votes = counts.votes.sum(axis=1)
    n = np.zeros(len(counts.models))
    np.add.at(n, counts.pairs[:, 0], votes)
    np.add.at(n, counts.pairs[:, 1], votes)
    return {
        m: Standing(
            float(fit.theta[index[m]] * ELO_PER_NAT),
            float(1.96 * max(se[index[m]], 1e-9) * ELO_PER_NAT),
            int(n[index[m]]),
        )
        for m in models
    }


def _marginal_se(theta: np.ndarray, counts) -> np.ndarray:
    """Per-model standard errors of theta under the sum-to-zero constraint (pseudo-inverse of the Fisher
    information), so that no model is an artificial zero-variance anchor."""
    i, j = counts.pairs[:, 0], counts.pairs[:, 1]
    n = counts.weight.sum(axis=1)
    p = 1 / (1 + np.exp(theta[j] - theta[i]))
    w = n * p * (1 - p)
    k = len(theta)
    info = np.zeros((k, k))
    np.add.at(info, (i, j), -w)
    np.add.at(info, (j, i), -w)
    np.add.at(info, (i, i), w)
    np.add.at(info, (j, j), w)
    return np.sqrt(np.clip(np.diag(np.linalg.pinv(info)), 0, None))


def tau_curve(rule: str, truth: np.ndarray, seed: int, batch: int, max_votes: int) -> np.ndarray:
    """Kendall tau between the fitted and the true ratings after every `batch` votes, up to `max_votes`."""
    rng = np.random.default_rng(seed)
    models = [f"m{i:02d}" for i in range(len(truth))]
    true = dict(zip(models, truth, strict=True))
    a: list[str] = []
    b: list[str] = []
    outcome: list[str] = []
    standings: dict[str, Standing] = {}
    taus = []
    while len(a) < max_votes:
        for _ in range(batch):
            if rule == "uniform":
                x, y = uniform_pair(models, rng)
            else:
                x, y = choose_pair(models, standings, rng, new_half_width=60.0)
            if rng.random() < 0.10:
                outcome.append("tie")
            else:
                p = 1 / (1 + 10 ** ((true[y] - true[x]) / 400))
                outcome.append("model_a" if rng.random() < p else "model_b")
            a.append(x)
            b.append(y)
        standings = _standings(models, a, b, outcome)
        taus.append(kendalltau([standings[m].rating for m in models], truth).statistic if standings else 0.0)
    return np.array(taus)


def crossing(curve: np.ndarray, batch: int) -> float:
    """Votes at which a (mean) tau curve first reaches TARGET_TAU; inf if it never does."""
    hits = np.flatnonzero(curve >= TARGET_TAU)
    return float((hits[0] + 1) * batch) if hits.size else float("inf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--max-votes", type=int, default=12_000)
    parser.add_argument("--spreads", default="100,150,200", help="sd of true ratings (Elo), comma-separated")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"| true-rating sd | uniform: votes to mean tau >= {TARGET_TAU} | information rule | ratio |")
    print("| ---: | ---: | ---: | ---: |")
    for spread in (float(x) for x in args.spreads.split(",")):
        curves: dict[str, list[np.ndarray]] = {"uniform": [], "information": []}
        for seed in range(args.seeds):
            truth = 1000 + spread * np.random.default_rng(10_000 + seed).standard_normal(args.models)
            for rule, found in curves.items():
                found.append(tau_curve(rule, truth, seed, args.batch, args.max_votes))
        uni = crossing(np.mean(curves["uniform"], axis=0), args.batch)
        info = crossing(np.mean(curves["information"], axis=0), args.batch)
        print(f"| {spread:g} Elo | {uni:.0f} | {info:.0f} | {uni / info:.2f}x |")
    print(
        f"\n{args.models} models, {args.seeds} seeds per spread, refit every {args.batch} votes, 10% ties; "
        f"goal: ratio >= 1.5x  [{time.perf_counter() - started:.0f}s]"
    )


if __name__ == "__main__":
    main()
