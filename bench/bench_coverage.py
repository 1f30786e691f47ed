"""Coverage of the true (population-marginal) ratings when votes cluster by prompt.

Run ``python -m bench.bench_coverage`` (``--quick`` for a small run). Each simulated board has 30 models
(log-strengths ``N(0, 0.6^2)``), a fixed pool of 360 prompts, one stored output per model and prompt with
a prompt-by-model effect of SD 0.5 nats (``ratings.simulate.simulate_clustered_votes``) and 10% ties
between even models. The truth is the population-marginal strengths (``ratings.simulate.marginal_strengths``:
the fit on infinitely many prompts), so the attenuation the effect causes is not counted as undercoverage.

For 10k, 60k and 250k votes it prints, per interval method (cluster bootstrap, cluster sandwich, and the
vote-level bootstrap the boards used before), the share of 95% intervals that cover the truth, per model
(the centred rating) and per pair (the rating difference), pooled over all boards, with the ratio of the
errors' spread to the intervals' implied standard error. A slice board row (votes of half the prompts,
as a use-case board sees them) checks slices. Coverage here is of the sum-zero centred ratings: the
display interval minus the board's offset (see ``ratings.intervals``).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import numpy as np

from arena.settings import Settings
from ratings import ELO_PER_NAT, center, fit_bradley_terry, normal_quantile, pair_counts
from ratings.aggregate import BoardRows, aggregate_votes, board_rows
from ratings.bootstrap import bootstrap_board
from ratings.intervals import board_sandwich_covariance, difference_variances, percentile_intervals
from ratings.simulate import marginal_strengths, simulate_clustered_votes

N_MODELS = 30
N_PROMPTS = 360
EFFECT_SD = 0.5
STRENGTH_SD = 0.6
LEVEL = 0.95


@dataclass
class Tally:
    """Covered / total per model and per pair, and squared z-scores (errors over implied SEs)."""

    model_hit: int = 0
    model_n: int = 0
    pair_hit: int = 0
    pair_n: int = 0
    z2: float = 0.0
    z_n: int = 0
    boards: list[float] = field(
        default_factory=list
    )  # per-board coverage per model, for the Monte Carlo error

    def add(self, hit_m: np.ndarray, hit_p: np.ndarray, z: np.ndarray) -> None:
        self.model_hit += int(hit_m.sum())
        self.model_n += hit_m.size
        self.pair_hit += int(hit_p.sum())
        self.pair_n += hit_p.size
        self.z2 += float((z**2).sum())
        self.z_n += z.size
        self.boards.append(float(hit_m.mean()))

    def model_error(self) -> float:
        """Monte Carlo standard error (points) of the per-model coverage, boards as the independent units
        (the intervals of one board share its votes, so they are not independent of each other)."""
        if len(self.boards) < 2:
            return float("nan")
        return 100.0 * float(np.std(self.boards, ddof=1) / np.sqrt(len(self.boards)))

    def row(self) -> tuple[float, float, float]:
        return (
            100.0 * self.model_hit / max(self.model_n, 1),
            100.0 * self.pair_hit / max(self.pair_n, 1),
            float(np.sqrt(self.z2 / max(self.z_n, 1))),
        )


def simulate_board(
    n_votes: int, rng: np.random.Generator, *, prompt_share: float = 1.0
) -> tuple[BoardRows, np.ndarray, np.ndarray]:
    """A board of clustered votes, the vote-level board of the same votes, and the marginal truth (sum zero).

    ``prompt_share < 1`` keeps only the votes on that share of the prompts (a slice board)."""
    theta = rng.normal(0.0, STRENGTH_SD, N_MODELS)
    truth = marginal_strengths(theta, EFFECT_SD)
    a, b, o, prompt = simulate_clustered_votes(
        theta, int(n_votes / prompt_share), rng, n_prompts=N_PROMPTS, effect_sd=EFFECT_SD
    )
    keep = prompt < round(prompt_share * N_PROMPTS)
    models = tuple(f"m{k:02d}" for k in range(N_MODELS))
    clustered = board_rows(aggregate_votes(a[keep], b[keep], o[keep], models=models, cluster=prompt[keep]))
    plain = board_rows(aggregate_votes(a[keep], b[keep], o[keep], models=models))
    return clustered, plain, truth


def _pairs_hit(low: np.ndarray, high: np.ndarray, truth: np.ndarray) -> np.ndarray:
    i, j = np.triu_indices(len(truth), 1)
    d = truth[i] - truth[j]
    return (low <= d) & (d <= high)


def evaluate(
    board: BoardRows, truth: np.ndarray, method: str, n_rounds: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-model hits, per-pair hits and per-model z-scores of one board under one method."""
    counts = pair_counts(board)
    fit = fit_bradley_terry(counts)
    est = center(fit.theta)
    i, j = np.triu_indices(len(truth), 1)
    if method == "sandwich":
        cov = board_sandwich_covariance(fit.theta, board, counts)
        z = normal_quantile(LEVEL)
        se = np.sqrt(np.diag(cov))
        hit_m = np.abs(est - truth) <= z * se
        dse = np.sqrt(difference_variances(cov)[i, j])
        d_est = est[i] - est[j]
        hit_p = _pairs_hit(d_est - z * dse, d_est + z * dse, truth)
    else:
        reps = bootstrap_board(board, fit.theta, n_rounds=n_rounds, rng=rng, workers=1).theta
        lo, hi = percentile_intervals(reps, LEVEL)
        hit_m = (lo <= truth) & (truth <= hi)
        dlo, dhi = percentile_intervals(reps[:, i] - reps[:, j], LEVEL)
        hit_p = _pairs_hit(dlo, dhi, truth)
        se = reps.std(axis=0)
    return hit_m, hit_p, (est - truth) / se


