"""Does K-wise voting pay? Voter interactions and voter-seconds to order the models (Kendall tau >= 0.9 with the
truth) and to reach a mean 95% interval half-width, K = 2, 3, 4, against pairwise uniform matchmaking (the
baseline, measured in the same run on the same simulated truths) and pairwise with the arena's planner and
variety rules. Prints a table; not a test (tests/unit/test_bench_kwise.py checks the machinery on a small case).

Simulated voters (no real ranking data is available offline to check this noise model against: the repository
and the methodology seeds hold no K-Sort Arena or other ranking data):

* true log-strengths ``theta ~ N(0, (spread / ELO_PER_NAT)^2)`` per replication (``--models`` models);
* a voter session of ``--session`` interactions has a discernment ``beta ~ lognormal(0, 0.3)`` (some voters
  separate quality better than others); each interaction ranks the shown models by Plackett-Luce on
  ``beta * theta`` (Gumbel utilities), except that with probability ``LAPSE`` it is a uniformly random order (a
  careless vote) and with probability ``ALL_EQUAL`` it is "all about equal" / a tie (spent, not fitted);
* K-wise arms show ``K`` distinct models uniformly at random (the pairwise variety rules, written for pairs, do
  not apply; a uniform K-subset already spreads models evenly). ``K = 2`` is pairwise uniform, the baseline.
  The planner arm draws pairs with ``arena.voting.matchmaking.choose_pair`` (the vote plan, per-session
  no-repeat and variety, the window and model share caps), refreshing standings and plan at every refit as
  ``bench/bench_matchmaking.py`` does;
* every arm is refitted every ``--batch`` interactions with :func:`ratings.fit_plackett_luce` (two-item rankings:
  Bradley-Terry), intervals by the cluster-robust sandwich over voter sessions.

Time per interaction (``--seconds``). By default the measured floor (``MEASURED_SECONDS``): the time to a decision
at the minimum time that ``tests/e2e/test_decision_time.py`` measures in Chromium for a pair and for four images
alike (served->stored; three taps and a submit, or one click); K = 3 interpolated. That is a lower bound on a
human's time, not a human's time. ``--seconds assumed`` charges a model instead: the minimum time
(``ARENA_MIN_VOTE_SECONDS``, 2 s for two images, scaled per image as the K-wise flow does: 1 s per image) plus a
decision time of ``DECISION_SECONDS`` per comparison a voter needs to sort ``K`` images (optimal average: 1, 8/3,
14/3) plus ``PLACE_SECONDS`` per image placed (``K - 1`` taps; one click for a pair); assumptions, not
measurements. Voter-seconds are interactions times a per-arm constant, so a time ratio is the interaction ratio
times the ratio of the two arms' seconds.

    python -m bench.bench_kwise [--quick] [--models 20] [--seeds 24] [--spreads 100,200] [--ks 2,3,4]
        [--seconds measured|assumed|2=2.5,4=4.9]
"""

from __future__ import annotations

import argparse
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau

from arena.settings import Settings
from arena.voting.matchmaking import History, Standing, choose_pair, model_share_cap, pair_key
from ratings import ELO_PER_NAT
from ratings.graph import unbounded_models
from ratings.intervals import normal_quantile
from ratings.plackett_luce import RankingData, fit_plackett_luce
from ratings.rankings import implied_pair_counts, ranking_covariance
from ratings.vote_plan import plan_votes

TARGET_TAU = 0.9
TARGET_HALF_WIDTH = 40.0  # Elo: the +-40 of DEFAULT_MIN_VOTES' rationale (ratings.intervals)
LAPSE = 0.05
ALL_EQUAL = 0.10
DISCERNMENT_SD = 0.3
MIN_VOTE_SECONDS = float(Settings.model_fields["min_vote_seconds"].default)  # for two images
DECISION_SECONDS = 1.5  # per comparison needed to sort the shown images (assumed)
PLACE_SECONDS = 0.5  # per image placed / click (assumed)
SORT_COMPARISONS = {
    2: 1.0,
    3: 8.0 / 3.0,
    4: 14.0 / 3.0,
    5: 7.4,
}  # optimal average comparisons to sort K items
SHARE_FACTOR = float(Settings.model_fields["model_share_factor"].default)


def seconds_per_interaction(k: int) -> float:
    """Minimum time scaled by the number of images, plus sorting decisions and placements (see module doc)."""
    return MIN_VOTE_SECONDS * k / 2.0 + DECISION_SECONDS * SORT_COMPARISONS[k] + PLACE_SECONDS * (k - 1)


