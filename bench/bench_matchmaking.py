"""How many votes does matchmaking need to order 20 models (Kendall tau >= 0.9 with the truth), with the
arena's information rule versus uniform random pairs? Both arms use the same simulated voters (Bradley-Terry
with known true ratings, 10% ties) and refit the leaderboard every `--batch` votes, as the snapshot job does.
The votes-to-target is read where the tau curve averaged over seeds first reaches 0.9 (a first-passage count
per seed is too noisy to compare). Goal: the rule needs at least 1.5x fewer votes. Prints a table; not a test.

Three arms: uniform pairs; the vote plan alone; and the plan with the variety rules in force (the arena's
matchmaking: per-session no-repeat and variety, then the window cap and the model share cap at `--share-factor`
times the uniform share; voters come in sessions of `--session` matchups).

    python bench/bench_matchmaking.py [--models 20] [--seeds 48] [--batch 200] [--spreads 100,150,200,300]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy.optimize import brentq
from scipy.stats import kendalltau

from arena.settings import Settings
from arena.voting.matchmaking import History, Standing, choose_pair, model_share_cap, pair_key
from ratings import ELO_PER_NAT, count_pairs, fit_bradley_terry
from ratings.vote_plan import expected_misorders, plan_votes

TARGET_TAU = 0.9
SHARE_FACTOR = float(
    Settings.model_fields["model_share_factor"].default
)  # ARENA_MODEL_SHARE_FACTOR's default


def uniform_pair(candidates: Sequence[str], rng: np.random.Generator) -> tuple[str, str]:
    """The baseline: two distinct models uniformly at random."""
    models = sorted(set(candidates))
    i, j = rng.choice(len(models), size=2, replace=False)
    return models[int(i)], models[int(j)]


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


def tau_curve(
    rule: str,
    truth: np.ndarray,
    seed: int,
    batch: int,
    max_votes: int,
    session: int = 20,
    share_factor: float = SHARE_FACTOR,
) -> np.ndarray:
    """Kendall tau between the fitted and the true ratings after every `batch` votes, up to `max_votes`."""
    rng = np.random.default_rng(seed)
    models = [f"m{i:02d}" for i in range(len(truth))]
    true = dict(zip(models, truth, strict=True))
    a: list[str] = []
    b: list[str] = []
    outcome: list[str] = []
    standings: dict[str, Standing] = {}
    plan: dict[tuple[str, str], float] = {}
    cast: dict[tuple[str, str], float] = {}
    taus = []
    history = History()
    n_pairs = len(models) * (len(models) - 1) // 2
    max_share = model_share_cap(len(models), share_factor)
    while len(a) < max_votes:
        for _ in range(batch):
            if rule == "uniform":
                x, y = uniform_pair(models, rng)
            elif rule == "plan":
                x, y = choose_pair(models, standings, rng, new_half_width=60.0, plan=plan)
            else:
                voter = f"s{len(a) // session}"
                recent = history.recent(voter)
                x, y = choose_pair(
                    models,
                    standings,
                    rng,
                    new_half_width=60.0,
                    plan=plan,
                    recent=recent,
                    n_pairs=n_pairs,
                    max_share=max_share,  # of the shares in `recent.window`, as the service reads them
                )
                history.record(voter, x, y)
            if rng.random() < 0.10:
                outcome.append("tie")
            else:
                p = 1 / (1 + 10 ** ((true[y] - true[x]) / 400))
                outcome.append("model_a" if rng.random() < p else "model_b")
            a.append(x)
            b.append(y)
            cast[pair_key(x, y)] = cast.get(pair_key(x, y), 0.0) + 1.0
        standings = _standings(models, a, b, outcome)
        if rule != "uniform" and standings:  # as the arena's pool cache does after each snapshot
            plan = plan_votes({m: s.rating for m, s in standings.items()}, cast, batch)
        taus.append(kendalltau([standings[m].rating for m in models], truth).statistic if standings else 0.0)
    return np.array(taus)


def crossing(curve: np.ndarray, batch: int) -> float:
    """Votes at which a (mean) tau curve first reaches TARGET_TAU, interpolated linearly between refits; inf
    if it never does."""
    hits = np.flatnonzero(curve >= TARGET_TAU)
    if not hits.size:
        return float("inf")
    k = int(hits[0])
    if k == 0:
        return float(batch)
    lo, hi = curve[k - 1], curve[k]
    return float(batch * (k + (TARGET_TAU - lo) / (hi - lo)))


def static_bound(truth: np.ndarray) -> float:
    """Votes ratio uniform / plan when the plan knows the true ratings and is fixed for the whole budget
    (normal approximation, no simulation): how much any allocation can save for this truth. Expected tau
    reaches 0.9 when the expected misordered pairs fall to 5% of all pairs."""
    ratings = {f"m{i:02d}": float(r) for i, r in enumerate(truth)}
    models = sorted(ratings)
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    target = (1 - TARGET_TAU) / 2 * len(pairs)

    def uniform(log_n: float) -> float:
        return expected_misorders(ratings, {p: np.exp(log_n) / len(pairs) for p in pairs}) - target

    def planned(log_n: float) -> float:
        plan = plan_votes(ratings, {}, np.exp(log_n), steps=400)
        return expected_misorders(ratings, {p: np.exp(log_n) * v for p, v in plan.items()}) - target

    return float(np.exp(brentq(uniform, 3, 17) - brentq(planned, 3, 17)))


def _one_seed(job: tuple[str, np.ndarray, int, int, int, int, float]) -> np.ndarray:
    return tau_curve(*job)


def ratio_interval(
    uniform: np.ndarray, rule: np.ndarray, batch: int, rng: np.random.Generator, rounds: int = 400
) -> tuple[float, float]:
    """90% bootstrap interval of the votes ratio, resampling seeds (rows of both arms together)."""
    ratios = []
    for _ in range(rounds):
        rows = rng.integers(0, len(uniform), len(uniform))
        ratios.append(crossing(uniform[rows].mean(axis=0), batch) / crossing(rule[rows].mean(axis=0), batch))
    low, high = np.nanpercentile(np.array(ratios), [5, 95])
    return float(low), float(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=48)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--max-votes", type=int, default=12_000)
    parser.add_argument(
        "--spreads", default="100,150,200,300", help="sd of true ratings (Elo), comma-separated"
    )
    parser.add_argument("--arms", default="uniform,plan,rules", help="which of uniform,plan,rules to run")
    parser.add_argument("--session", type=int, default=20, help="matchups per voter session (rules arm)")
    parser.add_argument(
        "--share-factor",
        type=float,
        default=SHARE_FACTOR,
        help="model share cap as a multiple of the uniform share (rules arm; ARENA_MODEL_SHARE_FACTOR)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    args = parser.parse_args()
    started = time.perf_counter()
    print(
        f"| true-rating sd | uniform: votes to mean tau >= {TARGET_TAU} | plan alone | ratio "
        "| plan + variety rules (in force) | ratio | 90% interval | bound: plan knowing the truth |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    with ProcessPoolExecutor(args.jobs) as pool:
        for spread in (float(x) for x in args.spreads.split(",")):
            curves: dict[str, np.ndarray] = {}
            for rule in ["uniform", *(a for a in ("plan", "rules") if a in args.arms.split(","))]:
                jobs = [
                    (
                        rule,
                        1000 + spread * np.random.default_rng(10_000 + seed).standard_normal(args.models),
                        seed,
                        args.batch,
                        args.max_votes,
                        args.session,
                        args.share_factor,
                    )
                    for seed in range(args.seeds)
                ]
                curves[rule] = np.array(list(pool.map(_one_seed, jobs)))
            uni = crossing(curves["uniform"].mean(axis=0), args.batch)
            plan = crossing(curves["plan"].mean(axis=0), args.batch) if "plan" in curves else float("nan")
            ruled = crossing(curves["rules"].mean(axis=0), args.batch)
            low, high = ratio_interval(
                curves["uniform"], curves["rules"], args.batch, np.random.default_rng(0)
            )
            bound = np.mean(list(pool.map(static_bound, [job[1] for job in jobs])))
            print(
                f"| {spread:g} Elo | {uni:.0f} | {plan:.0f} | {uni / plan:.2f}x | {ruled:.0f} | {uni / ruled:.2f}x "
                f"| {low:.2f}-{high:.2f}x | {bound:.2f}x |"
            )
    print(
        f"\n{args.models} models, {args.seeds} seeds per spread, refit every {args.batch} votes, 10% ties, "
        f"model share factor {args.share_factor:g}; "
        f"goal: ratio >= 1.5x  [{time.perf_counter() - started:.0f}s]"
    )


if __name__ == "__main__":
    main()
