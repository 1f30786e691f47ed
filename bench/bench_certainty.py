"""Calibration of the certainty figures: votes to settle (quoted chance vs observed) and P(best) (reliability).

Run ``python -m bench.bench_certainty`` (``--quick`` for a small run). Boards are simulated as in
``bench.bench_coverage``: a fixed pool of 360 prompts, one stored output per model and prompt with a
prompt-by-model effect of SD 0.5 nats, strengths ``N(0, 0.6^2)``, 10% ties between even models, truth =
the population-marginal strengths. Sizes cycle through 40 models / 10k votes, 20 models / 5k votes,
40 models / 30k votes, and a close field (20 models / 5k votes, strengths ``N(0, 0.15^2)``) where the errors
are as large as the spread, the case where draws centred at the estimate crown the leader too often. Each
board is fitted with the cluster sandwich and its max-T critical value (``ratings.uncertainty`` does the same
for ``interval="sandwich"``); ``ratings.certainty.board_certainty`` gives the figures. P(best) draws come
from the sandwich covariance on bootstrap boards too, so the figures here hold for both interval methods.

(a) Votes to settle: for each unsettled adjacent pair with a finite quote, exactly the quoted votes are cast
between the two (random side, prompts drawn from the same pool, outcomes from the true strengths plus the
same prompt effects), the board is refitted, and the pair counts as settled when its new gap exceeds the
board's critical value times its new cluster-robust standard error. The quoted chance (80%, either
direction) is compared with the observed share, split into the quoted direction, reversed and not at all;
the old quote (the gap assumed exact) is run on the same pairs for comparison.

(b) P(best): a reliability table over every model of every board (reported P(best) binned; mean reported vs
the share truly best, with a 95% Wilson interval), the same for the old draws (centred at the estimate), and
the board's top model (highest P(best)): mean reported vs truly best.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ratings import fit_bradley_terry, pair_counts
from ratings.aggregate import BoardRows, aggregate_votes, board_rows
from ratings.bootstrap import bootstrap_board
from ratings.certainty import (
    NORMAL_DRAWS,
    SETTLE_PROBABILITY,
    board_certainty,
    normal_draws,
    rank_probabilities,
    votes_to_settle,
)
from ratings.intervals import (
    DEFAULT_LEVEL,
    board_sandwich_covariance,
    difference_variances,
    pairwise_above_normal_simultaneous,
    vote_level_covariance,
)
from ratings.proportions import wilson_interval
from ratings.simulate import marginal_strengths, outcomes_with_effects

N_PROMPTS = 360
EFFECT_SD = 0.5
#: (models, votes, strength SD): the bench_coverage field at three sizes, and a close field (the winner's curse)
SIZES = ((40, 10_000, 0.6), (20, 5_000, 0.6), (40, 30_000, 0.6), (20, 5_000, 0.15))
BINS = (0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0001)


@dataclass
class Sim:
    """One simulated board: the truth, the prompt effects and the votes."""

    theta: np.ndarray
    truth: np.ndarray
    effect: np.ndarray
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    prompt: np.ndarray


def simulate(n_models: int, n_votes: int, strength_sd: float, rng: np.random.Generator) -> Sim:
    theta = rng.normal(0.0, strength_sd, n_models)
    effect = rng.normal(0.0, EFFECT_SD, size=(N_PROMPTS, n_models))
    a = rng.integers(0, n_models, size=n_votes)
    b = rng.integers(0, n_models - 1, size=n_votes)
    b = b + (b >= a)
    prompt = rng.integers(0, N_PROMPTS, size=n_votes)
    outcome = outcomes_with_effects(theta, effect, a, b, prompt, rng)
    return Sim(theta, marginal_strengths(theta, EFFECT_SD), effect, a, b, outcome, prompt)


def rows_of(sim: Sim, extra: tuple[np.ndarray, ...] | None = None) -> BoardRows:
    a, b, o, p = sim.a, sim.b, sim.outcome, sim.prompt
    if extra is not None:
        a, b, o, p = (np.concatenate([x, y]) for x, y in zip((a, b, o, p), extra, strict=True))
    models = tuple(f"m{k:02d}" for k in range(len(sim.theta)))
    return board_rows(aggregate_votes(a, b, o, models=models, cluster=p))


def gap_and_se(board: BoardRows, hi: int, lo: int) -> tuple[float, float]:
    counts = pair_counts(board)
    theta = fit_bradley_terry(counts).theta
    cov = board_sandwich_covariance(theta, board, counts)
    return float(theta[hi] - theta[lo]), float(math.sqrt(difference_variances(cov)[hi, lo]))


@dataclass
class Settle:
    """Per rule: pairs tried, settled in the quoted direction, reversed; quoted chances; truly reversed."""

    n: int = 0
    same: int = 0
    reversed: int = 0
    truly_reversed: int = 0
    quoted: list[float] = field(default_factory=list)
    votes: list[float] = field(default_factory=list)
    never: int = 0

    def add(self, same: bool, rev: bool, truly_reversed: bool, votes: float) -> None:
        self.n += 1
        self.same += same
        self.reversed += rev
        self.truly_reversed += truly_reversed
        self.votes.append(votes)

    def row(self, name: str) -> str:
        n = max(self.n, 1)
        settled = 100 * (self.same + self.reversed) / n
        return (
            f"| {name} | {self.n} | {self.never} | {np.median(self.votes) if self.votes else float('nan'):,.0f} | "
            f"{100 * np.mean(self.quoted) if self.quoted else float('nan'):.0f} | {settled:.1f} | "
            f"{100 * self.same / n:.1f} | {100 * self.reversed / n:.1f} | {100 - settled:.1f} | "
            f"{100 * self.truly_reversed / n:.0f} |"
        )


def try_settle(sim: Sim, hi: int, lo: int, m: int, z: float, rng: np.random.Generator) -> tuple[bool, bool]:
    """Cast ``m`` votes between ``hi`` and ``lo``, refit: (settled in the quoted direction, settled reversed)."""
    side = rng.random(m) < 0.5
    a = np.where(side, hi, lo)
    b = np.where(side, lo, hi)
    prompt = rng.integers(0, N_PROMPTS, size=m)
    o = outcomes_with_effects(sim.theta, sim.effect, a, b, prompt, rng)
    gap, se = gap_and_se(rows_of(sim, (a, b, o, prompt)), hi, lo)
    return gap > z * se, -gap > z * se


@dataclass
class Best:
    """Reported P(best) and whether the model was truly best, pooled; plus each board's top model."""

    reported: list[np.ndarray] = field(default_factory=list)
    old: list[np.ndarray] = field(default_factory=list)
    old_boot: list[np.ndarray] = field(default_factory=list)
    best: list[np.ndarray] = field(default_factory=list)


