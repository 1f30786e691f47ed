"""Slow clients against `arena serve` as a real process, loopback only (port 8130 by default).

The attack of issue 24: 70 connections each sending a 4,000-byte body at 1 byte/s (`--mode body`), or their
request headers at 1 byte/s (`--mode headers`, slowloris). Each attacker keeps its connection going for the
whole run: when the server answers or closes it, it opens a new one. Meanwhile one normal client asks for the
arena page and a matchup, one after another (10 s timeout each). Reported: the normal client's success rate
and latency before and during the attack, and what the attackers' connections got.

The attackers bind source address 127.0.0.2 (or, with `--addresses N`, N addresses 127.0.1.1 ... so the
per-address cap does not apply) and the normal client 127.0.0.3, so the server sees distinct peers (as
distinct machines would) without trusting any proxy header. `--code DIR` runs the server from another
checkout (for example the code before the fix, unpacked with `git archive <commit> | tar -x -C DIR`).

    python bench/bench_slowloris.py --mode body --seconds 30
    python bench/bench_slowloris.py --mode headers --seconds 30 --code /tmp/old
"""

from __future__ import annotations

import argparse
import collections
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_faults import MODELS, environment  # noqa: E402

ATTACKER, NORMAL = "127.0.0.2", "127.0.0.3"


class Attacker(threading.Thread):
    """Keeps one slow connection open until `stop`: a new one each time the server answers or closes."""

    def __init__(
        self,
        port: int,
        mode: str,
        body_bytes: int,
        rate: float,
        stop: threading.Event,
        source: str = ATTACKER,
    ) -> None:
        super().__init__(daemon=True)
        self.port, self.mode, self.body_bytes, self.period, self.stop = port, mode, body_bytes, 1 / rate, stop
        self.source = source
        self.outcomes: collections.Counter[str] = collections.Counter()
        self.held: dict[str, list[float]] = {}  # outcome -> seconds each connection with it stayed open

    def payload(self) -> tuple[bytes, bytes]:
        """(sent at once, sent a byte per period)."""
        if self.mode == "body":
            head = (
                b"POST /api/v1/matchups HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % self.body_bytes
            )
            return head, b" " * self.body_bytes
        return b"GET / HTTP/1.1\r\nHost: arena\r\n", b"X-Padding: " + b"x" * self.body_bytes + b"\r\n\r\n"

    def run(self) -> None:
        while not self.stop.is_set():
            opened = time.monotonic()
            outcome = self.one()
            self.outcomes[outcome] += 1
            self.held.setdefault(outcome, []).append(time.monotonic() - opened)
            self.stop.wait(self.period)  # a slow client: at most one new connection per byte period

    def one(self) -> str:
        head, drip = self.payload()
        try:
            with socket.socket() as sock:
                sock.bind((self.source, 0))
                sock.settimeout(self.period)
                sock.connect(("127.0.0.1", self.port))
                sock.sendall(head)
                for byte in drip:
                    if self.stop.is_set():
                        return "still open at the end"
                    try:
                        got = sock.recv(4096)
                    except TimeoutError:
                        sock.sendall(bytes([byte]))
                        continue
                    return got[:12].decode("latin-1").strip() if got else "closed"
                return "sent everything"
        except (ConnectionError, OSError) as exc:
            time.sleep(0.1)
            return type(exc).__name__


# The CLI of the checkout it is run in (`-c` puts the working directory first on sys.path).
ARENA = [sys.executable, "-c", "from arena.entry import main; main()"]


def prepare(code: Path, env: dict[str, str]) -> None:
    """`arena init` and outputs of three sandbox models for the same prompts, so matchups exist."""
    run = {"env": env, "cwd": code, "check": True, "capture_output": True}
    subprocess.run([*ARENA, "init"], **run)  # type: ignore[call-overload]
    for i in range(MODELS.count("[[models]]")):
        generate = [*ARENA, "generate", "--model", f"bench-{i}", "--limit", "8"]
        subprocess.run(generate, **run)  # type: ignore[call-overload]


