"""Benchmark `arena ratings fit` end to end against FastChat's current algorithm on the same battles file.

Run ``python -m bench.bench_cli`` (``--models 20,100``, ``--votes``, ``--rounds``; ``--quick`` for a small
run). For each model count it writes (once, cached under ``var/bench/``) a JSON-lines file of simulated
battles (``{"model_a", "model_b", "winner"}``, ~10% ties split between "tie" and "tie (bothbad)"), then
times, each as a fresh process in the same run, with the machine's load average beside it:

* ours: the ``arena`` console script, ``arena ratings fit --battles FILE --bootstrap ROUNDS --json``
  (median of ``--repeat`` runs), and ``arena ratings fit --help`` (start-up, median of 5);
* FastChat's current algorithm (:mod:`bench.fastchat_current`: pandas ``read_json``, ``np.unique`` rows,
  L-BFGS point fit, multinomial bootstrap in a process pool over all CPUs), on the same file and rounds;
* optionally (``--old-rounds N``) the older FastChat-style path (:mod:`bench.fastchat_baseline`: dense
  duplicated design, one logistic regression per round), its bootstrap timed over N rounds and extrapolated;
* the rating job's fit (what `arena ratings snapshot` runs on the database's grouped votes:
  ``arena.voting.kept_votes.counted_rows`` then ``ratings.compute_all_boards``), in this process, from the same
  votes grouped as the database's ``GROUP BY`` returns them.

It prints a markdown table: seconds (wall, and CPU of the process and its children), the speed ratio, and
the largest point-estimate difference in Elo between ours and FastChat's (both anchored on the same model,
400 per factor of 10, so the numbers are on the same scale).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANCHOR = "flux-1-schnell"


def battles_file(n_models: int, n_votes: int) -> Path:
    """The cached battles file of this size (written on first use)."""
    path = ROOT / "var" / "bench" / f"battles-{n_models}m-{n_votes}.jsonl"
    if path.exists():
        return path
    from bench.bench_ratings import simulate_board

    cols = simulate_board(n_models, n_votes, seed=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        for a, b, w in zip(cols["model_a"], cols["model_b"], cols["winner"], strict=True):
            out.write(json.dumps({"model_a": a, "model_b": b, "winner": w}) + "\n")
    tmp.replace(path)
    return path


def real_file() -> tuple[Path, str]:
    """The real crowd votes shipped for the tests (8,931 votes of 59 LLMs), unpacked, and its most-voted model."""
    import gzip

    path = ROOT / "var" / "bench" / "llmfao_crowd_battles.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(
            gzip.decompress((ROOT / "tests" / "data" / "llmfao_crowd_battles.jsonl.gz").read_bytes())
        )
    seen: Counter[str] = Counter()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            seen.update([record["model_a"], record["model_b"]])
    return path, seen.most_common(1)[0][0]


def _env() -> dict[str, str]:
    """This checkout first on the path, so the console script runs the code under test."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _arena() -> list[str]:
    script = Path(sys.executable).parent / "arena"
    return (
        [str(script)] if script.exists() else [sys.executable, "-c", "from arena.entry import main; main()"]
    )


def timed(cmd: list[str]) -> tuple[float, float, float, str]:
    """Run ``cmd``: (wall seconds, CPU seconds of it and its children, load average at the start, stdout)."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=_env(), capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, load, proc.stdout


def snapshot_fit(path: Path, anchor: str, rounds: int) -> tuple[float, dict[str, float]]:
    """The rating job's fit on the file's votes grouped as the database groups them: median seconds of 3 and
    the ratings."""
    from arena.voting.kept_votes import counted_rows
    from ratings import CohortRule, compute_all_boards

    with open(path, encoding="utf-8") as handle:
        grouped = Counter(tuple(json.loads(line).values()) for line in handle)
    groups = [(None, None, a, b, w, None, n) for (a, b, w), n in sorted(grouped.items())]
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        rows = counted_rows(groups, CohortRule("v1", frozenset()))
        boards = compute_all_boards(
            rows, overall_anchor=anchor, slice_anchor=anchor, n_bootstrap=rounds, seed=0
        )
        times.append(time.perf_counter() - t0)
    return statistics.median(times), boards.boards["overall"].ratings()


def tight_point(path: Path, anchor: str) -> dict[str, float]:
    """FastChat's point fit solved to convergence (gtol 1e-12, ftol 1e-15, no iteration cap of 100): with its
    defaults L-BFGS-B may stop on scipy's relative-reduction test while the gradient is still ~0.1."""
    import math

    import numpy as np
    from scipy.optimize import minimize

    from bench import fastchat_current as fc

    matchups, outcomes, models, weights = fc.preprocess_for_bt(fc.read_battles(str(path)))
    res = minimize(
        fc.bt_loss_and_grad,
        np.zeros(len(models)),
        args=(matchups, outcomes, weights, math.log(fc.BASE)),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 10_000, "gtol": 1e-12, "ftol": 1e-15},
    )
    scaled = fc.scale_and_offset(res.x, models, anchor, 1000.0)
    return dict(zip(models, scaled.tolist(), strict=True))


