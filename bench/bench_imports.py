"""Benchmark start-up imports (`import arena.app`, the snapshot job's modules, `import ratings`) against a git ref.

Run ``python -m bench.bench_imports [--ref main] [--repeat 3]``. The baseline is the code of ``--ref`` (default:
``main``) and ours is this checkout's ``HEAD`` (commit first), each exported with ``git archive`` into a fresh
temporary folder. Each import runs as a fresh process, with this venv's interpreter and the code under test first
on the path, in two ways:

* **no pyc**: ``PYTHONDONTWRITEBYTECODE=1`` and a fresh copy, so every module of the project is compiled from
  source (and every installed package without ``__pycache__``);
* **with pyc**: ``PYTHONPYCACHEPREFIX`` set to a temporary folder that one unmeasured run first fills, as an
  installed arena's second start finds them.

It prints a markdown table: median wall and CPU (user + system of the child) seconds, the ratio baseline / ours,
and the load average when each measurement started (the machine has 2 cores shared with other sessions: the CPU
ratio is the steadier figure).
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMPORTS = {
    "import arena.app (the web server)": "import arena.app",
    "the snapshot job's modules (arena ratings snapshot, cron)": (
        "import arena.leaderboard.snapshots, arena.ops.audit, arena.cli.progress"
    ),
    "import ratings": "import ratings",
}


def export(ref: str, into: Path) -> Path:
    """The tree of `ref` (its Python packages and data) unpacked into `into`."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def run(code: str, tree: Path, pyc: Path | None) -> tuple[float, float, float]:
    """(wall, CPU, load at start) of one fresh process running `code` with `tree` first on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPATH"] = str(tree)
    if pyc is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = str(pyc)
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main", help="git ref of the baseline")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per measurement (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-imports-") as tmp:
        base = export(args.ref, Path(tmp) / "base")
        ours = export("HEAD", Path(tmp) / "ours")
        pyc = Path(tmp) / "pyc"
        rows = []
        for title, code in IMPORTS.items():
            for mode in ("no pyc", "with pyc"):
                cache = None if mode == "no pyc" else pyc
                if cache is not None:  # fill the cache once for both trees (unmeasured)
                    for tree in (base, ours):
                        run(code, tree, cache)
                got = {}
                for name, tree in (("base", base), ("ours", ours)):
                    runs = [run(code, tree, cache) for _ in range(args.repeat)]
                    got[name] = (
                        statistics.median(r[0] for r in runs),
                        statistics.median(r[1] for r in runs),
                        ", ".join(f"{r[2]:.1f}" for r in runs),
                    )
                rows.append((title, mode, got))
    print(
        f"# start-up imports: `{args.ref}` against this checkout (median of {args.repeat}; {os.cpu_count()} CPUs)\n"
    )
    print(f"| import | pyc | {args.ref}: wall s (CPU s) | ours: wall s (CPU s) | ratio wall (CPU) | load |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for title, mode, got in rows:
        (bw, bc, bl), (ow, oc, ol) = got["base"], got["ours"]
        print(
            f"| {title} | {mode} | {bw:.2f} ({bc:.2f}) | {ow:.2f} ({oc:.2f}) | {bw / ow:.1f}x ({bc / oc:.1f}x) "
            f"| {bl}; {ol} |"
        )


if __name__ == "__main__":
    main()
