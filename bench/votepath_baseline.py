"""The minimal async baseline of bench/bench_votepath.py: a FastAPI app whose two routes each insert one row
with the raw async driver and answer a small JSON object, served by the same uvicorn as `arena serve` (same
HTTP protocol class, TCP_NODELAY, no access log). It is what "one row per request" costs in this stack, the
floor the vote path is compared with.

    POST /base/matchups  {"modality": ...}                  -> inserts ("m", id); {"id", "challenge", "difficulty"}
    POST /base/votes     {"matchup_id", "choice", "nonce"}  -> inserts ("v", matchup_id); {"matchup", "counted"}

SQLite: one sqlite3 connection (WAL, synchronous=NORMAL, as the arena's engine sets) in autocommit mode, driven
from one dedicated thread (what aiosqlite does; aiosqlite is not installed), so each INSERT is its own committed
transaction. PostgreSQL: psycopg's AsyncConnection, autocommit, a pool of `BASELINE_PG_POOL` connections.
Every answer comes after its row committed, so the bench can count acknowledged answers against stored rows.

    python -m bench.votepath_baseline --database-url sqlite:///x.db --port 8172 [--workers 1] [--difficulty 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sqlite3
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

TABLE = "baseline_rows"
POOL_SIZE = int(os.environ.get("BASELINE_PG_POOL", "10"))


class MatchupBody(BaseModel):
    """Same shape as the arena's matchup request."""

    model_config = ConfigDict(extra="forbid")
    modality: str = "text_to_image"


class VoteBody(BaseModel):
    """Same shape as the arena's vote request."""

    model_config = ConfigDict(extra="forbid")
    matchup_id: str = Field(min_length=8, max_length=64)
    choice: str
    nonce: str = ""


def sqlite_path(database_url: str) -> str:
    """The file of a `sqlite:///...` URL."""
    return database_url.split("sqlite:///", 1)[1]


def pg_conninfo(database_url: str) -> str:
    """A libpq URL from an SQLAlchemy one (`postgresql+psycopg://` -> `postgresql://`)."""
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def create_schema(database_url: str) -> None:
    """Create the baseline's one table (the bench calls this before starting the server)."""
    ddl = f"CREATE TABLE IF NOT EXISTS {TABLE} (kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL)"
    if database_url.startswith("sqlite"):
        with sqlite3.connect(sqlite_path(database_url)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(ddl)
        return
    import psycopg

    with psycopg.connect(pg_conninfo(database_url), autocommit=True) as conn:
        conn.execute(ddl.replace("TEXT NOT NULL)", "TEXT NOT NULL, id BIGSERIAL PRIMARY KEY)"))


class SqliteWriter:
    """One connection used from one thread: `insert` runs there and returns once committed."""

    def __init__(self, path: str) -> None:
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
        self.conn = self.executor.submit(self._open, path).result()

    @staticmethod
    def _open(path: str) -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=30000"):
            conn.execute(f"PRAGMA {pragma}")
        return conn

    def _insert(self, kind: str, key: str, value: str) -> None:
        self.conn.execute(f"INSERT INTO {TABLE} (kind, key, value) VALUES (?, ?, ?)", (kind, key, value))

    async def insert(self, kind: str, key: str, value: str) -> None:
        await asyncio.get_running_loop().run_in_executor(self.executor, self._insert, kind, key, value)


class PostgresWriter:
    """A small pool of autocommit psycopg async connections."""

    def __init__(self, conninfo: str) -> None:
        self.conninfo = conninfo
        self.idle: asyncio.Queue[Any] = asyncio.Queue()

    async def open(self) -> None:
        import psycopg

        for _ in range(POOL_SIZE):
            self.idle.put_nowait(await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True))

    async def insert(self, kind: str, key: str, value: str) -> None:
        conn = await self.idle.get()
        try:
            await conn.execute(
                f"INSERT INTO {TABLE} (kind, key, value) VALUES (%s, %s, %s)", (kind, key, value)
            )
        finally:
            self.idle.put_nowait(conn)


def create_app(database_url: str, difficulty: int) -> FastAPI:
    """The baseline app on `database_url`."""
    sqlite = database_url.startswith("sqlite")
    writer: Any = (
        SqliteWriter(sqlite_path(database_url)) if sqlite else PostgresWriter(pg_conninfo(database_url))
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if not sqlite:
            await writer.open()
        yield

    app = FastAPI(lifespan=lifespan)
    insert = writer.insert

    @app.post("/base/matchups")
    async def matchup(body: MatchupBody) -> dict:
        matchup_id, challenge = secrets.token_urlsafe(24), secrets.token_hex(16)
        await insert("m", matchup_id, body.modality)
        return {"id": matchup_id, "challenge": challenge, "difficulty": difficulty}

    @app.post("/base/votes")
    async def vote(body: VoteBody) -> dict:
        await insert("v", body.matchup_id, body.choice)
        return {"matchup": body.matchup_id, "choice": body.choice, "counted": True}

    return app


def create() -> FastAPI:
    """Factory for `--workers N` (each worker builds its app from the environment)."""
    return create_app(os.environ["BASELINE_DATABASE_URL"], int(os.environ.get("BASELINE_DIFFICULTY", "8")))


def main() -> None:
    import uvicorn

    from arena.web.nodelay import HTTP_PROTOCOL

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--port", type=int, default=8172)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--difficulty", type=int, default=8)
    args = parser.parse_args()
    os.environ["BASELINE_DATABASE_URL"] = args.database_url
    os.environ["BASELINE_DIFFICULTY"] = str(args.difficulty)
    options = {
        "host": "127.0.0.1",
        "port": args.port,
        "log_level": "warning",
        "access_log": False,
        "server_header": False,
        "http": HTTP_PROTOCOL,
    }
    if args.workers > 1:
        uvicorn.run("bench.votepath_baseline:create", factory=True, workers=args.workers, **options)
    else:
        uvicorn.run(create(), **options)


if __name__ == "__main__":
    main()
