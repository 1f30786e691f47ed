"""Fault runs against `arena serve` as a real process (ports 8120-8129).

kill:   votes at a steady rate while the server is killed with SIGKILL at random moments and restarted, many
        times; then every acknowledged (2xx) vote must be stored exactly once and the integrity check pass.
bodies: six concurrent 50 MB JSON bodies (declared and chunked) on /api/v1/votes: the server's peak resident
        memory and whether /healthz keeps answering (the attack took an unguarded server to 9.3 GB).
outage: (PostgreSQL) a private PostgreSQL started here (initdb in a temp dir, run as the `postgres` user when
        root) is stopped and restarted during traffic: answers must be 2xx/4xx or 503, nothing acknowledged
        lost, and the server recovers without a restart.

    python bench/bench_faults.py kill --backend sqlite --kills 10
    python bench/bench_faults.py kill --backend postgres --kills 10
    python bench/bench_faults.py outage --stop-seconds 10
    python bench/bench_faults.py bodies
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from arena.voting import pow as proof  # noqa: E402
from tests.support.nodes import VOTES_PER_MATCHUP, acknowledged_vs_stored  # noqa: E402

# The CLI of this checkout, not whichever `arena` the venv installed (PYTHONPATH puts ROOT first).
ARENA = [sys.executable, "-c", "from arena.entry import main; main()"]
MODELS = "".join(
    f'[[models]]\nslug = "bench-{i}"\ndisplay_name = "Bench {i}"\norganization = "Bench"\n'
    f'modality = "text_to_image"\nadapter = "sandbox"\n\n'
    for i in range(3)
)


def environment(work: Path, database_url: str, port: int) -> dict[str, str]:
    (work / "models.toml").write_text(MODELS, encoding="utf-8")
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ARENA_DATABASE_URL": database_url,
        "ARENA_MEDIA_DIR": str(work / "media"),
        "ARENA_MODELS_FILE": str(work / "models.toml"),
        "ARENA_PORT": str(port),
        "ARENA_SCHEDULER_ENABLED": "false",
        "ARENA_MIN_VOTE_SECONDS": "0",
        "ARENA_SESSION_VOTES_PER_MINUTE": "100000",
        "ARENA_ADDRESS_VOTES_PER_MINUTE": "100000",
        "ARENA_POW_DIFFICULTY_BITS": "4",
        "ARENA_LOG_LEVEL": "warning",
    }


def prepare(env: dict[str, str]) -> None:
    subprocess.run([*ARENA, "init"], env=env, check=True, capture_output=True)
    for i in range(3):  # the same prompts for every model, so matchups exist
        subprocess.run(
            [*ARENA, "generate", "--model", f"bench-{i}", "--limit", "8"],
            env=env,
            check=True,
            capture_output=True,
        )


def start(env: dict[str, str], log: Path) -> subprocess.Popen:
    proc = subprocess.Popen([*ARENA, "serve"], env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT)  # noqa: SIM115
    url = f"http://127.0.0.1:{env['ARENA_PORT']}"
    for _ in range(300):
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


class Voter(threading.Thread):
    """Casts votes at a steady rate; records acknowledged matchup ids and every answer (time, status, detail)."""

    def __init__(self, url: str, rate: float) -> None:
        super().__init__(daemon=True)
        self.url, self.period = url, 1.0 / rate
        self.acknowledged: list[str] = []
        self.statuses: collections.Counter[str] = collections.Counter()
        self.events: list[tuple[float, str]] = []  # (monotonic time, "vote 200" / "matchup 503" / ...)
        self.details: collections.Counter[str] = collections.Counter()  # non-2xx answers by their message
        self.stop = threading.Event()

    def note(self, label: str, response: httpx.Response | None = None) -> None:
        self.statuses[label] += 1
        self.events.append((time.monotonic(), label))
        if response is not None and response.status_code >= 300:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text[:80]
            self.details[f"{label}: {detail}"] += 1

    def run(self) -> None:
        client = httpx.Client(base_url=self.url, timeout=10)
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                m = client.post("/api/v1/matchups", json={"modality": "text_to_image"})
                self.note(f"matchup {m.status_code}", m)
                if m.status_code == 200:
                    body = m.json()
                    for url in body["images"].values():
                        client.get(url)
                    nonce = proof.solve(body["challenge"], body["difficulty"])
                    v = client.post(
                        "/api/v1/votes", json={"matchup_id": body["id"], "choice": "left", "nonce": nonce}
                    )
                    self.note(f"vote {v.status_code}", v)
                    if v.status_code == 200:
                        self.acknowledged.append(body["id"])
            except httpx.TransportError:
                self.note("connection error")
            self.stop.wait(max(0.0, self.period - (time.monotonic() - started)))


def tally(voters: list[Voter], since: float = 0.0, until: float = float("inf")) -> dict[str, int]:
    """Every voter's answers between two monotonic times, by label."""
    counts: collections.Counter[str] = collections.Counter()
    for v in voters:
        counts.update(label for t, label in list(v.events) if since <= t < until)
    return dict(sorted(counts.items()))