def old_path(path: Path, anchor: str, rounds: int, old_rounds: int) -> float:
    """The older FastChat-style path in this process: point fit + ``old_rounds`` rounds, extrapolated."""
    import pandas as pd

    from bench import fastchat_baseline as fc

    t0 = time.perf_counter()
    frame = pd.read_json(path, lines=True)
    fc.compute_mle_elo(frame, anchor=anchor)
    t1 = time.perf_counter()
    fc.get_bootstrap_result(frame, old_rounds, seed=0, anchor=anchor)
    t2 = time.perf_counter()
    return (t1 - t0) + (t2 - t1) * rounds / old_rounds


def bench_one(
    title: str, path: Path, anchor: str, rounds: int, repeat: int, old_rounds: int
) -> list[tuple[str, str]]:
    fit = [
        *_arena(),
        "ratings",
        "fit",
        "--battles",
        str(path),
        "--anchor",
        anchor,
        "--bootstrap",
        str(rounds),
    ]
    fastchat = [sys.executable, "-m", "bench.fastchat_current", str(path), "--rounds", str(rounds)]
    fastchat += ["--anchor", anchor]
    title = f"{title}, {rounds} rounds"

    helps = sorted(timed([*_arena(), "ratings", "fit", "--help"])[0] for _ in range(5))
    ours = [timed([*fit, "--json"]) for _ in range(repeat)]
    fc_wall, fc_cpu, fc_load, fc_out = timed(fastchat)
    ours += [timed([*fit, "--json"])]  # once more after the baseline: the load may have changed
    wall = statistics.median(r[0] for r in ours)
    cpu = statistics.median(r[1] for r in ours)
    loads = ", ".join(f"{r[2]:.1f}" for r in ours)

    mine = {r["model"]: r["rating"] for r in json.loads(ours[-1][3])}
    theirs = json.loads(fc_out)
    diff = max(abs(mine[m] - theirs["ratings"][m]) for m in mine)
    tight = tight_point(path, anchor)
    tight_diff = max(abs(mine[m] - tight[m]) for m in mine)
    split = ", ".join(f"{k} {v:.1f}" for k, v in theirs["seconds"].items())

    job_seconds, job_ratings = snapshot_fit(path, anchor, rounds)
    job_diff = max(abs(job_ratings[m] - mine[m]) for m in mine)
    rows = [
        (f"{title}: `arena ratings fit --help`, median of 5 (goal < 0.5 s)", f"{helps[2]:.2f} s"),
        (
            f"{title}: ours, `arena ratings fit` end to end, median of {len(ours)}",
            f"{wall:.2f} s ({cpu:.2f} CPU s; load {loads})",
        ),
        (
            f"{title}: FastChat current (`compute_bt` + `compute_bootstrap_bt`, {os.cpu_count()} processes)",
            f"{fc_wall:.1f} s ({fc_cpu:.1f} CPU s; load {fc_load:.1f}; inside: {split})",
        ),
        ("speed ratio, end to end (goal >= 20x)", f"{fc_wall / wall:.1f}x (CPU time: {fc_cpu / cpu:.1f}x)"),
        (
            "max point-estimate difference ours vs FastChat, same anchor (goal <= 0.01 Elo): its defaults; "
            "its fit solved to convergence",
            f"{diff:.4f} Elo; {tight_diff:.5f} Elo",
        ),
        (
            f"{title}: the rating job's fit (counted rows -> compute_all_boards), in process, median of 3",
            f"{job_seconds:.2f} s (ratings differ from the CLI's by {job_diff:.1g} Elo)",
        ),
    ]
    if old_rounds:
        old = old_path(path, anchor, rounds, old_rounds)
        rows += [
            (
                f"{title}: older FastChat-style path (bootstrap timed over {old_rounds} rounds, extrapolated)",
                f"{old:.1f} s (ratio {old / wall:.0f}x)",
            )
        ]
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="20,100", help="comma-separated model counts")
    parser.add_argument("--votes", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2, help="our runs before the baseline (one more after)")
    parser.add_argument("--old-rounds", type=int, default=0, help="also time the older path over N rounds")
    parser.add_argument("--no-real", action="store_true", help="skip the real 8,931-vote file")
    parser.add_argument("--quick", action="store_true", help="20 models, 100,000 votes, 200 rounds")
    args = parser.parse_args(argv)
    if args.quick:
        args.models, args.votes, args.rounds = "20", 100_000, 200
    rows: list[tuple[str, str]] = [("machine", f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")]
    for n_models in (int(x) for x in args.models.split(",") if x):
        path = battles_file(n_models, args.votes)
        title = f"{n_models} models, {args.votes:,} battles"
        rows += bench_one(title, path, ANCHOR, args.rounds, args.repeat, args.old_rounds)
    if not args.no_real:
        path, anchor = real_file()
        title = f"real crowd votes (LLMFAO: 8,931 votes, 59 models; anchor {anchor})"
        rows += bench_one(title, path, anchor, args.rounds, args.repeat, args.old_rounds)
    print("| measure | value |\n| --- | --- |")
    print("\n".join(f"| {k} | {v} |" for k, v in rows))


if __name__ == "__main__":
    main()
