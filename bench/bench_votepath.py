"""Vote-path throughput and latency: `arena serve` against a minimal async baseline, same uvicorn, same load
generator, same run (issue 16's goal: at least 0.7x the baseline's pairs/s at 16 and 64 voters, p99 < 100 ms at
64, on SQLite and PostgreSQL, every acknowledged vote stored exactly once).

The unit is a *pair*, two requests on one keep-alive connection:
  arena:     POST /api/v1/matchups (real voter session, cookie kept) -> POST /api/v1/votes (with the solved nonce)
  baseline:  POST /base/matchups (inserts one row)                   -> POST /base/votes (inserts one row)
Both answer small JSON objects; the baseline (bench/votepath_baseline.py) is a FastAPI app with async routes
that insert one row each with the raw async driver (sqlite3 on one thread, autocommit; psycopg AsyncConnection,
autocommit), under the same uvicorn protocol class as `arena serve`. So the ratio says what the arena's work
per pair (session, rate limits, matchmaking, the matchup row, the vote and its verdicts in one transaction,
logging, metrics) costs over the framework + driver floor.

Proof of work: every voter solves each matchup's challenge between the two requests, in both runs (the
baseline hands out a random challenge too), outside both timed requests. Its CPU time is printed. The
difficulty is ARENA_POW_DIFFICULTY_BITS (`--pow-bits`, 8 by default instead of the production 12): the
server's check is one SHA-256 whatever the difficulty, while a 12-bit solve costs the client ~3 ms of Python per
pair, which on a shared 2-core machine would be taken from the server under test.

Images: by default voters do not fetch the matchup images, so the vote is stored with the `image_fetch` verdict
"filtered" and answered `counted: false` without the reveal (same statements; the reveal is a dict built from
the in-memory pool). `--images` fetches both images between the two requests (outside the timed pair, but the
server's work for them, including the 25 ms answer quantum, counts against its throughput).

Figures: pairs/s over the measured window (after a warm-up), p50 / p99 per request (matchup and vote requests
pooled, each timed alone), server CPU milliseconds per pair (user + system of the uvicorn process(es); it
depends far less on how busy the machine is than pairs/s), on PostgreSQL also the database's CPU per pair (the
server processes of this server's connections, found by application_name), client CPU share, and the 1-minute
load average at the start and end of each window. Voters are a
closed loop, so mean latency = voters / requests per second (Little's law): p99 < 100 ms at 64 voters needs more
than 640 requests/s. Then the count check: every acknowledged vote (200) is in the votes table exactly once,
no vote is stored without an acknowledgement, and the same for the baseline's rows.

    python -m bench.bench_votepath [--backend sqlite postgres] [--voters 16 64] [--seconds 15] [--workers 1]
        [--rounds N]          # repeat the alternation of servers
        [--compare-root DIR]  # also `arena serve` of another checkout (before / after a change, same run)
        [--floor]             # also the arena's app with the service stubbed, the service alone, and on SQLite
                              # its SQL alone through the raw driver (the bound that SQL sets on the ratio)
        [--profile DIR]       # py-spy (raw, GIL-holding samples) of each arena server in each window
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import httpx  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402

from bench.votepath_baseline import create_schema  # noqa: E402
from bench.votepath_load import Outcome, voter  # noqa: E402
from tests.support import pg_schemas  # noqa: E402
from tests.support.pg_schemas import PG_URL  # noqa: E402

# The CLI of the checkout in PYTHONPATH, run with that checkout as working directory (`python -c` puts the
# working directory first on sys.path, before PYTHONPATH).
ARENA = [sys.executable, "-c", "from arena.entry import main; main()"]
ARENA_PATHS = ("/api/v1/matchups", "/api/v1/votes")
BASE_PATHS = ("/base/matchups", "/base/votes")


def models_file(n: int) -> str:
    return "".join(
        f'[[models]]\nslug = "bench-{i}"\ndisplay_name = "Bench {i}"\norganization = "Bench"\n'
        f'modality = "text_to_image"\nadapter = "sandbox"\n{"anchor = true" if i == 0 else ""}\n\n'
        for i in range(n)
    )


def arena_env(work: Path, database_url: str, port: int, pow_bits: int, root: Path = ROOT) -> dict[str, str]:
    """`arena serve` as deployed (JSON access log at info, metrics, rate limiters), with limits raised so 64
    voters on one address are not refused, and no minimum vote time (the bench votes at once)."""
    return {
        **os.environ,
        "PYTHONPATH": str(root),
        "ARENA_DATABASE_URL": database_url,
        "ARENA_MEDIA_DIR": str(work / "media"),
        "ARENA_MODELS_FILE": str(work / "models.toml"),
        "ARENA_SECRET_KEY": "bench-votepath",
        "ARENA_PORT": str(port),
        "ARENA_HOST": "127.0.0.1",
        "ARENA_SCHEDULER_ENABLED": "false",
        "ARENA_MIN_VOTE_SECONDS": "0",
        "ARENA_SESSION_VOTES_PER_MINUTE": "1000000",
        "ARENA_ADDRESS_VOTES_PER_MINUTE": "1000000",
        "ARENA_POW_DIFFICULTY_BITS": str(pow_bits),
        "ARENA_MAX_CONCURRENT_REQUESTS": "256",
        "ARENA_MAX_REQUESTS_PER_ADDRESS": "1000000",  # every voter here comes from 127.0.0.1
        "ARENA_BOOTSTRAP_ROUNDS": "100",
    }


def prepare_arena(env: dict[str, str], n_models: int, n_prompts: int) -> None:
    """Schema and starter pool, sandbox outputs for the same prompts from every model, 300 simulated votes and
    a snapshot (so matchmaking has ratings and a vote plan, as on a running arena)."""

    def run(*args: str, **extra: str) -> None:
        subprocess.run(
            [*ARENA, *args], env={**env, **extra}, cwd=env["PYTHONPATH"], check=True, capture_output=True
        )

    run("init")
    for i in range(n_models):
        run("generate", "--model", f"bench-{i}", "--limit", str(n_prompts))
    run("simulate", "--votes", "300", "--voters", "30")
    snapshot = subprocess.run(
        [*ARENA, "ratings", "snapshot", "--modality", "text_to_image"],
        env={**env, "ARENA_DEMO_MODE": "true"},
        cwd=env["PYTHONPATH"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    if "text_to_image/overall" not in snapshot:
        raise SystemExit(f"the snapshot has no overall board: {snapshot}")
    if not env["ARENA_DATABASE_URL"].startswith("sqlite"):
        # Planner statistics, as autovacuum keeps them on a running database: without them the fresh schema's
        # planner takes the 300-row matchups table for empty and sorts every matchup of the modality per serve.
        engine = create_engine(env["ARENA_DATABASE_URL"], isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text("ANALYZE matchups, votes, vote_verdicts, outputs, prompts"))  # this schema only
        engine.dispose()


def wait_ready(port: int, path: str, method: str = "GET", timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            r = httpx.request(method, f"http://127.0.0.1:{port}{path}", json={}, timeout=5)
            if r.status_code < 500:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"server on port {port} did not start")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of `pid` and its descendants (uvicorn workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    user = system = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            user += int(fields[11]) / tick
            system += int(fields[12]) / tick
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return user, system


@dataclass
class Window:
    """One measured window of one server at one voter count."""

    name: str
    voters: int
    seconds: float
    pairs: int
    latencies: list[float]
    errors: dict[str, int]
    server_cpu: float
    server_sys: float
    database_cpu: float | None
    client_cpu: float
    solve: float
    load: tuple[float, float]
    round: int = 0

    @property
    def rate(self) -> float:
        return self.pairs / self.seconds

    @property
    def db_per_pair(self) -> str:
        """PostgreSQL server CPU per pair (milliseconds), or "in process" for SQLite."""
        if self.database_cpu is None:
            return "in process"
        return f"{self.database_cpu * 1000 / max(1, self.pairs):.2f} ms/pair"

    def pct(self, q: float) -> float:
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000 if xs else float("nan")


def database_cpu(database_url: str) -> float | None:
    """PostgreSQL: CPU seconds of the server processes serving `database_url`'s connections (its schema is
    their application_name); None for SQLite, whose work is inside the server process."""
    if "application_name=" not in database_url:
        return None
    name = database_url.rsplit("application_name=", 1)[1]
    admin = create_engine(PG_URL)
    with admin.connect() as conn:
        pids = conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"), {"name": name}
        ).scalars()
        total = sum(sum(cpu_seconds(pid)) for pid in pids)
    admin.dispose()
    return total


async def measure(
    name: str, port: int, pid: int, paths: tuple[str, str], args: argparse.Namespace, n: int, total: Outcome,
    profile: Path | None, database_url: str,
) -> Window:  # fmt: skip
    """Warm up, then measure one window of `n` closed-loop voters; the outcome is added to `total`."""
    outcome = Outcome()
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(
            voter("127.0.0.1", port, paths, stop, outcome, rotate=args.rotate, images=args.images, think=0.0)
        )
        for _ in range(n)
    ]
    await asyncio.sleep(args.warmup)
    spy = None
    if profile is not None:
        spy_cmd = [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(pid), "--rate", "200",
                   "--duration", str(int(args.seconds)), "--format", "raw", "--gil", "--nonblocking",
                   "-o", str(profile)]  # fmt: skip
        spy = subprocess.Popen(spy_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    began, load0 = time.perf_counter(), os.getloadavg()[0]
    cpu0, client0, solve0 = cpu_seconds(pid), time.process_time(), outcome.solve_seconds
    db0 = database_cpu(database_url)
    await asyncio.sleep(args.seconds)
    ended, load1 = time.perf_counter(), os.getloadavg()[0]
    cpu1, client1, solve1 = cpu_seconds(pid), time.process_time(), outcome.solve_seconds
    db1 = database_cpu(database_url)
    stop.set()
    await asyncio.gather(*tasks)
    if spy is not None:
        spy.wait()
    inside = [s for s in outcome.samples if began <= s.started and s.ended <= ended and s.kind != "image"]
    errors: dict[str, int] = {}
    for s in outcome.samples:
        if s.status != 200:
            errors[f"{s.kind} {s.status}"] = errors.get(f"{s.kind} {s.status}", 0) + 1
    if outcome.errors:
        errors["transport"] = outcome.errors
    total.acknowledged_matchups += outcome.acknowledged_matchups
    total.acknowledged_votes += outcome.acknowledged_votes
    return Window(
        name=name,
        voters=n,
        seconds=ended - began,
        pairs=sum(1 for s in inside if s.kind == "vote" and s.status == 200),
        latencies=[s.ended - s.started for s in inside],
        errors=errors,
        server_cpu=sum(cpu1) - sum(cpu0),
        server_sys=cpu1[1] - cpu0[1],
        database_cpu=None if db0 is None or db1 is None else db1 - db0,
        client_cpu=client1 - client0,
        solve=solve1 - solve0,
        load=(load0, load1),
    )


def print_sql_bound(env: dict[str, str], windows: list[Window]) -> None:
    """SQLite: the vote path's own SQL through the raw driver (bench/votepath_floor.py `sql`), and the ratio a
    server would reach whose only cost over the baseline were that SQL (no Python for sessions, limits,
    matchmaking, logs or metrics): baseline CPU / (baseline CPU - baseline SQL + arena SQL), per voter count."""
    out = subprocess.run(
        [sys.executable, "-m", "bench.votepath_floor", "sql", "--pairs", "2000"],
        env=env, cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    arena_sql, base_sql = float(out[0]), float(out[1])
    print(
        f"vote path's SQL alone through the raw sqlite3 driver: {arena_sql:.3f} ms CPU per pair "
        f"(the baseline's two inserts: {base_sql:.3f})"
    )
    for n in sorted({w.voters for w in windows}):
        base = [w for w in windows if w.name == "baseline" and w.voters == n and w.pairs]
        if base:
            cpu = sum(w.server_cpu for w in base) * 1000 / sum(w.pairs for w in base)
            bound = cpu / (cpu - base_sql + arena_sql)
            print(
                f"  {n} voters: baseline {cpu:.2f} ms/pair -> at most {bound:.2f}x with that SQL and no other work"
            )


def count_check(name: str, database_url: str, total: Outcome, *, arena: bool) -> str:
    """Acknowledged answers against stored rows: lost, stored twice, stored without an acknowledgement."""
    engine = create_engine(database_url)
    with engine.connect() as conn:
        if arena:
            votes = dict(
                conn.execute(
                    text("SELECT matchup_id, count(*) FROM votes WHERE source = 'human' GROUP BY matchup_id")
                ).all()
            )
            matchups = dict(conn.execute(text("SELECT id, 1 FROM matchups WHERE source = 'human'")).all())
        else:
            votes = dict(
                conn.execute(
                    text("SELECT key, count(*) FROM baseline_rows WHERE kind = 'v' GROUP BY key")
                ).all()
            )
            matchups = dict(
                conn.execute(
                    text("SELECT key, count(*) FROM baseline_rows WHERE kind = 'm' GROUP BY key")
                ).all()
            )
    engine.dispose()  # fmt: skip
    acked = set(total.acknowledged_votes)
    served = set(total.acknowledged_matchups)
    lost = sum(1 for m in acked if votes.get(m, 0) == 0)
    twice = sum(1 for c in votes.values() if c > 1)
    unacked = sum(1 for m in votes if m not in acked)
    m_lost = sum(1 for m in served if m not in matchups)
    m_twice = sum(1 for c in matchups.values() if c > 1)
    ok = lost == twice == unacked == m_lost == m_twice == 0 and len(acked) == len(total.acknowledged_votes)
    return (
        f"{name}: votes acknowledged {len(total.acknowledged_votes)}, stored {sum(votes.values())}, lost {lost}, "
        f"stored more than once {twice}, stored without acknowledgement {unacked}; matchups acknowledged "
        f"{len(total.acknowledged_matchups)}, stored {len(matchups)}, lost {m_lost}, twice {m_twice} -> "
        f"{'OK' if ok else 'MISMATCH'}"
    )


def database(backend: str, work: Path, name: str, schemas: list[str]) -> str:
    """A fresh database for one server: an SQLite file, or a new PostgreSQL schema (noted in `schemas`)."""
    if backend == "sqlite":
        return f"sqlite:///{work / name / 'db.sqlite'}"
    schema = pg_schemas.create_schema("bench_vp_")
    schemas.append(schema)
    return f"{pg_schemas.schema_url(schema)}&application_name={schema}"


def print_windows(backend: str, workers: int, windows: list[Window]) -> None:
    print(f"\n{backend}, {workers} worker(s) per server:")
    print(
        "| server | voters | pairs/s | ratio | p50 ms | p99 ms | server CPU ms/pair | database CPU "
        "| client CPU | load avg |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    base = {(w.voters, w.round): w for w in windows if w.name == "baseline"}
    for w in windows:
        b = base.get((w.voters, w.round))
        ratio = f"{w.rate / b.rate:.2f}x" if b is not None and w is not b and b.rate else ""
        print(
            f"| {w.name} | {w.voters} | {w.rate:.0f} | {ratio} | {w.pct(0.50):.1f} | {w.pct(0.99):.1f} | "
            f"{w.server_cpu * 1000 / max(1, w.pairs):.2f} | {w.db_per_pair} | {w.client_cpu / w.seconds:.0%} "
            f"(PoW {w.solve / w.seconds:.0%}) | {w.load[0]:.1f}-{w.load[1]:.1f} |"
        )
    for w in windows:
        if w.errors:
            print(f"  {w.name}, {w.voters} voters: answers other than 200: {w.errors}")


@dataclass
class Server:
    """One server under test: its name, checkout, database, port and process."""

    name: str
    root: Path
    url: str
    port: int
    proc: subprocess.Popen | None = None
    total: Outcome = field(default_factory=Outcome)


def prepare_world(backend: str, server: Server, args: argparse.Namespace, work: Path) -> dict[str, str]:
    """The server's environment, after preparing its world (or copying a cached SQLite one)."""
    folder = work / server.name
    folder.mkdir()
    (folder / "models.toml").write_text(models_file(args.models), encoding="utf-8")
    env = arena_env(folder, server.url, server.port, args.pow_bits, server.root)
    cached = args.world / f"{args.models}x{args.prompts}" if args.world and backend == "sqlite" else None
    if cached is not None and (cached / "db.sqlite").exists():  # a world prepared by an earlier run
        shutil.copy(cached / "db.sqlite", folder / "db.sqlite")
        shutil.copytree(cached / "media", folder / "media")
    else:
        prepare_arena(env, args.models, args.prompts)
        if cached is not None:
            cached.mkdir(parents=True, exist_ok=True)
            shutil.copy(folder / "db.sqlite", cached / "db.sqlite")
            shutil.copytree(folder / "media", cached / "media", dirs_exist_ok=True)
    return env


