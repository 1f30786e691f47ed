"""How often a 40-model board carries any wrong-direction rank claim ("j above i" while truly j < i).

Run ``python -m bench.bench_ranks`` (``--quick`` for fewer boards). Boards are simulated as in
``bench.bench_coverage`` (fixed prompt pool, prompt-by-model effect SD 0.5 nats, truth = population-marginal
strengths) with 40 models and 10,000 votes. For the simultaneous rule that the boards use (max-T over all
pairs, ``ratings.intervals.pairwise_above_simultaneous`` / ``pairwise_above_normal_simultaneous``) and
the per-pair rule it replaced, it prints the share of boards with at least one wrong claim (goal: at most
5%), the share of wrong claims among all pairs, the claims made per board, and whether the ranks are
identical under another anchor.
"""

from __future__ import annotations

import argparse

import numpy as np

from ratings import Votes, compute_board, fit_bradley_terry, pair_counts
from ratings.aggregate import aggregate_votes, board_rows
from ratings.bootstrap import bootstrap_board
from ratings.intervals import (
    board_sandwich_covariance,
    pairwise_above,
    pairwise_above_normal,
    pairwise_above_normal_simultaneous,
    pairwise_above_simultaneous,
)
from ratings.simulate import marginal_strengths, simulate_clustered_votes

N_MODELS = 40
N_VOTES = 10_000
N_PROMPTS = 360


def wrong_claims(above: np.ndarray, truth: np.ndarray) -> int:
    """Claims ``above[j, i]`` with ``truth[j] < truth[i]``."""
    return int((above & (truth[:, None] < truth[None, :])).sum())


def run(n_boards: int, n_rounds: int, seed: int = 7) -> dict[str, list[tuple[int, int]]]:
    """Per rule, ``(wrong claims, claims)`` of each board."""
    rng = np.random.default_rng(seed)
    models = tuple(f"m{k:02d}" for k in range(N_MODELS))
    out: dict[str, list[tuple[int, int]]] = {
        k: []
        for k in (
            "bootstrap, simultaneous (max-T)",
            "bootstrap, per pair",
            "sandwich, simultaneous (max-T)",
            "sandwich, per pair",
        )
    }
    for b in range(n_boards):
        theta = rng.normal(0.0, 0.6, N_MODELS)
        truth = marginal_strengths(theta, 0.5)
        a, bb, o, p = simulate_clustered_votes(theta, N_VOTES, rng, n_prompts=N_PROMPTS)
        board = board_rows(aggregate_votes(a, bb, o, models=models, cluster=p))
        counts = pair_counts(board)
        fit = fit_bradley_terry(counts).theta
        reps = bootstrap_board(
            board, fit, n_rounds=n_rounds, rng=np.random.default_rng([seed, b]), workers=1
        ).theta
        cov = board_sandwich_covariance(fit, board, counts)
        for name, above in (
            ("bootstrap, simultaneous (max-T)", pairwise_above_simultaneous(reps, fit)[0]),
            ("bootstrap, per pair", pairwise_above(reps)),
            ("sandwich, simultaneous (max-T)", pairwise_above_normal_simultaneous(fit, cov)[0]),
            ("sandwich, per pair", pairwise_above_normal(fit, cov)),
        ):
            out[name].append((wrong_claims(above, truth), int(above.sum())))
    return out


def anchor_invariant(seed: int = 3) -> bool:
    """Ranks of one simulated board under two anchors (bootstrap and sandwich) are the same."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.6, N_MODELS)
    a, b, o, p = simulate_clustered_votes(theta, N_VOTES, rng, n_prompts=N_PROMPTS)
    names = np.array([f"m{k:02d}" for k in range(N_MODELS)], dtype=object)
    votes = Votes.from_columns(names[a], names[b], o, cluster=p)
    same = True
    for interval in ("bootstrap", "sandwich"):
        ranks = [
            {
                r.model: r.rank
                for r in compute_board(votes, anchor=anc, interval=interval, n_bootstrap=300).rows
            }
            for anc in ("m00", "m17")
        ]
        same = same and ranks[0] == ranks[1]
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_boards, n_rounds = (40, 300) if args.quick else (200, 500)
    res = run(n_boards, n_rounds)
    print(f"{N_MODELS} models, {N_VOTES:,} votes on {N_PROMPTS} prompts (effect SD 0.5), {n_boards} boards")
    print("\n| rule | boards with any wrong claim % | wrong claims / pairs % | claims per board |")
    print("|---|---:|---:|---:|")
    pairs = N_MODELS * (N_MODELS - 1) // 2
    for name, rows in res.items():
        w = np.array([r[0] for r in rows])
        c = np.array([r[1] for r in rows])
        print(
            f"| {name} | {100 * (w > 0).mean():.1f} | {100 * w.sum() / (pairs * len(rows)):.3f} | {c.mean():.0f} |"
        )
    print(f"\nranks identical under two anchors (bootstrap and sandwich): {anchor_invariant()}")


if __name__ == "__main__":
    main()
