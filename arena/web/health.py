"""Liveness and readiness, and how database failures reach clients.

An unreachable database (connection refused, dropped, pool timeout) or a full disk under SQLite answers 503
with Retry-After instead of a bare 500: nothing was stored, the client may retry. Values the database cannot
hold (a NUL byte in a text, an integer beyond 64 bits) are the client's fault: 400. `/healthz` says the
process answers; `/readyz` says whether it can serve (database reachable, storage not full) and shows the
scheduler lease."""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DataError, DBAPIError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from arena.db.tables import SchedulerLease
from arena.web.context import context_of
from arena.web.deps import ContextDep

log = logging.getLogger("arena.web")
router = APIRouter(tags=["health"])
RETRY_AFTER_SECONDS = 5
STORAGE_FAILURE_MEMORY_SECONDS = 30.0
MIN_FREE_BYTES = 1 << 20


class Liveness(BaseModel):
    """The process answers."""

    status: str


class Readiness(BaseModel):
    """Whether the app can serve: database, storage and the scheduler lease."""

    status: str
    database: str
    storage: str
    scheduler: dict[str, Any]


def _disk_full(exc: BaseException) -> bool:
    message = str(getattr(exc, "orig", exc)).lower()
    return "disk is full" in message or "no space left" in message


def _unavailable(_request: Request, reason: str) -> JSONResponse:
    return JSONResponse(
        {"detail": f"temporarily unavailable: {reason}; retry shortly"},
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def install_error_handlers(app: FastAPI) -> None:
    """Map database failures to 503 (outage, full disk) or 400 (a value the database refuses)."""
    live = context_of(app).live  # create_app stores the context before installing these

    @app.exception_handler(DBAPIError)
    async def _database_error(request: Request, exc: DBAPIError) -> JSONResponse:
        if isinstance(exc, DataError):
            return JSONResponse({"detail": "a value in the request cannot be stored or looked up"}, 400)
        if _disk_full(exc):
            live.storage_failed_at = time.monotonic()
            log.error("storage full: %s", exc.orig.__class__.__name__)
            return _unavailable(request, "storage is full")
        log.error("database unreachable: %s", exc.orig.__class__.__name__ if exc.orig else "error")
        return _unavailable(request, "database unreachable")

    @app.exception_handler(PoolTimeout)
    async def _pool_timeout(request: Request, _exc: PoolTimeout) -> JSONResponse:
        return _unavailable(request, "database busy")

    @app.exception_handler(OSError)
    async def _os_error(request: Request, exc: OSError) -> JSONResponse:
        if _disk_full(exc) or getattr(exc, "errno", None) == 28:
            live.storage_failed_at = time.monotonic()
            return _unavailable(request, "storage is full")
        raise exc


def _free_bytes(path: Path) -> int | None:
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free
    except OSError:
        return None


def _storage_state(request: Request) -> str:
    ctx = context_of(request.app)
    failed = ctx.live.storage_failed_at
    if failed is not None and time.monotonic() - failed < STORAGE_FAILURE_MEMORY_SECONDS:
        return "full (a write failed for lack of space)"
    paths = [Path(ctx.settings.media_dir)]
    url = make_url(ctx.settings.database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        paths.append(Path(url.database).resolve().parent)
    for path in paths:
        free = _free_bytes(path)
        if free is not None and free < MIN_FREE_BYTES:
            return f"full ({free} bytes free under {path.name or path})"
    return "ok"


@router.get("/healthz", response_model=Liveness)
def healthz() -> Liveness:
    """Liveness: the process answers (no database call, so an outage does not restart it)."""
    return Liveness(status="ok")


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
def readyz(request: Request, ctx: ContextDep) -> Any:
    """Readiness: 200 when the database answers and storage has room, else 503; the scheduler lease shown."""
    engine = ctx.engine
    scheduler: dict[str, Any] = {"holder": None, "lease_expires_at": None}
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            lease = conn.execute(select(SchedulerLease.holder, SchedulerLease.expires_at)).first()
        database = "ok"
        if lease is not None:
            scheduler = {"holder": lease.holder, "lease_expires_at": lease.expires_at.isoformat()}
    except SQLAlchemyError as exc:
        database = "full" if _disk_full(exc) else "unreachable"
    storage = _storage_state(request)
    ready = database == "ok" and storage == "ok"
    body = Readiness(
        status="ready" if ready else "not ready", database=database, storage=storage, scheduler=scheduler
    )
    if ready:
        return body
    return JSONResponse(body.model_dump(), status_code=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
