"""Benchmark the ratings package against a FastChat-style baseline, and time a modality's boards.

Run ``python -m bench.bench_ratings`` (``--quick`` for a small run). It prints a markdown table:

* one board of 100 models and 1,000,000 simulated votes with a 1,000-round bootstrap: baseline
  seconds (:mod:`bench.fastchat_baseline`; its bootstrap is timed over ``--baseline-rounds``
  rounds and extrapolated linearly to 1,000, as stated in the output) against ours, the speed
  ratio, the largest point-estimate difference in Elo once both are anchored on the same model,
  and the ratio of interval widths;
* every board of one modality (overall + 10 use cases + 9 capabilities, 1,000 rounds each) from
  5,000,000 votes: seconds and peak memory (traced allocations during the computation, and the
  process's peak resident set).

Votes are simulated with known strengths (``ratings.simulate``), ~10% ties, as string columns,
which is how a database or a battles file hands them over. BLAS threads are left as configured.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc

import numpy as np

from prompts_taxonomy import load_taxonomy
from ratings import Votes, compute_all_boards, compute_board, simulate_votes

# The taxonomy's display names, from the data file (10 use cases x 9 capabilities).
USE_CASES = [label.name for label in load_taxonomy().use_cases]
CAPABILITIES = [label.name for label in load_taxonomy().capabilities]
WINNERS = np.array(["model_a", "model_b", "tie"], dtype=object)
ANCHOR = "flux-1-schnell"


def model_names(n: int) -> np.ndarray:
    return np.array(["flux-1-schnell", "flux-2-dev", *(f"model-{k:03d}" for k in range(2, n))], dtype=object)


def simulate_board(n_models: int, n_votes: int, seed: int) -> dict[str, np.ndarray]:
    """String columns of one board's votes (ties split between 'tie' and 'tie (bothbad)')."""
    rng = np.random.default_rng(seed)
    names = model_names(n_models)
    a, b, o = simulate_votes(rng.normal(0.0, 1.0, n_models), n_votes, rng)
    winner = WINNERS[o]
    winner[(o == 2) & (rng.random(n_votes) < 0.4)] = "tie (bothbad)"
    return {"model_a": names[a], "model_b": names[b], "winner": winner}


def simulate_modality(n_models: int, n_votes: int, seed: int) -> dict[str, np.ndarray]:
    """String columns of a modality's votes spread uniformly over use case x capability cells.

    Each cell perturbs the models' strengths a little, so slice boards differ from the overall.
    """
    rng = np.random.default_rng(seed)
    names = model_names(n_models)
    base = rng.normal(0.0, 1.0, n_models)
    cells = [(u, c) for u in USE_CASES for c in CAPABILITIES]
    sizes = rng.multinomial(n_votes, np.full(len(cells), 1.0 / len(cells)))
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("model_a", "model_b", "winner", "use_case", "capability")
    }
    uc_names = np.array(USE_CASES, dtype=object)
    cap_names = np.array(CAPABILITIES, dtype=object)
    for (u, c), size in zip(cells, sizes, strict=True):
        a, b, o = simulate_votes(base + rng.normal(0.0, 0.2, n_models), int(size), rng)
        parts["model_a"].append(names[a])
        parts["model_b"].append(names[b])
        parts["winner"].append(WINNERS[o])
        parts["use_case"].append(np.full(size, uc_names[USE_CASES.index(u)], dtype=object))
        parts["capability"].append(np.full(size, cap_names[CAPABILITIES.index(c)], dtype=object))
    return {k: np.concatenate(v) for k, v in parts.items()}


