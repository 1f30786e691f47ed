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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine

from arena.app import create_app
from arena.db import make_engine
from arena.runtime.server_options import proxy_options
from arena.settings import Settings
from arena.web.context import context_of
from arena.web.protocol import protocol_for
from tests.support.pg_schemas import create_schema, drop_schemas, schema_url

BACKENDS = ["sqlite"] + ([] if os.environ.get("ARENA_TEST_POSTGRES") == "0" else ["postgres"])


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to an empty database: a new SQLite file, or a new PostgreSQL schema dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'arena.db'}"
        return
    schema = create_schema("t_")
    try:
        yield schema_url(schema)
    finally:
        drop_schemas([schema])


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


class FrozenClock:
    """A clock for the app that only moves when a test says so."""

    def __init__(self) -> None:
        from arena.db.tables import utcnow

        self.now = utcnow()

    def __call__(self):
        return self.now

    def advance(self, delta) -> None:
        self.now = self.now + delta


@pytest.fixture
def frozen() -> FrozenClock:
    """The clock handed to the app by `live_world`."""
    return FrozenClock()


@contextmanager
def serve(app) -> Iterator[str]:
    """Run `app` with uvicorn on a free loopback port in a thread; yield its base URL."""
    port = _free_port()
    options = proxy_options(context_of(app).settings)  # the same proxy trust as `arena serve`
    http = protocol_for(
        context_of(app).settings
    )  # and its protocol: TCP_NODELAY, the request-header deadline
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", http=http, **options)
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
def live_url(settings: Settings, initialized: Engine) -> Iterator[str]:
    """Base URL of the app served by uvicorn on a free loopback port, on the initialised test database."""
    with serve(create_app(settings, engine=initialized)) as url:
        yield url


@pytest.fixture
def live_world(settings: Settings, world: Engine, frozen: FrozenClock) -> Iterator[str]:
    """Base URL of the app over `world` (models with outputs), with the frozen clock."""
    with serve(create_app(settings, engine=world, clock=frozen)) as url:
        yield url


@pytest.fixture
def http(live_url: str) -> Iterator[httpx.Client]:
    """An httpx client bound to the live server."""
    with httpx.Client(base_url=live_url, timeout=10) as client:
        yield client


WORLD_MODELS = """
[[models]]
slug = "model-{i}"
display_name = "Model {i} (local sandbox)"
organization = "Org {i}"
modality = "{modality}"
adapter = "sandbox"
"""


class ColourProvider:
    """A provider double for arena tests: a flat image whose colour depends on the model (adapters themselves
    are tested against real HTTP servers in test_provider_*)."""

    def __init__(self, index: int) -> None:
        self.index = index

    async def generate(self, request):
        import io

        from PIL import Image

        from arena.generation.providers.base import GenerationResult, Timing

        out = io.BytesIO()
        Image.new("RGB", (64, 64), (40 * self.index % 255, 90, 200 - 30 * self.index)).save(out, "PNG")
        now = time.perf_counter()
        return GenerationResult(out.getvalue(), Timing(now - 0.5, now - 0.2, now), {"seed": request.seed})

    async def warm_up(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


@pytest.fixture
def world(settings: Settings, initialized: Engine) -> Engine:
    """An initialised arena with four text-to-image and three editing models, each with outputs for the
    first 8 prompts of its modality (so matchups can be served)."""
    import asyncio

    from sqlmodel import Session

    from arena.generation.backfill import Backfill, plan_jobs
    from arena.generation.registry import parse_registry, sync_registry
    from arena.media.store import MediaStore

    text = "".join(WORLD_MODELS.format(i=i, modality="text_to_image") for i in range(4)) + "".join(
        WORLD_MODELS.format(i=i, modality="image_editing") for i in range(4, 7)
    )
    if not settings.models_file.exists():  # the world's models file is the one it was synced from
        settings.models_file.write_text(text, encoding="utf-8")
    with Session(initialized) as s:
        sync_registry(s, parse_registry(text))
        jobs = plan_jobs(s, settings.media_dir)
    keep: dict[str, list[str]] = {}
    for job in jobs:
        ids = keep.setdefault(job.request.modality, [])
        if job.prompt_id not in ids and len(ids) < 8:
            ids.append(job.prompt_id)
    jobs = [j for j in jobs if j.prompt_id in keep[j.request.modality]]
    providers = {f"model-{i}": ColourProvider(i) for i in range(7)}
    backfill = Backfill(initialized, MediaStore(settings.media_dir), providers)
    # In a thread of its own: Playwright's sync API may already run an event loop in this one.
    worker = threading.Thread(target=lambda: asyncio.run(backfill.run(jobs)))
    worker.start()
    worker.join()
    assert backfill.report.generated == len(jobs)
    return initialized


@pytest.fixture
def fake_chat() -> Iterator:
    """A started fake OpenAI-compatible Chat Completions server (tests/fakes/chat_server.py) for judge tests."""
    from tests.fakes.chat_server import FakeChatServer

    with FakeChatServer() as server:
        yield server