def run_backend(backend: str, args: argparse.Namespace, work: Path) -> None:
    work = work / backend
    work.mkdir()
    schemas: list[str] = []
    servers = [Server("baseline", ROOT, database(backend, work, "baseline", schemas), args.port + 1)]
    servers.append(Server("arena", ROOT, database(backend, work, "arena", schemas), args.port))
    if args.compare_root:
        servers.append(
            Server(
                "arena@compare",
                args.compare_root,
                database(backend, work, "arena@compare", schemas),
                args.port + 2,
            )
        )
    try:
        began = time.monotonic()
        (work / "baseline").mkdir()
        create_schema(servers[0].url)
        envs = {s.name: prepare_world(backend, s, args, work) for s in servers[1:]}
        print(f"{backend}: worlds prepared in {time.monotonic() - began:.0f} s", flush=True)
        base = servers[0]
        base.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.votepath_baseline", "--database-url", base.url, "--port", str(base.port),
             "--workers", str(args.workers), "--difficulty", str(args.pow_bits)],
            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
        )  # fmt: skip
        for server in servers[1:]:
            log = open(work / server.name / "serve.log", "ab")  # noqa: SIM115
            server.proc = subprocess.Popen(
                [*ARENA, "serve", "--workers", str(args.workers)],
                env=envs[server.name],
                cwd=server.root,  # `python -c` puts the working directory first on sys.path
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            wait_ready(server.port, "/healthz")
        if args.floor:  # the arena's app with the service stubbed, on the arena's (untouched) database
            stub = Server("arena, service stubbed", ROOT, servers[1].url, args.port + 3)
            stub_env = {**envs["arena"], "ARENA_PORT": str(stub.port)}
            log = open(work / "arena" / "stub.log", "ab")  # noqa: SIM115
            stub.proc = subprocess.Popen(
                [sys.executable, "-m", "bench.votepath_floor", "serve"],
                env=stub_env,
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            servers.append(stub)
            wait_ready(stub.port, "/healthz")
        wait_ready(base.port, "/base/matchups", "POST")
        windows: list[Window] = []
        for rnd in range(args.rounds):
            for n in args.voters:
                for server in servers:
                    assert server.proc is not None
                    paths = BASE_PATHS if server is base else ARENA_PATHS
                    profile = None
                    if args.profile and server is not base:
                        args.profile.mkdir(parents=True, exist_ok=True)
                        profile = args.profile / f"{backend}-{server.name}-{n}-r{rnd}.txt"
                    w = asyncio.run(
                        measure(
                            server.name,
                            server.port,
                            server.proc.pid,
                            paths,
                            args,
                            n,
                            server.total,
                            profile,
                            server.url,
                        )
                    )
                    w.round = rnd
                    windows.append(w)
                    print(
                        f"  {server.name:13} {n:3} voters: {w.rate:6.0f} pairs/s, p50 {w.pct(0.5):6.1f} ms, "
                        f"p99 {w.pct(0.99):7.1f} ms, server CPU {w.server_cpu * 1000 / max(1, w.pairs):.2f} ms/pair "
                        f"({w.server_sys / max(w.server_cpu, 1e-9):.0%} system), database CPU {w.db_per_pair}, "
                        f"load {w.load[0]:.1f}-{w.load[1]:.1f}",
                        flush=True,
                    )  # fmt: skip
        print_windows(backend, args.workers, windows)
        for server in servers:
            if not server.name.startswith("arena, "):
                print(count_check(server.name, server.url, server.total, arena=server is not base))
        if args.floor:
            alone = subprocess.run(
                [sys.executable, "-m", "bench.votepath_floor", "service", "--pairs", "2000"],
                env=envs["arena"],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
            print(f"arena service alone (one thread, no HTTP, after the windows): {alone} ms CPU per pair")
            if backend == "sqlite":
                print_sql_bound(envs["arena"], windows)
    finally:
        for server in servers:
            if server.proc is not None:
                server.proc.terminate()
                try:
                    server.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.proc.kill()
        pg_schemas.drop_schemas(schemas)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--backend", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"]
    )
    parser.add_argument("--voters", nargs="+", type=int, default=[16, 64])
    parser.add_argument(
        "--seconds", type=float, default=15.0, help="measured window per server and voter count"
    )
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=1, help="repeat the baseline/arena alternation")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--pow-bits", type=int, default=8)
    parser.add_argument("--rotate", type=int, default=50, help="pairs per voter session")
    parser.add_argument("--models", type=int, default=5)
    parser.add_argument("--prompts", type=int, default=30, help="prompts with an output from every model")
    parser.add_argument("--images", action="store_true", help="fetch both images of each matchup (untimed)")
    parser.add_argument("--port", type=int, default=8171)
    parser.add_argument("--profile", type=Path, help="folder for py-spy profiles of the arena server")
    parser.add_argument(
        "--world", type=Path, help="SQLite: keep the prepared world here and reuse it next time"
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also measure the arena's app with the service stubbed, the service alone, and its SQL alone "
        "(bench/votepath_floor.py)",
    )
    parser.add_argument(
        "--compare-root",
        type=Path,
        help="also measure `arena serve` of another checkout (e.g. a worktree of the commit before a change)",
    )
    args = parser.parse_args()
    print(f"bench_votepath: {args}; load average {os.getloadavg()}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="arena-votepath-"))
    try:
        for backend in args.backend:
            run_backend(backend, args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
