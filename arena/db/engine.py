"""Engine factory: SQLite gets WAL, foreign keys and a busy timeout; PostgreSQL gets a pool that pings only
connections that sat idle.

Pool size: the vote path's 8 threads (arena.web.voter.routes) each hold one connection per request and the other
routes run on Starlette's threads; POOL_SIZE connections stay open and up to POOL_OVERFLOW more open in bursts
(SQLAlchemy's default of 5 + 10 was smaller than the 40 threads that handled votes). 20 a process keeps 4
workers under PostgreSQL's default max_connections of 100.

Liveness: `pool_pre_ping` cost a `SELECT 1` round trip on every checkout, i.e. on every request; instead a
connection idle for IDLE_PING_SECONDS or more is pinged at checkout (where a restarted server or a dropped idle
connection shows up), and a dead one is replaced before the request sees it. A connection that dies while in
use fails that request (503) and, being a disconnect, makes the pool replace every connection older than it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError

POOL_SIZE = 10
POOL_OVERFLOW = 10
IDLE_PING_SECONDS = 10.0
#: How long an SQLite statement waits for another writer's lock before failing "database is locked".
SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(database_url: str, **kwargs: Any) -> Engine:
    """Create an engine for `database_url`, creating the SQLite file's folder when needed."""
    url = make_url(database_url)
    pool = (
        kwargs if "poolclass" in kwargs else {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW, **kwargs}
    )
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        else:
            pool = kwargs  # an in-memory database keeps SQLAlchemy's single-connection pool
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **pool
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    engine = create_engine(url, **pool)
    event.listen(engine, "checkin", _note_checkin)
    event.listen(engine, "checkout", _ping_if_idle(engine))
    return engine


def _note_checkin(_dbapi_connection: Any, record: Any) -> None:
    record.info["idle_since"] = time.monotonic()


def _ping_if_idle(engine: Engine) -> Any:
    def checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < IDLE_PING_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:
            raise DisconnectionError(f"idle connection is dead: {exc}") from exc  # the pool reconnects

    return checkout


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()