def start(code: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    """`arena serve` from `code`, once its /healthz answers."""
    proc = subprocess.Popen(
        [*ARENA, "serve"], env=env, cwd=code, stdout=log.open("ab"), stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{env['ARENA_PORT']}"
    for _ in range(600):
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("server did not start")


def normal_client(
    url: str, stop: threading.Event, phase: list[str], log: list[tuple[str, str, int, float]]
) -> None:
    """Page and matchup, one after another, until `stop`; logs (phase, what, status or 0, seconds)."""
    transport = httpx.HTTPTransport(local_address=NORMAL)
    with httpx.Client(base_url=url, timeout=10, transport=transport) as client:
        while not stop.is_set():
            for what in ("page", "matchup"):
                started = time.monotonic()
                try:
                    if what == "page":
                        status = client.get("/").status_code
                    else:
                        status = client.post(
                            "/api/v1/matchups", json={"modality": "text_to_image"}
                        ).status_code
                except httpx.TransportError:
                    status = 0
                log.append((phase[0], what, status, time.monotonic() - started))
            time.sleep(0.2)


def summary(log: list[tuple[str, str, int, float]], phase: str) -> str:
    rows = [r for r in log if r[0] == phase]
    if not rows:
        return f"{phase}: no requests"
    ok = [r for r in rows if r[2] == 200]
    times = sorted(r[3] * 1000 for r in rows)
    statuses = collections.Counter(str(r[2] or "error") for r in rows)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    return (
        f"{phase}: {len(ok)}/{len(rows)} normal requests 200 ({100 * len(ok) / len(rows):.0f}%), "
        f"latency p50 {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, max {times[-1]:.0f} ms; "
        f"statuses {dict(statuses)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=["body", "headers"], default="body")
    parser.add_argument("--connections", type=int, default=70)
    parser.add_argument("--body-bytes", type=int, default=4000)
    parser.add_argument("--rate", type=float, default=1.0, help="bytes per second per attacking connection")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the attack lasts")
    parser.add_argument("--baseline-seconds", type=float, default=5.0)
    parser.add_argument(
        "--addresses",
        type=int,
        default=1,
        help="spread the attackers over this many source addresses (127.0.1.1, ...) instead of 127.0.0.2 alone",
    )
    parser.add_argument("--port", type=int, default=8130)
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout the server runs from")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = environment(work, f"sqlite:///{work / 'arena.db'}", args.port)
        code = args.code.resolve()
        env["PYTHONPATH"] = str(code)
        prepare(code, env)
        server = start(code, env, work / "server.log")
        url = f"http://127.0.0.1:{args.port}"
        try:
            stop_normal, stop_attack = threading.Event(), threading.Event()
            phase, log = ["before the attack"], []
            normal = threading.Thread(target=normal_client, args=(url, stop_normal, phase, log), daemon=True)
            normal.start()
            time.sleep(args.baseline_seconds)
            sources = (
                [ATTACKER] if args.addresses == 1 else [f"127.0.1.{i + 1}" for i in range(args.addresses)]
            )
            attackers = [
                Attacker(
                    args.port, args.mode, args.body_bytes, args.rate, stop_attack, sources[i % len(sources)]
                )
                for i in range(args.connections)
            ]
            phase[0] = "during the attack"
            for attacker in attackers:
                attacker.start()
            time.sleep(args.seconds)
            stop_normal.set()
            normal.join(15)
            stop_attack.set()
            for attacker in attackers:
                attacker.join(5)
        finally:
            server.terminate()
            server.wait(15)
    outcomes: collections.Counter[str] = collections.Counter()
    held: dict[str, list[float]] = {}
    for attacker in attackers:
        outcomes.update(attacker.outcomes)
        for outcome, seconds in attacker.held.items():
            held.setdefault(outcome, []).extend(seconds)
    print(
        f"server code: {args.code}; {args.connections} attacking connections ({args.mode}, "
        f"{args.body_bytes} bytes at {args.rate:g} byte/s) from {args.addresses} address(es) for {args.seconds:g} s"
    )
    print(summary(log, "before the attack"))
    print(summary(log, "during the attack"))
    print("attacking connections, by outcome (count, median seconds open):")
    for outcome, count in outcomes.most_common():
        print(f"  {outcome}: {count}, {statistics.median(held[outcome]):.1f} s")


if __name__ == "__main__":
    main()