#: The assumed model's per-K seconds (``--seconds assumed``): minimum time, sorting decisions and placements.
SECONDS_PER_INTERACTION = {k: seconds_per_interaction(k) for k in (2, 3, 4)}

#: Measured time to a decision at the minimum time, served->stored (median of 3 votes each), by
#: ``tests/e2e/test_decision_time.py`` on 2026-12-04 (SQLite run; load average ~4 from a CI run beside it).
#: The default: the floor of a voter's time per interaction in this arena's pages.
MEASURED_SECONDS = {2: 2.53, 4: 4.93}


def parse_seconds(text: str, ks: list[int]) -> dict[int, float]:
    """Seconds per interaction for each K: ``assumed``, ``measured`` or ``2=2.5,4=4.9``; a K between two given
    ones is interpolated linearly (the minimum time grows linearly in K)."""
    if text == "assumed":
        return {k: seconds_per_interaction(k) for k in ks}
    given = dict(MEASURED_SECONDS) if text == "measured" else {}
    if text != "measured":
        for part in text.split(","):
            k, _, value = part.partition("=")
            given[int(k)] = float(value)
    known = sorted(given)
    out: dict[int, float] = {}
    for k in ks:
        if k in given:
            out[k] = given[k]
            continue
        lower = [x for x in known if x < k]
        upper = [x for x in known if x > k]
        if not lower or not upper:
            raise SystemExit(f"--seconds gives no figure around K={k}: give one for it")
        a, b = lower[-1], upper[0]
        out[k] = given[a] + (given[b] - given[a]) * (k - a) / (b - a)
    return out


@dataclass(frozen=True)
class Job:
    arm: str  # "k2", "k3", "k4" (uniform K-subsets) or "plan" (pairwise, planner + variety rules)
    spread: float
    seed: int
    models: int
    batch: int
    max_interactions: int
    session: int


def truth_of(spread: float, seed: int, models: int) -> np.ndarray:
    """The replication's true log-strengths (the same for every arm of one seed)."""
    return spread / ELO_PER_NAT * np.random.default_rng(10_000 + seed).standard_normal(models)


