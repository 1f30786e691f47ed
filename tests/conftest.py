"""Shared fixtures: a database per test on SQLite and on PostgreSQL, settings pointing at temp folders.

Every test that takes `engine` (or anything built on it) runs twice: once on a fresh SQLite file and once in
a fresh PostgreSQL schema (127.0.0.1:5432, database `test`, or ARENA_TEST_POSTGRES_URL). PostgreSQL being down
is a failure, not a skip; set ARENA_TEST_POSTGRES=0 to leave those runs out deliberately.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine, create_engine, text

from arena.app import create_app
from arena.db import make_engine
from arena.settings import Settings

PG_URL = os.environ.get("ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
BACKENDS = ["sqlite"] + ([] if os.environ.get("ARENA_TEST_POSTGRES") == "0" else ["postgres"])


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to an empty database: a new SQLite file, or a new PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'arena.db'}"
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on the empty test database."""
    eng = make_engine(database_url)
    yield eng
    eng.dispose()


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings pointing at the test database and temp folders, with an operator token set."""
    return Settings(
        database_url=database_url,
        media_dir=tmp_path / "media",
        models_file=tmp_path / "models.toml",
        operator_token="test-operator-token",
        _env_file=None,  # type: ignore[call-arg]
    )


@pytest.fixture
def initialized(settings: Settings, engine: Engine) -> Engine:
    """An engine on a database after `arena init` (schema, taxonomy, starter pool, timing set)."""
    from arena.initialize import initialize

    initialize(settings, engine)
    return engine


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def live_url(settings: Settings, initialized: Engine) -> Iterator[str]:
    """Base URL of the app served by uvicorn on a free loopback port, on the initialised test database."""
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings, engine=initialized), host="127.0.0.1", port=port, log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def http(live_url: str) -> Iterator[httpx.Client]:
    """An httpx client bound to the live server."""
    with httpx.Client(base_url=live_url, timeout=10) as client:
        yield client