def integrity(conn, database_url: str) -> str:
    """SQLite: PRAGMA integrity_check. PostgreSQL: amcheck's bt_index_check (with heapallindexed, so every heap
    row must be found in each index) on every B-tree index of the public schema."""
    if database_url.startswith("sqlite"):
        return conn.execute(text("PRAGMA integrity_check")).scalar_one()
    conn.execute(text("CREATE EXTENSION IF NOT EXISTS amcheck"))
    indexes = conn.execute(
        text(
            "SELECT c.oid, c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_am a ON a.oid = c.relam "
            "WHERE n.nspname = 'public' AND a.amname = 'btree'"
        )
    ).all()
    for oid, _name in indexes:
        conn.execute(text("SELECT bt_index_check(:oid, true)"), {"oid": oid})  # raises on corruption
    return f"ok (amcheck: {len(indexes)} B-tree indexes, heapallindexed)"


def check(database_url: str, acknowledged: list[str]) -> dict[str, object]:
    """Acknowledged votes against the votes table: lost (acknowledged, not stored), stored twice, stored without
    an acknowledgement (the server was killed between commit and answer), orphans and the integrity check."""
    engine = create_engine(database_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        counts = dict(conn.execute(VOTES_PER_MATCHUP).all())
        orphans = conn.execute(
            text(
                "SELECT count(*) FROM votes v LEFT JOIN matchups m ON m.id = v.matchup_id WHERE m.id IS NULL"
            )
        ).scalar_one()
        verdict = integrity(conn, database_url)
    engine.dispose()
    return {
        **acknowledged_vs_stored(acknowledged, counts),
        "votes without their matchup": orphans,
        "integrity": verdict,
    }


def kill_run(args: argparse.Namespace, work: Path, database_url: str) -> None:
    env = environment(work, database_url, args.port)
    prepare(env)
    proc = start(env, work / "serve.log")
    voters = [Voter(f"http://127.0.0.1:{args.port}", args.rate) for _ in range(args.voters)]
    began = time.monotonic()
    for v in voters:
        v.start()
    rng = random.Random(7)
    restarts: list[float] = []  # SIGKILL to /healthz 200 again, seconds
    for _ in range(args.kills):
        time.sleep(rng.uniform(0.5, 3.0))
        killed = time.monotonic()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc = start(env, work / "serve.log")
        restarts.append(time.monotonic() - killed)
    time.sleep(2)
    for v in voters:
        v.stop.set()
        v.join()
    proc.terminate()
    proc.wait()
    restarts.sort()
    print(
        f"kill run ({args.backend}): {args.kills} SIGKILLs over {time.monotonic() - began:.0f} s, "
        f"{args.voters} voters at {args.rate}/s each"
    )
    print(f"  answers: {tally(voters)}")
    print(
        f"  restart (SIGKILL to /healthz 200): median {restarts[len(restarts) // 2]:.1f} s, "
        f"max {restarts[-1]:.1f} s"
    )
    details = sum((v.details for v in voters), collections.Counter())
    if details:
        print(f"  non-2xx answers: {dict(details)}")
    print(f"  {check(database_url, [m for v in voters for m in v.acknowledged])}")


def private_postgres(work: Path, port: int) -> tuple[str, callable, callable]:
    bindir = Path(sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1])
    data = work / "pgdata"
    run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if run_as:
        shutil.chown(work, "postgres")
    subprocess.run(
        [*run_as, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
        check=True,
        capture_output=True,
    )

    def up() -> None:
        subprocess.run(
            [
                *run_as,
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                f"-p {port} -k {work}",
                "-l",
                str(work / "pg.log"),
                "-w",
                "start",
            ],
            check=True,
            capture_output=True,
        )

    def down() -> None:
        subprocess.run(
            [*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            check=True,
            capture_output=True,
        )

    up()
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", up, down


def _seconds(value: float | None) -> str:
    return "never (60 s)" if value is None else f"{value:.2f} s"


def outage_run(args: argparse.Namespace, work: Path) -> None:
    database_url, up, down = private_postgres(work, args.port + 1)
    url = f"http://127.0.0.1:{args.port}"
    try:
        env = environment(work, database_url, args.port)
        prepare(env)
        proc = start(env, work / "serve.log")
        voters = [Voter(url, args.rate) for _ in range(args.voters)]
        began = time.monotonic()
        for v in voters:
            v.start()
        time.sleep(args.before_seconds)
        stopping = time.monotonic()
        down()
        time.sleep(args.stop_seconds)
        restarting = time.monotonic()
        up()
        restarted = time.monotonic()
        ready_after = first_vote_after = None
        while time.monotonic() - restarted < 60 and (ready_after is None or first_vote_after is None):
            if ready_after is None:
                try:
                    if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                        ready_after = time.monotonic() - restarted
                except httpx.TransportError:
                    pass
            votes = [
                t for v in voters for t, label in list(v.events) if label == "vote 200" and t >= restarted
            ]
            if first_vote_after is None and votes:
                first_vote_after = min(votes) - restarted
            time.sleep(0.1)
        time.sleep(args.after_seconds)
        for v in voters:
            v.stop.set()
            v.join()
        ended = time.monotonic()
        alive = proc.poll() is None
        proc.terminate()
        proc.wait()
        print(
            f"outage run: {args.voters} voters at {args.rate}/s each; PostgreSQL stopped "
            f"{restarting - stopping:.1f} s (fast shutdown started {stopping - began:.1f} s in), "
            f"restarted in {restarted - restarting:.1f} s"
        )
        print(f"  before the stop:       {tally(voters, 0, stopping)}")
        print(f"  stop to restart:       {tally(voters, stopping, restarted)}")
        print(f"  after the restart:     {tally(voters, restarted, ended)}")
        print(
            f"  after PostgreSQL was back: /readyz 200 after {_seconds(ready_after)}, first acknowledged vote "
            f"after {_seconds(first_vote_after)}; the server process was never restarted (alive at the end: {alive})"
        )
        details = sum((v.details for v in voters), collections.Counter())
        print(f"  non-2xx answers: {dict(details)}")
        print(f"  {check(database_url, [m for v in voters for m in v.acknowledged])}")
    finally:
        down()


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def bodies_run(args: argparse.Namespace, work: Path) -> None:
    env = environment(work, f"sqlite:///{work / 'arena.db'}", args.port)
    subprocess.run([*ARENA, "init"], env=env, check=True, capture_output=True)
    proc = start(env, work / "serve.log")
    url = f"http://127.0.0.1:{args.port}"
    before = _rss_mib(proc.pid)
    peak = before
    statuses: collections.Counter[str] = collections.Counter()
    big = b'{"matchup_id": "' + b"a" * (50 * 1024 * 1024) + b'", "choice": "left"}'

    def chunks():
        for i in range(0, len(big), 1 << 20):
            yield big[i : i + (1 << 20)]

    def attack(chunked: bool) -> None:
        try:
            r = httpx.post(f"{url}/api/v1/votes", content=chunks() if chunked else big, timeout=60)
            statuses[f"{'chunked' if chunked else 'declared'} {r.status_code}"] += 1
        except httpx.TransportError as exc:
            statuses[f"{'chunked' if chunked else 'declared'} {type(exc).__name__}"] += 1

    threads = [threading.Thread(target=attack, args=(i % 2 == 1,)) for i in range(6)]
    health: list[float] = []
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        peak = max(peak, _rss_mib(proc.pid))
        started = time.monotonic()
        try:
            httpx.get(f"{url}/healthz", timeout=5)
            health.append(time.monotonic() - started)
        except httpx.TransportError:
            health.append(float("inf"))
        time.sleep(0.05)
    proc.terminate()
    proc.wait()
    print(f"bodies run: 6 x 50 MB on /api/v1/votes: {dict(statuses)}")
    print(
        f"  server RSS {before:.0f} MiB before, peak {peak:.0f} MiB; /healthz answered {len(health)} times, "
        f"slowest {max(health or [0]) * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=["kill", "outage", "bodies"])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--stop-seconds", type=float, default=10.0)
    parser.add_argument("--before-seconds", type=float, default=10.0, help="outage: traffic before the stop")
    parser.add_argument("--after-seconds", type=float, default=10.0, help="outage: traffic after recovery")
    parser.add_argument("--voters", type=int, default=4)
    parser.add_argument("--rate", type=float, default=5.0, help="votes per second per voter")
    parser.add_argument("--port", type=int, default=8120)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="arena-faults-"))
    try:
        if args.mode == "outage":
            outage_run(args, work)
        elif args.mode == "bodies":
            bodies_run(args, work)
        elif args.backend == "sqlite":
            kill_run(args, work, f"sqlite:///{work / 'arena.db'}")
        else:
            database_url, _up, down = private_postgres(work, args.port + 1)
            try:
                kill_run(args, work, database_url)
            finally:
                down()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