def reliability(reported: np.ndarray, best: np.ndarray, name: str) -> None:
    print(f"\n{name}\n")
    print("| reported P(best) | models | mean reported % | truly best % | 95% interval | gap (points) |")
    print("|---|---:|---:|---:|---|---:|")
    plot = []
    for lo, hi in itertools.pairwise(BINS):
        sel = (reported >= lo) & (reported < hi)
        n = int(sel.sum())
        if n == 0:
            continue
        k = int(best[sel].sum())
        r, o = 100 * reported[sel].mean(), 100 * k / n
        w = wilson_interval(k, n)
        print(
            f"| {lo:.2f}-{min(hi, 1):.2f} | {n} | {r:.1f} | {o:.1f} | {100 * w[0]:.1f}-{100 * w[1]:.1f} | "
            f"{o - r:+.1f} |"
        )
        plot.append((lo, min(hi, 1.0), r, o, n))
    print("\n```\nreported (|) vs observed (*), 0..100%")
    for lo, hi, r, o, n in plot:
        line = [" "] * 51
        line[round(r / 2)] = "|"
        line[round(o / 2)] = "*" if line[round(o / 2)] == " " else "#"
        print(f"{lo:.2f}-{hi:.2f} [{''.join(line)}] n={n}")
    print("```")


