"""Do the judge report's intervals cover the truth? Simulated human votes and simulated judges of known accuracy
and bias (`tests.support.judge_sim`), 100 seeds each: agreement with the human majority (all matchups and decisive
ones), Cohen's kappa and the kappa with A/B-symmetrised marginals, the position-bias rate and the Kendall /
Spearman correlation of the judge board with the human board, each checked against its exact population value.
Prints the coverage of the nominal 95% intervals. Not a test.

    python bench/bench_judge.py [--seeds 100] [--matchups 600] [--human-votes 20000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from tests.support.judge_sim import SimJudge, known_values, make_truth, simulate_once

JUDGES = (
    SimJudge("fair, sharp", scale=2.0),
    SimJudge("position bias 1 nat", scale=2.0, position_bias=1.0),
    SimJudge("style bias +1 nat on 3 weak models", scale=2.0, style_bonus=1.0, styled=(1, 3, 5)),
    SimJudge("style bias +3 nat on 3 weak models", scale=2.0, style_bonus=3.0, styled=(1, 3, 5)),
    SimJudge("noisy", scale=0.5),
    SimJudge("always left", position_bias=float("inf")),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--matchups", type=int, default=600)
    parser.add_argument("--human-votes", type=int, default=20000)
    parser.add_argument("--models", type=int, default=12)
    args = parser.parse_args()
    warnings.simplefilter(
        "ignore"
    )  # constant boards (always-left) have undefined correlations, reported as n/a
    truth = make_truth(args.models, spread_elo=800)
    print(
        f"{args.models} models over 800 Elo, {args.matchups} judged matchups (1 kept human vote each, 10% ties), "
        f"human board from {args.human_votes} votes, {args.seeds} seeds; coverage of nominal 95% intervals"
    )
    header = (
        f"{'judge':40s} {'figure':14s} {'known':>7s} {'mean est':>9s} {'coverage':>9s} {'mean width':>10s}"
    )
    print(header)
    print("-" * len(header))
    start = time.perf_counter()
    for judge in JUDGES:
        known = known_values(judge, truth)
        hits: dict[str, list[bool]] = {k: [] for k in known}
        est: dict[str, list[float]] = {k: [] for k in known}
        width: dict[str, list[float]] = {k: [] for k in known}
        for seed in range(args.seeds):
            e = simulate_once(judge, truth, matchups=args.matchups, human_votes=args.human_votes, seed=seed)
            figures = {
                "agreement": (e.agreement.rate, e.agreement.low, e.agreement.high),
                "decisive": (e.agreement.decisive_rate, e.agreement.decisive_low, e.agreement.decisive_high),
                "cohen_kappa": (
                    e.agreement.cohen_kappa,
                    e.agreement.cohen_kappa_low,
                    e.agreement.cohen_kappa_high,
                ),
                "sym_kappa": (e.agreement.sym_kappa, e.agreement.sym_kappa_low, e.agreement.sym_kappa_high),
                "position_bias": e.position_bias,
            }
            if e.correlation is not None:
                c = e.correlation
                figures["kendall"] = (c.kendall, c.kendall_low, c.kendall_high)
                figures["spearman"] = (c.spearman, c.spearman_low, c.spearman_high)
            for name, (point, low, high) in figures.items():
                if not (np.isfinite(known[name]) and np.isfinite(low)):
                    continue
                hits[name].append(bool(low - 1e-12 <= known[name] <= high + 1e-12))
                est[name].append(point)
                width[name].append(high - low)
        for name in known:
            if not hits[name]:
                print(f"{judge.name:40s} {name:14s} {'n/a':>7s}  (undefined: the judge board is all ties)")
                continue
            print(
                f"{judge.name:40s} {name:14s} {known[name]:7.3f} {np.mean(est[name]):9.3f} "
                f"{np.mean(hits[name]):9.0%} {np.mean(width[name]):10.3f}"
            )
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