METHODS = ("cluster bootstrap", "cluster sandwich", "vote-level bootstrap")


def coverage(
    n_votes: int,
    n_boards: int,
    n_rounds: int,
    seed: int,
    *,
    prompt_share: float = 1.0,
    methods: tuple[str, ...] = METHODS,
) -> dict[str, Tally]:
    """Coverage tallies over ``n_boards`` simulated boards for each method (the boards and each method's
    bootstrap draws are the same whichever methods are chosen)."""
    rng = np.random.default_rng(seed)
    out = {m: Tally() for m in methods}
    for k in range(n_boards):
        clustered, plain, truth = simulate_board(n_votes, rng, prompt_share=prompt_share)
        boot_rng = np.random.default_rng([seed, k])
        if "cluster bootstrap" in out:
            out["cluster bootstrap"].add(*evaluate(clustered, truth, "bootstrap", n_rounds, boot_rng))
        if "cluster sandwich" in out:
            out["cluster sandwich"].add(*evaluate(clustered, truth, "sandwich", n_rounds, boot_rng))
        if "vote-level bootstrap" in out:
            out["vote-level bootstrap"].add(*evaluate(plain, truth, "bootstrap", n_rounds, boot_rng))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer boards and rounds")
    parser.add_argument("--boards", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument(
        "--votes", type=str, default="", help="comma-separated vote counts (default: every row)"
    )
    parser.add_argument(
        "--methods",
        type=str,
        default=",".join(METHODS),
        help=f"comma-separated methods (default: all of {', '.join(METHODS)})",
    )
    args = parser.parse_args()
    methods = tuple(m.strip() for m in args.methods.split(","))
    if unknown := [m for m in methods if m not in METHODS]:
        parser.error(f"unknown method(s) {unknown}; choose from {list(METHODS)}")
    n_boards = args.boards or (8 if args.quick else 40)
    # the published boards' rounds (ARENA_BOOTSTRAP_ROUNDS' default) unless --rounds or --quick says otherwise:
    # percentile intervals from fewer replicates cover a little less
    n_rounds = args.rounds or (200 if args.quick else Settings.model_fields["bootstrap_rounds"].default)
    print(
        f"{N_MODELS} models, {N_PROMPTS} prompts, prompt-by-model effect SD {EFFECT_SD} nats, "
        f"{n_boards} boards per row, {n_rounds} bootstrap rounds; truth = population-marginal strengths"
    )
    print(
        "\n| votes | board | method | coverage per model % (± MC s.e.) | per pair % | error SD / implied SE | s |"
    )
    print("|---:|---|---|---:|---:|---:|---:|")
    cases = [(10_000, 1.0, "overall"), (60_000, 1.0, "overall"), (250_000, 1.0, "overall")]
    cases.append((30_000, 0.5, "slice (half the prompts)"))
    if args.votes:
        wanted = {int(v.replace("_", "")) for v in args.votes.split(",")}
        cases = [c for c in cases if c[0] in wanted]
    for n_votes, share, name in cases:
        t0 = time.perf_counter()
        res = coverage(n_votes, n_boards, n_rounds, seed=n_votes, prompt_share=share, methods=methods)
        secs = time.perf_counter() - t0
        for method, tally in res.items():
            m, p, ratio = tally.row()
            err = tally.model_error()
            print(
                f"| {n_votes:,} | {name} | {method} | {m:.1f} ± {err:.1f} | {p:.1f} | {ratio:.2f} | {secs:.0f} |"
            )
    _ = ELO_PER_NAT


if __name__ == "__main__":
    main()
