"""The newcomer's first minute: seconds from starting `make run` on a fresh clone (dependencies already
installed) to the first 200 on `/`, and to the first matchup served. Goal: under 60 s for the page.

Clones this repository's HEAD into a temp folder and runs what `make run` runs there
(`ARENA_DEMO_MODE=true arena demo --serve`) with the already installed environment (the clone's code first on
PYTHONPATH), on a free loopback port, then polls. Prints the figures, the server's CPU seconds at that point
and the load average, so a figure from a busy machine can be read for what it is. Not a test.

    python bench/bench_cold_start.py [--timeout 600] [--port 8112]

With `--make-run` it runs the real `make run` in the clone instead, so the clone builds its own `.venv`: the
figures then include the install (the time `.venv/.run-stamp` appears) and the venv's size. `--pip-cache DIR`
keeps pip's and uv's caches there between runs (run twice: cold, then warm); without it each run gets an empty cache.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 60.0


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its children so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(x) for x in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def _size_mb(folder: Path) -> float:
    """Disk size of a folder tree in MB (files only, symlinks not followed)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--port", type=int, default=8112)
    parser.add_argument("--make-run", action="store_true", help="run `make run` (install included)")
    parser.add_argument("--pip-cache", type=Path, default=None, help="pip cache folder (default: empty)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-cold-") as tmp:
        clone = Path(tmp) / "arena"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        env = dict(os.environ)
        env.update(
            PYTHONPATH=str(clone),
            ARENA_DEMO_MODE="true",
            ARENA_PORT=str(args.port),
            ARENA_DATABASE_URL=f"sqlite:///{clone}/var/arena.db",
            ARENA_MEDIA_DIR=str(clone / "var" / "media"),
            ARENA_MODELS_FILE=str(clone / "models.toml"),
            ARENA_LOG_LEVEL="warning",
        )
        command = [sys.executable, "-c", "from arena.cli.main import main; main()", "demo", "--serve"]
        if args.make_run:
            del env["PYTHONPATH"]
            cache = args.pip_cache or Path(tmp) / "pip-cache"
            env["PIP_CACHE_DIR"] = str(cache)
            env["UV_CACHE_DIR"] = str(cache / "uv")  # `make run` installs with uv where it can
            command = ["make", "run"]
        stamp = clone / ".venv" / ".run-stamp"
        installed: float | None = None
        load = os.getloadavg()[0]
        log = (Path(tmp) / "server.log").open("w")
        started = time.perf_counter()
        server = subprocess.Popen(
            command,
            cwd=clone,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
        page = matchup = None
        cpu_at_page = 0.0
        base = f"http://127.0.0.1:{args.port}"
        try:
            with httpx.Client(base_url=base, timeout=5) as client:
                while time.perf_counter() - started < args.timeout and matchup is None:
                    if server.poll() is not None:
                        tail = (Path(tmp) / "server.log").read_text().strip().splitlines()[-1:]
                        raise SystemExit(f"error: the server exited ({server.returncode}): {' '.join(tail)}")
                    if installed is None and stamp.exists():
                        installed = time.perf_counter() - started
                    try:
                        if page is None and client.get("/").status_code == 200:
                            page = time.perf_counter() - started
                            cpu_at_page = _cpu_seconds(server.pid)
                        if page is not None:
                            answer = client.post("/api/v1/matchups", json={"modality": "text_to_image"})
                            if answer.status_code == 200:
                                matchup = time.perf_counter() - started
                    except httpx.TransportError:
                        pass
                    time.sleep(0.25)
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=30)
            log.close()
            venv_mb = _size_mb(clone / ".venv") if args.make_run else 0.0
    if page is None:
        raise SystemExit(f"error: no 200 on / within {args.timeout:.0f} s")
    print("| measure | value |")
    print("| --- | ---: |")
    print(
        f"| first 200 on `/` | {page:.1f} s (goal < {GOAL_S:.0f} s: {'met' if page < GOAL_S else 'NOT met'}) |"
    )
    print(
        f"| first matchup served | {matchup:.1f} s |"
        if matchup
        else "| first matchup served | not within timeout |"
    )
    if args.make_run:
        print(f"| `make run` install (until .venv/.run-stamp) | {installed or 0:.1f} s |")
        print(f"| first 200 after the install | {page - (installed or 0):.1f} s |")
        print(f"| .venv size | {venv_mb:.0f} MB |")
    print(f"| server CPU seconds at the first 200 | {cpu_at_page:.1f} s |")
    print(f"| load average (1 min) when started, on {os.cpu_count()} cores | {load:.1f} |")
    print(f"| ratio goal / first 200 | {GOAL_S / page:.2f}x |")


if __name__ == "__main__":
    main()
