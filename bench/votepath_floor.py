"""The parts of the vote path's cost, for bench/bench_votepath.py `--floor`:

serve    `arena serve`'s app (same settings, middlewares, routes, threads, uvicorn) with the service stubbed: the
         matchup and vote calls return canned answers of the real size without touching the database. Its CPU
         per pair is what the web stack costs the arena before any vote-path work: the floor under the arena's
         ratio against the baseline.
service  The service alone: `serve_matchup` + `cast_vote` (proof of work solved, untimed) in one thread, no
         HTTP, on the database of ARENA_DATABASE_URL; prints the CPU milliseconds per pair.
sql      SQLite only: the database's share of the service. Runs the service as `service` does, recording every
         statement and commit it sends on its own connections (the DBAPI-level SQL and parameters, as the
         driver got them), then replays that exact sequence through the raw sqlite3 driver on a copy of the
         database taken before the run (same pragmas): the CPU milliseconds per pair of the vote path's SQL
         with no SQLAlchemy, no matchmaking, no Python beyond the replay loop. Then, on the same copy, the
         baseline's SQL per pair (two autocommit one-row inserts, as bench/votepath_baseline.py writes them).
         Prints both: "<arena SQL> <baseline SQL>" ms per pair.

    python -m bench.votepath_floor serve
    python -m bench.votepath_floor service --pairs 2000
    python -m bench.votepath_floor sql --pairs 2000
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy.engine import make_url

from arena.app import create_app
from arena.cli.serving import run_server
from arena.db.tables import utcnow
from arena.settings import Settings
from arena.voting import pow as proof
from arena.voting.service import Voter
from arena.web.context import context_of

SESSION_PAIRS = 50  # a new voter session every this many pairs, as the bench's voters do
RNG = np.random.default_rng()  # one per process, as `arena serve` draws its matchups


def stub_matchup(
    voter: Voter, modality: str, rng: np.random.Generator, now: datetime, **_: Any
) -> dict[str, Any]:
    """A matchup answer of the usual shape and size."""
    hint = {"axis": "use case", "name": "Marketing & Advertising", "hint": "h" * 90}
    return {
        "id": secrets.token_urlsafe(24),
        "modality": modality,
        "prompt": "p" * 200,
        "edit_kind": None,
        "hints": [hint, hint, hint],
        "images": {"left": f"/img/{secrets.token_urlsafe(24)}", "right": f"/img/{secrets.token_urlsafe(24)}"},
        "reference": None,
        "challenge": proof.new_challenge(),
        "difficulty": 8,
        "min_seconds": 0.0,
        "expires_in": 900,
    }


def stub_vote(voter: Voter, matchup_id: str, choice: str, now: datetime, **_: Any) -> dict[str, Any]:
    """An uncounted vote's answer (what the bench's voters get, as they fetch no images)."""
    return {"matchup": matchup_id, "choice": choice, "counted": False, "message": "m" * 120}


def serve() -> None:
    settings = Settings()
    app = create_app(settings)
    context_of(app).arena.serve_matchup = stub_matchup
    context_of(app).arena.cast_vote = stub_vote

    async def stub_matchup_async(_db: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return stub_matchup(*args, **kwargs)

    async def stub_vote_async(_db: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return stub_vote(*args, **kwargs)

    # PostgreSQL without Redis: the routes call these on the event loop (arena.voting.service_async)
    context_of(app).arena.serve_matchup_async = stub_matchup_async
    context_of(app).arena.cast_vote_async = stub_vote_async
    run_server(app, settings, None, None)


def _pairs(arena: Any, n: int, after_pair: Any = None) -> float:
    """Serve and vote `n` pairs in this thread, a new voter session every SESSION_PAIRS; returns the CPU
    seconds spent solving the proofs of work (to be subtracted)."""
    solving = 0.0
    session = ""
    for i in range(n):
        if i % SESSION_PAIRS == 0:
            session = secrets.token_hex(16)
        voter = Voter(session, "c" * 32)
        m = arena.serve_matchup(voter, "text_to_image", RNG, utcnow())
        started = time.process_time()
        nonce = proof.solve(m["challenge"], m["difficulty"])
        solving += time.process_time() - started
        arena.cast_vote(voter, m["id"], "left", utcnow(), nonce=nonce)
        if after_pair is not None:
            after_pair()
    return solving


def service(pairs: int) -> float:
    """CPU milliseconds per matchup + vote of the service alone (the proof of work's solving excluded)."""
    arena = context_of(create_app(Settings())).arena
    _pairs(arena, 100)  # warm the pool and the statement caches
    started = time.process_time()
    solving = _pairs(arena, pairs)
    return (time.process_time() - started - solving) * 1000 / pairs


Step = tuple[str, Any, bool] | None  # (SQL, parameters, executemany) or None for a commit


def record(pairs: int) -> tuple[Path, list[list[Step]]]:
    """Run the service for 100 + `pairs` pairs, recording per pair the statements and commits it sent on its
    own connections; returns a copy of the database as it was before the run, and the steps of each pair."""
    settings = Settings()
    path = Path(make_url(settings.database_url).database or "")
    if not path.is_file():
        raise SystemExit("sql mode needs an SQLite ARENA_DATABASE_URL")
    before = Path(tempfile.mkdtemp(prefix="votepath-sql-")) / "before.sqlite"
    with sqlite3.connect(path) as src, sqlite3.connect(before) as dst:
        src.backup(dst)  # consistent even with a WAL beside the file
    arena = context_of(create_app(settings)).arena
    connect = arena._connect  # the vote path's own connections (the pool's loads are not the vote path)
    steps: list[Step] = []
    per_pair: list[list[Step]] = []

    class Cursor:
        """The driver's cursor, noting each statement and its parameters as the driver gets them."""

        def __init__(self, cursor: Any) -> None:
            self.cursor = cursor

        def execute(self, statement: str, parameters: Any = ()) -> Any:
            steps.append((statement, parameters, False))
            return self.cursor.execute(statement, parameters)

        def executemany(self, statement: str, parameters: Any) -> Any:
            steps.append((statement, parameters, True))
            return self.cursor.executemany(statement, parameters)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.cursor, name)

    class Recording:
        """The driver's connection, noting commits and handing out noting cursors."""

        def __init__(self, dbapi: Any) -> None:
            self.dbapi = dbapi

        def cursor(self) -> Cursor:
            return Cursor(self.dbapi.cursor())

        def commit(self) -> None:
            steps.append(None)
            self.dbapi.commit()

        def __getattr__(self, name: str) -> Any:
            return getattr(self.dbapi, name)

    @contextmanager
    def tracked() -> Iterator[Any]:
        with connect() as conn:
            conn.dbapi = Recording(conn.dbapi)
            yield conn

    arena._connect = tracked

    def close_pair() -> None:
        per_pair.append(list(steps))
        steps.clear()

    _pairs(arena, 100 + pairs, close_pair)
    return before, per_pair


