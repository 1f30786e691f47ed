"""The app's lifespan: on PostgreSQL without Redis, the vote path's async connections (arena.voting.async_raw)
are opened in the server's event loop when it starts and closed when it stops, so matchup and vote requests
run on the loop instead of on the vote-path threads. With Redis the threads stay (the shared rate limits and
plan are read with blocking calls), and on SQLite the vote path already runs on the loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette

from arena.web.context import context_of


@asynccontextmanager
async def vote_path_lifespan(app: Starlette) -> AsyncIterator[None]:
    """Open the async pool for this server's loop (when it applies); close it when the server stops."""
    ctx = context_of(app)
    pool = None
    if ctx.engine.dialect.name == "postgresql" and ctx.page_generation is None:
        from arena.voting.async_raw import AsyncRawPool

        pool = ctx.arena.async_db = AsyncRawPool(ctx.engine)
    try:
        yield
    finally:
        if pool is not None:
            if ctx.arena.async_db is pool:
                ctx.arena.async_db = None
            await pool.close()
