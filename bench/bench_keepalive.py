"""Second and later keep-alive requests on a multi-worker server: uvicorn's own `--workers 2` against
`arena serve --workers 2` (TCP_NODELAY on every accepted connection), same app, same client, same run.

Run ``python -m bench.bench_keepalive [--requests 60] [--port 8161]``. Each server gets a fresh SQLite file and
serves a static file over one keep-alive connection (http.client); the figure is the median and p90 of
requests 2..N, with the 1-minute load average beside it.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PATH = "/static/css/arena.css"


def _wait(port: int, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", PATH)
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"server on port {port} did not start")


def _timings(port: int, n: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    out = []
    for _ in range(n):
        t = time.perf_counter()
        conn.request("GET", PATH)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status
        out.append(time.perf_counter() - t)
    conn.close()
    return out[1:]  # the second request on


def run(cmd: list[str], port: int, env: dict[str, str], n: int) -> list[float]:
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(port)
        return _timings(port, n)
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--port", type=int, default=8161)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": f"sqlite:///{tmp / 'arena.db'}",
        "ARENA_MEDIA_DIR": str(tmp / "media"),
        "ARENA_SECRET_KEY": "bench",
        "ARENA_SCHEDULER_ENABLED": "false",
    }
    bin_dir = Path(sys.executable).parent
    plain = [str(bin_dir / "uvicorn"), "--factory", "arena.asgi:create", "--workers", "2",
             "--port", str(args.port), "--log-level", "warning"]  # fmt: skip
    ours = [str(bin_dir / "arena"), "serve", "--workers", "2", "--port", str(args.port + 1)]
    rows = []
    for name, cmd, port in (
        ("uvicorn --workers 2", plain, args.port),
        ("arena serve --workers 2", ours, args.port + 1),
    ):
        load = os.getloadavg()[0]
        t = run(cmd, port, env, args.requests)
        rows.append((name, statistics.median(t) * 1000, statistics.quantiles(t, n=10)[-1] * 1000, load))
    print("| server | median ms (requests 2..N) | p90 ms | load avg |")
    print("| --- | ---: | ---: | ---: |")
    for name, med, p90, load in rows:
        print(f"| {name} | {med:.1f} | {p90:.1f} | {load:.1f} |")
    print(f"\nratio baseline / ours (median): {rows[0][1] / rows[1][1]:.1f}x")


if __name__ == "__main__":
    main()