def replay(path: Path, per_pair: list[list[Step]], warm: int) -> float:
    """Replay the recorded pairs through the raw driver; CPU milliseconds per pair after the first `warm`."""
    conn = sqlite3.connect(path, timeout=30)  # legacy transactions: a DML statement opens one, as pysqlite
    for pragma in ("journal_mode=WAL", "foreign_keys=ON", "synchronous=NORMAL", "busy_timeout=30000"):
        conn.execute(f"PRAGMA {pragma}")

    def run(pairs: list[list[Step]]) -> None:
        for pair in pairs:
            for step in pair:
                if step is None:
                    conn.commit()
                elif step[2]:
                    conn.executemany(step[0], step[1])
                else:
                    conn.execute(step[0], step[1]).fetchall()

    run(per_pair[:warm])
    started = time.process_time()
    run(per_pair[warm:])
    elapsed = time.process_time() - started
    conn.close()
    return elapsed * 1000 / max(1, len(per_pair) - warm)


def baseline_sql(path: Path, pairs: int) -> float:
    """CPU milliseconds per pair of the baseline's SQL: two autocommit one-row inserts, as its writer does."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=30000"):
        conn.execute(f"PRAGMA {pragma}")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS floor_rows (kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL)"
    )
    keys = [secrets.token_urlsafe(24) for _ in range(pairs)]
    insert = "INSERT INTO floor_rows (kind, key, value) VALUES (?, ?, ?)"
    started = time.process_time()
    for key in keys:
        conn.execute(insert, ("m", key, "text_to_image"))
        conn.execute(insert, ("v", key, "left"))
    elapsed = time.process_time() - started
    conn.close()
    return elapsed * 1000 / pairs


def sql(pairs: int) -> tuple[float, float]:
    """CPU milliseconds per pair of the vote path's own SQL replayed through the raw driver, and of the
    baseline's two inserts through the same driver (see `sql` above)."""
    before, per_pair = record(pairs)
    try:
        return replay(before, per_pair, 100), baseline_sql(before, pairs)
    finally:
        shutil.rmtree(before.parent, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=["serve", "service", "sql"])
    parser.add_argument("--pairs", type=int, default=2000)
    args = parser.parse_args()
    if args.mode == "serve":
        serve()
    elif args.mode == "service":
        print(f"{service(args.pairs):.3f}")
    else:
        arena_sql, base_sql = sql(args.pairs)
        print(f"{arena_sql:.3f} {base_sql:.3f}")


if __name__ == "__main__":
    main()