def rank_shown(
    theta: np.ndarray, shown: np.ndarray, beta: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Order each row of ``shown`` (``(B, K)``) best first by the noise model; also the all-equal mask."""
    b, k = shown.shape
    util = beta[:, None] * theta[shown] + rng.gumbel(size=(b, k))
    lapse = rng.random(b) < LAPSE
    util[lapse] = rng.random((int(lapse.sum()), k))
    order = np.argsort(-util, axis=1)
    return np.take_along_axis(shown, order, axis=1), rng.random(b) < ALL_EQUAL


def fit_state(
    rankings: list[np.ndarray], sessions: list[np.ndarray], n: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Log-strengths and 95% half-widths (Elo) of the rankings so far; ``None`` while they do not exist."""
    rows = np.concatenate(rankings) if rankings else np.zeros((0, 2), dtype=np.int64)
    if len(rows) == 0 or len(np.unique(rows)) < n:
        return None
    data = RankingData(n, {rows.shape[1]: rows}, {rows.shape[1]: np.ones(len(rows))}, {}, 0)
    if unbounded_models(implied_pair_counts(data, np.arange(n))):
        return None
    cl = np.concatenate(sessions)
    _, codes = np.unique(cl, return_inverse=True)
    data = RankingData(n, data.groups, data.weights, {rows.shape[1]: codes}, int(codes.max()) + 1)
    fit = fit_plackett_luce(data)
    cov = ranking_covariance(fit.theta, data, clustered=data.n_clusters >= 10)
    half = normal_quantile(0.95) * ELO_PER_NAT * np.sqrt(np.maximum(np.diag(cov), 0.0))
    return fit.theta, half


def run_arm(job: Job) -> tuple[np.ndarray, np.ndarray, float]:
    """Kendall tau with the truth and mean half-width (Elo) after every ``batch`` interactions, and the CPU
    seconds the replication took."""
    cpu0 = time.process_time()
    theta = truth_of(job.spread, job.seed, job.models)
    arm_code = 0 if job.arm == "plan" else int(job.arm[1:])
    rng = np.random.default_rng([job.seed, arm_code, int(job.spread)])
    n = job.models
    k = 2 if job.arm == "plan" else int(job.arm[1:])
    rankings: list[np.ndarray] = []
    sessions: list[np.ndarray] = []
    taus, widths = [], []
    names = [f"m{i:02d}" for i in range(n)]
    standings: dict[str, Standing] = {}
    plan: dict[tuple[str, str], float] = {}
    cast: dict[tuple[str, str], float] = {}
    history = History()
    max_share = model_share_cap(n, SHARE_FACTOR)
    n_pairs = n * (n - 1) // 2
    done = 0
    betas = np.exp(DISCERNMENT_SD * rng.standard_normal(job.max_interactions // job.session + 2))
    while done < job.max_interactions:
        ids = np.arange(done, done + job.batch)
        session = ids // job.session
        if job.arm == "plan":
            shown = np.zeros((job.batch, 2), dtype=np.int64)
            for r, v in enumerate(session):
                voter = f"s{v}"
                x, y = choose_pair(
                    names,
                    standings,
                    rng,
                    new_half_width=60.0,
                    plan=plan,
                    recent=history.recent(voter),
                    n_pairs=n_pairs,
                    max_share=max_share,
                )
                history.record(voter, x, y)
                cast[pair_key(x, y)] = cast.get(pair_key(x, y), 0.0) + 1.0
                shown[r] = (int(x[1:]), int(y[1:]))
        else:
            shown = np.argsort(rng.random((job.batch, n)), axis=1)[:, :k]
        ordered, equal = rank_shown(theta, shown, betas[session], rng)
        rankings.append(ordered[~equal])
        sessions.append(session[~equal])
        done += job.batch
        state = fit_state(rankings, sessions, n)
        if state is None:
            taus.append(0.0)
            widths.append(math.inf)
            continue
        est, half = state
        taus.append(float(kendalltau(est, theta).statistic))
        widths.append(float(half.mean()))
        if job.arm == "plan":
            standings = {names[i]: Standing(float(est[i] * ELO_PER_NAT), float(half[i]), 0) for i in range(n)}
            plan = plan_votes({m: s.rating for m, s in standings.items()}, cast, job.batch)
    return np.array(taus), np.array(widths), time.process_time() - cpu0


def first_passage(curve: np.ndarray, batch: int, target: float, *, rising: bool) -> float:
    """Interactions at which ``curve`` first reaches ``target`` (from below if ``rising``, else from above),
    linear between refits; inf if it never does within the budget."""
    hits = np.flatnonzero(curve >= target if rising else curve <= target)
    if not hits.size:
        return math.inf
    i = int(hits[0])
    if i == 0:
        return float(batch)
    lo, hi = curve[i - 1], curve[i]
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi == lo:
        return float(batch * (i + 1))
    return float(batch * (i + (target - lo) / (hi - lo)))


def tau_passage(curve: np.ndarray, batch: int) -> float:
    """Interactions to Kendall tau >= TARGET_TAU."""
    return first_passage(curve, batch, TARGET_TAU, rising=True)


def width_passage(curve: np.ndarray, batch: int) -> float:
    """Interactions to a mean 95% half-width <= TARGET_HALF_WIDTH (Elo)."""
    return first_passage(curve, batch, TARGET_HALF_WIDTH, rising=False)


def budget(arm: str, pairwise: int) -> int:
    """Interactions simulated per arm: the pairwise budget, divided by K - 1 for K-wise arms (each interaction
    ranks K - 1 stages; the targets are reached well inside it, see the table's inf entries if not)."""
    return pairwise if arm == "plan" else pairwise // (int(arm[1:]) - 1)


def summarise(values: np.ndarray) -> str:
    """Median and interquartile range over replications (inf: not reached within the budget)."""
    q = np.percentile(values, [25, 50, 75], method="inverted_cdf")  # no interpolation into inf
    return f"{q[1]:.0f} [{q[0]:.0f}-{q[2]:.0f}]"


def ratio_text(base: np.ndarray, arm: np.ndarray) -> str:
    """Median and IQR of the per-replication ratio baseline / arm (> 1: the arm needs less)."""
    with np.errstate(invalid="ignore"):  # inf / inf: neither reached the target; left out
        r = base / arm
    q = (
        np.percentile(r[~np.isnan(r)], [25, 50, 75], method="inverted_cdf")
        if (~np.isnan(r)).any()
        else [math.nan] * 3
    )
    return f"{q[1]:.2f}x [{q[0]:.2f}-{q[2]:.2f}]"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run: 12 models, 4 seeds, short budget")
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=24)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument(
        "--max-interactions", type=int, default=12_000, help="pairwise budget (K-wise: divided by K - 1)"
    )
    parser.add_argument("--session", type=int, default=20, help="interactions per voter session")
    parser.add_argument("--spreads", default="100,200", help="sd of true ratings (Elo), comma-separated")
    parser.add_argument("--ks", default="2,3,4", help="K of the uniform K-subset arms (2 is the baseline)")
    parser.add_argument("--no-plan", action="store_true", help="skip the pairwise planner arm (slow)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    parser.add_argument(
        "--seconds",
        default="measured",
        help="seconds per interaction: 'measured' (the browser test's floor, default), 'assumed' (minimum time "
        "+ sorting decisions + placements) or K=s pairs such as 2=2.5,4=4.9",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.models, args.seeds, args.max_interactions, args.batch = 12, 4, 3000, 100
    ks = sorted({2, *(int(x) for x in args.ks.split(","))})
    arms = [f"k{k}" for k in ks] + ([] if args.no_plan else ["plan"])
    per_k = parse_seconds(args.seconds, ks)
    secs = {f"k{k}": per_k[k] for k in ks} | {"plan": per_k[2]}
    source = (
        f"min time {MIN_VOTE_SECONDS:g} s per 2 images + {DECISION_SECONDS:g} s per sorting comparison "
        f"+ {PLACE_SECONDS:g} s per placement; assumed, see the module doc"
        if args.seconds == "assumed"
        else "time to a decision at the minimum time measured in the browser, K between interpolated"
        if args.seconds == "measured"
        else "given with --seconds"
    )
    print("seconds per interaction: " + ", ".join(f"K={k}: {per_k[k]:.2f}" for k in ks) + f" ({source})")
    print(
        "\n| spread | arm | s/interaction | interactions to tau 0.9 | ratio vs pairwise uniform "
        f"| interactions to mean half-width {TARGET_HALF_WIDTH:g} | ratio | voter-hours to tau 0.9 | ratio "
        "| voter-hours to width | ratio | tau 0.9 on the mean curve | load 1 min | arm CPU s |"
    )
    print(
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for spread in (float(x) for x in args.spreads.split(",")):
            jobs = {
                arm: [
                    Job(
                        arm,
                        spread,
                        s,
                        args.models,
                        args.batch,
                        budget(arm, args.max_interactions),
                        args.session,
                    )
                    for s in range(args.seeds)
                ]
                for arm in arms
            }
            curves = {arm: list(pool.map(run_arm, js)) for arm, js in jobs.items()}
            cpu = {a: sum(x[2] for x in c) for a, c in curves.items()}
            load = os.getloadavg()[0]
            tau_n = {a: np.array([tau_passage(t, args.batch) for t, _, _ in c]) for a, c in curves.items()}
            width_n = {
                a: np.array([width_passage(w, args.batch) for _, w, _ in c]) for a, c in curves.items()
            }
            for arm in arms:
                mean_curve = np.mean([t for t, _, _ in curves[arm]], axis=0)
                on_mean = tau_passage(mean_curve, args.batch)
                base_t, base_w = tau_n["k2"] * secs["k2"], width_n["k2"] * secs["k2"]
                t_sec, w_sec = tau_n[arm] * secs[arm], width_n[arm] * secs[arm]
                print(
                    f"| {spread:g} Elo | {arm if arm != 'plan' else 'pairwise + planner'} | {secs[arm]:.2f} "
                    f"| {summarise(tau_n[arm])} | {ratio_text(tau_n['k2'], tau_n[arm])} "
                    f"| {summarise(width_n[arm])} | {ratio_text(width_n['k2'], width_n[arm])} "
                    f"| {np.median(t_sec) / 3600:.2f} | {ratio_text(base_t, t_sec)} "
                    f"| {np.median(w_sec) / 3600:.2f} | {ratio_text(base_w, w_sec)} | {on_mean:.0f} "
                    f"| {load:.2f} | {cpu[arm]:.0f} |",
                    flush=True,
                )
    print(
        f"\n{args.models} models, {args.seeds} replications per spread (medians [interquartile range]; ratios are "
        f"per replication, pairwise uniform (k2) / arm, same truth), refit every {args.batch} interactions, "
        f"budget {args.max_interactions} pairwise (K-wise: / (K - 1)), sessions of {args.session}, "
        f"lapse {LAPSE:g}, all-equal {ALL_EQUAL:g}, "
        f"discernment sd {DISCERNMENT_SD:g}; goal: K-wise tau 0.9 with >= 2x fewer interactions than pairwise "
        f"uniform, gain in voter time  [{time.perf_counter() - started:.0f}s wall]"
    )


if __name__ == "__main__":
    main()
