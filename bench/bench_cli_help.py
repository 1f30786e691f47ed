"""Benchmark the CPU time of `--help` for every command, against `arena ratings fit --help` in the same run.

Run ``python -m bench.bench_cli_help`` (``--repeat N``, default 3: the median of N fresh processes per command
line). Each command line runs as its own process through the console script's entry point
(``arena.entry:main``); the time is the CPU (user + system) of that child process, read from
``resource.getrusage(RUSAGE_CHILDREN)``, so other sessions' load shows up less than in wall time.

It prints a markdown table: CPU seconds per command line and the ratio to ``arena ratings fit --help`` (the
short path that never loads the application), with the machine's load average, and the slowest line. Issue 28
asks for every command's ``--help`` under 0.5 s; tests assert on the modules loaded, never on time
(tests/unit/test_cli_startup.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUN = "import sys; from arena.entry import main; sys.argv = ['arena', *sys.argv[1:]]; main()"
REFERENCE = ("ratings", "fit", "--help")


def command_lines() -> list[tuple[str, ...]]:
    """`--version` and `--help` of the root, every group and every command."""
    import typer.main

    from arena.cli.main import app

    lines: list[tuple[str, ...]] = [("--version",)]

    def walk(command: Any, words: tuple[str, ...]) -> None:  # a Click group or command
        lines.append((*words, "--help"))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*words, name))

    walk(typer.main.get_command(app), ())
    return lines


def cpu_seconds(args: tuple[str, ...]) -> float:
    """CPU time of one fresh process answering `arena ARGS`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    subprocess.run([sys.executable, "-c", RUN, *args], check=True, capture_output=True, env=env, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per command line (median)")
    opts = parser.parse_args()
    load = os.getloadavg()[0]
    reference = statistics.median(cpu_seconds(REFERENCE) for _ in range(opts.repeat))
    rows = [
        (line, statistics.median(cpu_seconds(line) for _ in range(opts.repeat))) for line in command_lines()
    ]
    print(f"# `--help` CPU time per command (median of {opts.repeat}; load average {load:.2f})\n")
    print(f"reference `arena {' '.join(REFERENCE)}`: {reference:.3f} s CPU\n")
    print("| command line | CPU s | x reference |")
    print("| --- | ---: | ---: |")
    for line, seconds in rows:
        print(f"| `arena {' '.join(line)}` | {seconds:.3f} | {seconds / reference:.2f} |")
    slowest = max(rows, key=lambda row: row[1])
    print(
        f"\nslowest: `arena {' '.join(slowest[0])}` {slowest[1]:.3f} s ({slowest[1] / reference:.2f}x reference)"
    )


if __name__ == "__main__":
    main()