def run(
    n_boards: int, n_settle_boards: int, n_old_boards: int, seed: int, n_rounds: int
) -> tuple[dict[str, Settle], Best]:
    settle = {
        "80% chance (this rule)": Settle(),
        "gap assumed exact (old rule)": Settle(),
        "old rule's votes, pairs this rule calls out of reach": Settle(),
    }
    best = Best()
    for k in range(n_boards):
        rng = np.random.default_rng([seed, k])
        n_models, n_votes, strength_sd = SIZES[k % len(SIZES)]
        sim = simulate(n_models, n_votes, strength_sd, rng)
        board = rows_of(sim)
        counts = pair_counts(board)
        theta = fit_bradley_terry(counts).theta
        cov = board_sandwich_covariance(theta, board, counts)
        above, z = pairwise_above_normal_simultaneous(theta, cov, DEFAULT_LEVEL)
        vote_cov = vote_level_covariance(theta, board, counts)
        sure = board_certainty(
            counts, theta, above, cov, level=DEFAULT_LEVEL, critical=z, vote_covariance=vote_cov
        )
        old = rank_probabilities(normal_draws(theta, cov, NORMAL_DRAWS, np.random.default_rng(0)))[0]
        if n_rounds:
            reps = bootstrap_board(
                board, theta, n_rounds=n_rounds, rng=np.random.default_rng([seed, k, 1]), workers=1
            ).theta
            best.old_boot.append(rank_probabilities(reps)[0])
        top = np.argmax(sim.truth)
        best.reported.append(sure.p_best)
        best.old.append(old)
        best.best.append(np.arange(n_models) == top)
        if k >= n_settle_boards:
            continue
        order = np.argsort(-theta, kind="stable")
        var = difference_variances(cov)
        for hi, lo in itertools.pairwise(order):
            if sure.settled_below[hi]:
                continue
            truly_reversed = bool(sim.truth[hi] < sim.truth[lo])
            m = sure.votes_to_settle[hi]
            new = settle["80% chance (this rule)"]
            if np.isfinite(m):
                new.add(*try_settle(sim, int(hi), int(lo), math.ceil(m), z, rng), truly_reversed, m)
                new.quoted.append(SETTLE_PROBABILITY)
            else:
                new.never += 1
            if k >= n_old_boards:
                continue
            gap = float(theta[hi] - theta[lo])
            old_m = votes_to_settle(
                gap, float(var[hi, lo]), 1.0 / (1.0 + math.exp(-gap)), DEFAULT_LEVEL, critical=z
            )
            outcome = try_settle(sim, int(hi), int(lo), math.ceil(old_m), z, rng)
            settle["gap assumed exact (old rule)"].add(*outcome, truly_reversed, old_m)
            if not np.isfinite(m):
                settle["old rule's votes, pairs this rule calls out of reach"].add(
                    *outcome, truly_reversed, old_m
                )
    return settle, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer boards")
    parser.add_argument("--boards", type=int, default=None)
    parser.add_argument(
        "--settle-boards", type=int, default=None, help="boards whose pairs test this rule's quote"
    )
    parser.add_argument("--old-boards", type=int, default=None, help="boards whose pairs test the old quote")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument(
        "--rounds", type=int, default=500, help="cluster bootstrap rounds of the old rule (0: skip)"
    )
    args = parser.parse_args()
    n_boards = args.boards if args.boards is not None else (90 if args.quick else 600)
    n_settle = args.settle_boards if args.settle_boards is not None else n_boards
    n_old = args.old_boards if args.old_boards is not None else (6 if args.quick else 40)
    t0 = time.perf_counter()
    settle, best = run(n_boards, n_settle, n_old, args.seed, args.rounds)
    secs = time.perf_counter() - t0
    sizes = ", ".join(f"{m} models / {v:,} votes / strength SD {sd}" for m, v, sd in SIZES)
    print(
        f"{n_boards} boards ({sizes}, in turn), {N_PROMPTS} prompts, prompt-by-model effect SD {EFFECT_SD} nats; "
        "truth = population-marginal strengths; cluster sandwich, max-T critical value"
    )
    print(
        f"\n(a) votes to settle: unsettled adjacent pairs of the first {n_settle} boards (old rule: first {n_old}), "
        "quoted votes added, refitted\n"
    )
    print(
        "| quote | pairs tried | no finite quote | median votes quoted | quoted chance % | settled % | "
        "quoted direction % | reversed % | not at all % | truly reversed % |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, tally in settle.items():
        print(tally.row(name))
    new = settle["80% chance (this rule)"]
    observed = 100 * (new.same + new.reversed) / max(new.n, 1)
    ok_a = abs(observed - 100 * SETTLE_PROBABILITY) <= 10
    reported = np.concatenate(best.reported)
    truly = np.concatenate(best.best)
    reliability(
        reported,
        truly,
        "(b) P(best), this rule (empirical-Bayes posterior draws), every model of every board",
    )
    reliability(
        np.concatenate(best.old), truly, "P(best), old rule (draws centred at the estimate), same boards"
    )
    if best.old_boot:
        reliability(
            np.concatenate(best.old_boot),
            truly,
            f"P(best), old rule on bootstrap boards (share of {args.rounds} cluster bootstrap replicates), same boards",
        )
    gaps = []
    for lo, hi in itertools.pairwise(BINS):
        sel = (reported >= lo) & (reported < hi)
        if sel.sum() >= 100:
            gaps.append(abs(100 * (truly[sel].mean() - reported[sel].mean())))
    print(
        "\n| board's top model (highest P(best)) | boards | mean reported % | truly best % | 95% interval |"
    )
    print("|---|---:|---:|---:|---|")
    rules = [("this rule", best.reported), ("old rule, normal draws", best.old)]
    rules += [("old rule, bootstrap replicates", best.old_boot)] if best.old_boot else []
    groups = [("all boards", None)] + [
        (f"{m} models / {v:,} votes / SD {sd}", g) for g, (m, v, sd) in enumerate(SIZES)
    ]
    for label, g in groups:
        for name, rep in rules:
            picks = [
                (r[np.argmax(r)], t[np.argmax(r)])
                for b, (r, t) in enumerate(zip(rep, best.best, strict=True))
                if g is None or b % len(SIZES) == g
            ]
            k = int(sum(t for _, t in picks))
            w = wilson_interval(k, len(picks))
            print(
                f"| {label}: {name} | {len(picks)} | {100 * np.mean([p for p, _ in picks]):.1f} | "
                f"{100 * k / len(picks):.1f} | {100 * w[0]:.1f}-{100 * w[1]:.1f} |"
            )
    ok_b = bool(gaps) and max(gaps) <= 5
    print(
        f"\nVotes-to-settle calibrated within 10 points: {ok_a} (quoted {100 * SETTLE_PROBABILITY:.0f}%, "
        f"observed {observed:.1f}%); P(best) calibrated within 5 points in every bin with 100+ models: {ok_b} "
        f"(largest gap {max(gaps) if gaps else float('nan'):.1f} points)"
    )
    print(f"wall time {secs:.0f} s")


if __name__ == "__main__":
    main()
