"""Capacity of the deployment shapes on this machine, PostgreSQL and Redis on 127.0.0.1, same voters, same run:

  1 process:   `arena serve` without Redis (the baseline the ratios are against)
  1 node x2:   `arena serve --workers 2` with ARENA_REDIS_URL (shape 2 of docs/deploy.md on one 2-core box)
  2 nodes:     two `arena serve` processes on two ports, ARENA_REDIS_URL, voters alternating between them
               (the matchup from one node, the vote on the other: shape 3 squeezed onto one machine)

Voters are a closed loop (tests/support/nodes.py `PairVoter`): each pair a fresh session, the matchup, both
images (unless `--no-images`), the proof of work (`--pow-bits`, 8 by default), the vote. Figures per shape:
acknowledged pairs per second over the window, p50 / p99 of a whole pair and of the vote request alone, server
CPU milliseconds per pair (every server process and its workers, from /proc: this figure does not depend on
what else runs), and the 1-minute load average at the start and end of the window. The load generator,
PostgreSQL and Redis share the same cores as the servers, so absolute figures are lower than on a machine
with the servers alone; compare shapes within a run. Afterwards every acknowledged vote must be stored exactly once.

    python -m bench.bench_nodes [--voters 16] [--seconds 30] [--pow-bits 8]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_faults import MODELS, prepare  # noqa: E402
from tests.support.nodes import Node, PairVoter, children, free_port, stored_once  # noqa: E402
from tests.support.pg_schemas import create_schema, drop_schemas, schema_url  # noqa: E402

REDIS = os.environ.get("ARENA_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the processes (and their reaped children) so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
    return total


def pct(values: list[float], q: float) -> float:
    """The q-quantile in milliseconds."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def measure(
    name: str, nodes: list[Node], args: argparse.Namespace, acknowledged: list[str]
) -> dict[str, object]:
    """Warm up, then run the voters for the window; the shape's figures (its acknowledged votes are added to
    `acknowledged`)."""
    urls = [n.url for n in nodes]
    voters = [PairVoter(urls, offset=i, fetch_images=not args.no_images) for i in range(args.voters)]
    for v in voters:
        v.start()
    time.sleep(args.warmup)
    servers = [n.pid for n in nodes] + [c for n in nodes for c in children(n.pid)]
    load_before = os.getloadavg()[0]
    cpu_before = cpu_seconds(servers)
    marks = [len(v.tally.pair_seconds) for v in voters]
    began = time.monotonic()
    time.sleep(args.seconds)
    took = time.monotonic() - began
    cpu = cpu_seconds(servers) - cpu_before
    load_after = os.getloadavg()[0]
    pairs = [s for v, m in zip(voters, marks, strict=True) for s in v.tally.pair_seconds[m:]]
    votes = [s for v, m in zip(voters, marks, strict=True) for s in v.tally.vote_seconds[m:]]
    for v in voters:
        v.stop.set()
    for v in voters:
        v.join(timeout=60)
    acknowledged.extend(m for v in voters for m in v.tally.acknowledged)
    other = {k: n for v in voters for k, n in v.tally.answers.items() if k not in ("matchup 200", "vote 200")}
    return {
        "shape": name,
        "pairs/s": len(pairs) / took,
        "pair p50": pct(pairs, 0.5),
        "pair p99": pct(pairs, 0.99),
        "vote p50": pct(votes, 0.5),
        "vote p99": pct(votes, 0.99),
        "cpu ms/pair": 1000 * cpu / max(1, len(pairs)),
        "load": f"{load_before:.1f} -> {load_after:.1f}",
        "other answers": other,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--voters", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--pow-bits", type=int, default=8)
    parser.add_argument("--no-images", action="store_true", help="voters skip the two image requests")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-nodes-"))
    schema = create_schema("bench_")
    database_url = schema_url(schema)
    (work / "models.toml").write_text(MODELS, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ARENA_DATABASE_URL": database_url,
        "ARENA_MEDIA_DIR": str(work / "media"),
        "ARENA_MODELS_FILE": str(work / "models.toml"),
        "ARENA_SECRET_KEY": uuid.uuid4().hex,
        "ARENA_SCHEDULER_ENABLED": "false",
        "ARENA_MIN_VOTE_SECONDS": "0",
        "ARENA_SESSION_VOTES_PER_MINUTE": "100000",
        "ARENA_ADDRESS_VOTES_PER_MINUTE": "100000",
        "ARENA_MAX_REQUESTS_PER_ADDRESS": "100000",  # every voter here comes from 127.0.0.1
        "ARENA_POW_DIFFICULTY_BITS": str(args.pow_bits),
        "ARENA_LOG_LEVEL": "warning",
    }
    rows = []
    acknowledged: list[str] = []
    try:
        prepare(env)
        shapes = [
            ("1 process, no Redis", [[]], {}),
            ("1 node, --workers 2, Redis", [["--workers", "2"]], {"ARENA_REDIS_URL": REDIS}),
            ("2 nodes, Redis", [[], []], {"ARENA_REDIS_URL": REDIS}),
        ]
        for name, node_args, extra in shapes:
            nodes = []
            try:
                for i, cli in enumerate(node_args):
                    port = free_port()
                    node_env = {**env, **extra, "ARENA_PORT": str(port)}
                    nodes.append(Node.start(node_env, work / f"{len(rows)}-{i}.log", *cli))
                rows.append(measure(name, nodes, args, acknowledged))
            finally:
                for n in nodes:
                    n.stop()
            print(f"  {rows[-1]['shape']}: done ({rows[-1]['pairs/s']:.1f} pairs/s)", flush=True)
        check = stored_once(database_url, acknowledged)
    finally:
        drop_schemas([schema])
    print(
        f"\n{args.voters} voters, {args.seconds:.0f} s window after {args.warmup:.0f} s warm-up, "
        f"PoW {args.pow_bits} bits, images {'not fetched' if args.no_images else 'fetched'}; "
        f"{os.cpu_count()} CPUs"
    )
    print(
        "| shape | pairs/s | ratio | pair p50 / p99 ms | vote p50 / p99 ms | server CPU ms/pair | load avg |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    base = float(rows[0]["pairs/s"])  # type: ignore[arg-type]
    for r in rows:
        print(
            f"| {r['shape']} | {r['pairs/s']:.1f} | {float(r['pairs/s']) / base:.2f}x "  # type: ignore[arg-type]
            f"| {r['pair p50']:.0f} / {r['pair p99']:.0f} | {r['vote p50']:.0f} / {r['vote p99']:.0f} "
            f"| {r['cpu ms/pair']:.1f} | {r['load']} |"
        )
    for r in rows:
        print(f"{r['shape']}: answers other than 200: {r['other answers'] or 'none'}")
    print(f"votes, all shapes: {check}")
    if check["lost"] or check["stored more than once"]:
        raise SystemExit("acknowledged votes lost or stored twice")


if __name__ == "__main__":
    main()
