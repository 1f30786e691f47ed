"""PostgreSQL: the vote path's statements on the event loop, through psycopg's AsyncConnection.

Without this, a PostgreSQL arena runs each matchup and vote request on a vote-path thread (its waits are network
round trips). The hand-off to the thread and back, and the GIL passed between the loop and the threads, cost
about 0.65 ms of server CPU per matchup + vote in bench/bench_votepath.py (3.14 ms per pair threaded, 2.48 ms
with the same statements run blocking on the loop, same run). Here the same prepared statements
(`arena.voting.raw.Prepared`: same SQL, same bind and result processing) run on autocommit async connections,
so a request never leaves the loop, and the loop serves other requests while PostgreSQL answers.

The pool belongs to one event loop: the app opens it when its server starts (the lifespan) and closes it when
the server stops; requests served without a started lifespan keep the threads. Driver errors are raised as
SQLAlchemy's exceptions, as on the threads (a duplicate vote is an IntegrityError, an unreachable database an
OperationalError that the app answers 503).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any

import psycopg
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from arena.db.engine import IDLE_PING_SECONDS, POOL_SIZE
from arena.voting.raw import Prepared

__all__ = ["AsyncRawConnection", "AsyncRawPool"]

#: Seconds a request waits for a free connection before the pool gives up (SQLAlchemy's pool waits as long).
ACQUIRE_SECONDS = 30.0

Held = tuple[psycopg.AsyncConnection, float] | None  # an idle connection (and since when), or a free slot


class AsyncRawConnection:
    """One async connection with `all` / `first` / `run` for `Prepared` statements."""

    def __init__(self, conn: psycopg.AsyncConnection, engine: Engine) -> None:
        self.conn = conn
        self.dialect = engine.dialect
        self.broken = False

    def _fail(self, exc: psycopg.Error, sql: str, params: Any) -> DBAPIError:
        self.broken = self.conn.broken or self.conn.closed or isinstance(exc, psycopg.OperationalError)
        return DBAPIError.instance(
            sql, params, exc, psycopg.Error, connection_invalidated=self.broken, dialect=self.dialect
        )

    async def all(self, statement: Prepared, values: Mapping[str, Any]) -> list[Any]:
        """Every row of `statement`, processed."""
        params = statement.parameters(values)
        try:
            async with self.conn.cursor() as cursor:
                await cursor.execute(statement.sql, params)
                rows: Sequence[Any] = await cursor.fetchall() if cursor.description else []
        except psycopg.Error as exc:
            raise self._fail(exc, statement.sql, params) from exc
        return statement.rows(rows) if statement.row is not None else []

    async def first(self, statement: Prepared, values: Mapping[str, Any]) -> Any:
        """The first row of `statement`, processed, or None."""
        rows = await self.all(statement, values)
        return rows[0] if rows else None

    async def run(self, statement: Prepared, values: Mapping[str, Any]) -> None:
        """Run `statement` (a write; autocommit: committed when this returns)."""
        params = statement.parameters(values)
        try:
            await self.conn.execute(statement.sql, params)
        except psycopg.Error as exc:
            raise self._fail(exc, statement.sql, params) from exc


class AsyncRawPool:
    """At most `size` autocommit connections to the engine's database, opened as needed, for one event loop.

    Each of the `size` places is an idle connection or a free slot (None); a request takes one (waiting in line at
    most ACQUIRE_SECONDS), connects on a free slot, and gives back its connection, or a free slot if the
    connection broke. A connection idle for IDLE_PING_SECONDS, or since another connection was found broken, is
    checked before use (the engine's pool checks idle ones and drops every connection on a disconnect)."""

    def __init__(self, engine: Engine, size: int = POOL_SIZE) -> None:
        self.engine = engine
        # the engine's own connect arguments (host, database, options such as search_path, application_name,
        # and its psycopg adapters), so these connections see what the engine's do
        self._args, self._kwargs = engine.dialect.create_connect_args(engine.url)
        self.size = size
        # Idle connections and free slots (None), last in first out: the connection used last is taken first,
        # and a free slot (a new connection) only when every open one is busy. Waiters are served in arrival
        # order: a connection given back goes straight to the oldest waiter, so a request arriving later
        # cannot take it first (with asyncio.Queue it could, and at 64 voters some requests waited a second).
        self._idle: list[Held] = [None] * size
        self._waiters: deque[asyncio.Future[Held]] = deque()
        self._open: set[psycopg.AsyncConnection] = set()
        self.closed = False
        self._broken_at = float("-inf")  # connections idle since before this are checked before use

    async def _connect(self) -> psycopg.AsyncConnection:
        try:
            conn = await psycopg.AsyncConnection.connect(*self._args, **self._kwargs, autocommit=True)
        except psycopg.Error as exc:
            raise DBAPIError.instance(
                "connect", None, exc, psycopg.Error, connection_invalidated=True, dialect=self.engine.dialect
            ) from exc
        self._open.add(conn)
        return conn

    async def _checked(self, held: tuple[psycopg.AsyncConnection, float] | None) -> psycopg.AsyncConnection:
        if held is None:
            return await self._connect()
        conn, idle_since = held
        fresh = time.monotonic() - idle_since < IDLE_PING_SECONDS and idle_since > self._broken_at
        if not conn.closed and fresh:
            return conn
        try:
            if not conn.closed:
                await conn.execute("SELECT 1")
                return conn
        except psycopg.Error:
            pass
        await self._discard(conn)
        return await self._connect()

    async def _discard(self, conn: psycopg.AsyncConnection) -> None:
        self._open.discard(conn)
        with suppress(psycopg.Error):
            await conn.close()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncRawConnection]:
        """A connection for one request's statements, given back afterwards."""
        if self.closed:
            raise RuntimeError("the vote path's async pool is closed")
        held = self._idle.pop() if self._idle and not self._waiters else await self._wait()
        try:
            conn = await self._checked(held)
        except BaseException:
            self._give(None)
            raise
        wrapped = AsyncRawConnection(conn, self.engine)
        try:
            yield wrapped
        finally:
            if wrapped.broken or conn.closed or self.closed:
                if wrapped.broken:  # the server restarted or dropped us: check the idle ones before use
                    self._broken_at = time.monotonic()
                await self._discard(conn)
                self._give(None)
            else:
                self._give((conn, time.monotonic()))

    async def _wait(self) -> Held:
        """Wait in line for a connection or a free slot, at most ACQUIRE_SECONDS."""
        waiter: asyncio.Future[Held] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await asyncio.wait_for(waiter, ACQUIRE_SECONDS)
        except TimeoutError:
            if waiter.done() and not waiter.cancelled():  # handed over as the time ran out
                return waiter.result()
            raise PoolTimeout("no vote-path connection became free in time") from None
        except BaseException:  # cancelled (the client left): a place already handed over goes back
            if waiter.done() and not waiter.cancelled():
                self._give(waiter.result())
            raise
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def _give(self, held: Held) -> None:
        """A connection or a free slot back: to the oldest waiter still waiting, else to the idle ones."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(held)
                return
        self._idle.append(held)

    async def close(self) -> None:
        """Close every connection (the server is stopping)."""
        self.closed = True
        for conn in list(self._open):
            await self._discard(conn)
