"""Is X better than the anchor? Coverage of the true gap to the anchor by the displayed and the difference interval.

Run ``python -m bench.bench_anchor_intervals`` (``--quick`` for a small run). Boards are simulated as in
``bench/bench_coverage.py`` (30 models, 360 prompts, a prompt-by-model effect of SD 0.5 nats, 10% ties between
even models; truth = the population-marginal strengths) and computed by the board pipeline itself
(``ratings.compute_board`` with prompt-clustered votes, as the snapshot job runs it), with model ``m00`` (of
random strength) as the anchor reading 1000. The target of each other model is ``1000 + its true gap to the
anchor`` (Elo-like). It prints the share of the 95% intervals that cover the target:

* (a) the displayed per-model interval (``ci_low``/``ci_high``: the rating's interval on the board's centred
  scale, shifted so the anchor's estimate reads 1000): the reading the issue found wrong;
* (b) the new difference-from-anchor interval ``1000 + d -+ 1.96 se`` (``ratings.differences``, the standard
  error the board stores per pair; what ``?relative_to=`` serves), per pair;
* (c) the same from the board's simultaneous (max-T) critical value, the intervals the ranks are read from
  (wider: over-covers one pair on purpose);

for the cluster bootstrap (the snapshot job's method) and the cluster sandwich (combined boards), with the
wall time of each row.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench.bench_coverage import EFFECT_SD, N_MODELS, N_PROMPTS, STRENGTH_SD
from ratings import ELO_PER_NAT, compute_board
from ratings.aggregate import VoteRows, aggregate_votes
from ratings.differences import relative_differences
from ratings.simulate import marginal_strengths, simulate_clustered_votes

ANCHOR = "m00"
LEVEL = 0.95


def simulate_rows(n_votes: int, rng: np.random.Generator) -> tuple[VoteRows, np.ndarray]:
    """Clustered votes counted into rows (with prompts) and the marginal truth (sum zero), made as the boards of
    ``bench/bench_coverage.py`` are."""
    theta = rng.normal(0.0, STRENGTH_SD, N_MODELS)
    truth = marginal_strengths(theta, EFFECT_SD)
    a, b, o, prompt = simulate_clustered_votes(theta, n_votes, rng, n_prompts=N_PROMPTS, effect_sd=EFFECT_SD)
    models = tuple(f"m{k:02d}" for k in range(N_MODELS))
    return aggregate_votes(a, b, o, models=models, cluster=prompt), truth


def covered(low: np.ndarray, high: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Whether each interval covers its target (``nan`` ends: unbounded)."""
    low = np.where(np.isnan(low), -np.inf, low)
    high = np.where(np.isnan(high), np.inf, high)
    return (low <= target) & (target <= high)


def one_board(n_votes: int, method: str, n_rounds: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Hits of (a), (b), (c) over the non-anchor models of one simulated board."""
    rows, truth = simulate_rows(n_votes, rng)
    board = compute_board(
        rows, anchor=ANCHOR, interval=method, n_bootstrap=n_rounds, seed=int(rng.integers(1 << 31)), workers=1
    )
    models = list(board.counts.models)
    a = models.index(ANCHOR)
    by = {r.model: r for r in board.rows}
    ratings = np.array([by[m].rating for m in models])
    target = board.anchor_rating + ELO_PER_NAT * (truth - truth[a])
    low = np.array([by[m].ci_low for m in models])
    high = np.array([by[m].ci_high for m in models])
    assert board.difference_se is not None
    diffs = relative_differences(
        models, ratings, board.difference_se, a, level=LEVEL, critical=board.critical
    )
    nan = float("nan")
    d_low = np.array([board.anchor_rating + (nan if d.low is None else d.low) for d in diffs])
    d_high = np.array([board.anchor_rating + (nan if d.high is None else d.high) for d in diffs])
    s_low = np.array(
        [board.anchor_rating + (nan if d.simultaneous_low is None else d.simultaneous_low) for d in diffs]
    )
    s_high = np.array(
        [board.anchor_rating + (nan if d.simultaneous_high is None else d.simultaneous_high) for d in diffs]
    )
    others = np.arange(len(models)) != a
    return {
        "a": covered(low, high, target)[others],
        "b": covered(d_low, d_high, target)[others],
        "c": covered(s_low, s_high, target)[others],
        "anchor_width": np.array([high[a] - low[a]]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer boards and rounds")
    parser.add_argument("--boards", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    n_boards = args.boards or (6 if args.quick else 100)
    n_rounds = args.rounds or (200 if args.quick else 400)
    print(
        f"{N_MODELS} models, {N_PROMPTS} prompts, prompt-by-model effect SD 0.5 nats, {n_boards} boards per row, "
        f"{n_rounds} bootstrap rounds; anchor {ANCHOR} reads 1000; target = 1000 + true gap to the anchor; "
        f"{n_boards * (N_MODELS - 1)} intervals per cell"
    )
    print(
        "\n| votes | method | (a) displayed interval % | (b) difference from anchor, per pair % "
        "| (c) simultaneous (ranks) % | anchor's displayed width | s |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|")
    for n_votes in (10_000, 60_000):
        for method in ("bootstrap", "sandwich"):
            t0 = time.perf_counter()
            rng = np.random.default_rng([n_votes, 7])  # the same boards for both methods
            hits: dict[str, list[np.ndarray]] = {"a": [], "b": [], "c": [], "anchor_width": []}
            for _ in range(n_boards):
                for key, value in one_board(n_votes, method, n_rounds, rng).items():
                    hits[key].append(value)
            secs = time.perf_counter() - t0
            share = {
                k: 100.0 * float(np.concatenate(v).mean()) for k, v in hits.items() if k != "anchor_width"
            }
            width = float(np.mean(np.concatenate(hits["anchor_width"])))
            print(
                f"| {n_votes:,} | cluster {method} | {share['a']:.1f} | {share['b']:.1f} | {share['c']:.1f} "
                f"| {width:.0f} | {secs:.1f} |"
            )


if __name__ == "__main__":
    main()