def bench_one_board(n_models: int, n_votes: int, rounds: int, baseline_rounds: int) -> list[tuple[str, str]]:
    import pandas as pd

    from bench import fastchat_baseline as fc

    cols = simulate_board(n_models, n_votes, seed=1)
    frame = pd.DataFrame(cols)

    t0 = time.perf_counter()
    point = fc.compute_mle_elo(frame, anchor=ANCHOR)
    t1 = time.perf_counter()
    boot, unconverged = fc.get_bootstrap_result(frame, baseline_rounds, seed=0, anchor=ANCHOR)
    t2 = time.perf_counter()
    base_seconds = (t1 - t0) + (t2 - t1) * rounds / baseline_rounds

    t3 = time.perf_counter()
    votes = Votes.from_columns(cols["model_a"], cols["model_b"], cols["winner"])
    board = compute_board(votes, anchor=ANCHOR, n_bootstrap=rounds, seed=0)
    ours_seconds = time.perf_counter() - t3

    ours = board.ratings()
    diff = max(abs(ours[m] - point[m]) for m in ours)
    # the baseline shifts each replicate onto the anchor; centring each replicate removes that shift and puts
    # it in the anchor-free gauge our intervals use, so every model (the anchor too) compares like for like
    centred = boot.sub(boot.mean(axis=1), axis=0)
    low, high = centred.quantile(0.025), centred.quantile(0.975)
    ratios = np.array([(r.ci_high - r.ci_low) / (high[r.model] - low[r.model]) for r in board.rows])
    extrapolated = baseline_rounds != rounds
    note = (
        f" (bootstrap timed over {baseline_rounds} rounds, extrapolated to {rounds})" if extrapolated else ""
    )
    spread = f"range {ratios.min():.2f}-{ratios.max():.2f}"
    width_note = f"median {np.median(ratios):.3f}, mean {ratios.mean():.3f}, {spread}"
    title = f"one board: {n_models} models, {n_votes:,} votes, {rounds}-round bootstrap"
    return [
        (f"{title}: baseline seconds{note}", f"{base_seconds:.1f}"),
        (f"{title}: ours seconds", f"{ours_seconds:.2f}"),
        ("speed ratio (goal >= 20x)", f"{base_seconds / ours_seconds:.0f}x"),
        ("max abs point-estimate difference, Elo, same anchor (goal <= 0.01)", f"{diff:.5f}"),
        (
            f"interval width ratio ours/baseline, every model, replicates centred ({baseline_rounds} baseline "
            "rounds; goal within 5%)",
            width_note,
        ),
        ("baseline bootstrap fits that hit L-BFGS max_iter", f"{unconverged} of {baseline_rounds}"),
        ("our point fit", board.fit.message),
    ]


def bench_all_boards(n_models: int, n_votes: int, rounds: int) -> list[tuple[str, str]]:
    cols = simulate_modality(n_models, n_votes, seed=2)
    load = os.getloadavg()[0]
    tracemalloc.start()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    votes = Votes.from_columns(
        cols["model_a"],
        cols["model_b"],
        cols["winner"],
        use_case=cols["use_case"],
        capability=cols["capability"],
    )
    result = compute_all_boards(votes, n_bootstrap=rounds, seed=0)
    seconds = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n_boards = len(result.boards)
    title = (
        f"all boards of a modality ({n_boards} boards: overall + use cases + capabilities), {n_votes:,} votes"
    )
    return [
        (f"{title}, {rounds} rounds each: seconds (goal < 60)", f"{seconds:.1f}"),
        ("  CPU seconds of this process (user + sys, all threads)", f"{cpu:.1f}"),
        (f"  machine load average when it started ({os.cpu_count()} CPUs)", f"{load:.1f}"),
        ("peak traced memory during the computation", f"{peak / 2**20:.0f} MiB"),
        ("process peak resident set (includes the simulated input)", f"{rss_mb:.0f} MiB"),
        ("boards that failed", ", ".join(result.failures) or "none"),
    ]


def markdown(rows: list[tuple[str, str]]) -> str:
    lines = ["| measure | value |", "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    parser.add_argument(
        "--baseline-rounds", type=int, default=None, help="baseline bootstrap rounds actually run"
    )
    parser.add_argument("--skip-baseline", action="store_true", help="only time the modality's boards")
    args = parser.parse_args(argv)
    if args.quick:
        one = {"n_models": 30, "n_votes": 100_000, "rounds": 200}
        everything = {"n_models": 30, "n_votes": 300_000, "rounds": 200}
        baseline_rounds = args.baseline_rounds or 20
    else:
        one = {"n_models": 100, "n_votes": 1_000_000, "rounds": 1000}
        everything = {"n_models": 100, "n_votes": 5_000_000, "rounds": 1000}
        baseline_rounds = args.baseline_rounds or 200
    rows: list[tuple[str, str]] = []
    rows += bench_all_boards(**everything)
    if not args.skip_baseline:
        rows += bench_one_board(**one, baseline_rounds=min(baseline_rounds, one["rounds"]))
    print(markdown(rows))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
