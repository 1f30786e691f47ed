"""A database that stops answering or a full SQLite disk gives 503 with Retry-After (never a bare 500), while
/healthz still answers and /readyz says what is wrong."""

import socket

import httpx
import pytest
from sqlalchemy import event, text

from arena.app import create_app
from arena.db import make_engine
from tests.conftest import serve


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again on exit: connections are refused


def test_an_unreachable_postgresql_answers_503_with_retry_after(settings):
    url = f"postgresql+psycopg://postgres@127.0.0.1:{_closed_port()}/test"
    down = settings.model_copy(update={"database_url": url})
    app = create_app(down, engine=make_engine(url))
    with serve(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        for method, path, body in [
            ("POST", "/api/v1/matchups", {"modality": "text_to_image"}),
            ("GET", "/api/v1/leaderboard", None),
            ("GET", "/api/v1/health", None),
            ("GET", "/api/v1/prompts/coverage", None),
        ]:
            response = client.request(method, path, json=body)
            assert response.status_code == 503, (path, response.text)
            assert int(response.headers["retry-after"]) > 0
            assert "unreachable" in response.json()["detail"]
        assert client.get("/healthz").json() == {"status": "ok"}
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["database"] == "unreachable"


def test_a_full_sqlite_database_answers_503_and_readyz_says_full(settings, world, live_world):
    if not settings.is_sqlite:
        pytest.skip("the disk-full case is SQLite's (PostgreSQL's outage is the test above)")
    with httpx.Client(base_url=live_world, timeout=30) as client:
        assert client.get("/readyz").json()["status"] == "ready"
        assert client.post("/api/v1/matchups", json={"modality": "text_to_image"}).status_code == 200
        # SQLITE_FULL for real: cap the file at the pages it has, on every connection of the app's pool.
        with world.connect() as conn:
            pages = conn.execute(text("PRAGMA page_count")).scalar_one()
        world.dispose()
        event.listen(world, "connect", lambda dbapi, _r: dbapi.execute(f"PRAGMA max_page_count={pages}"))
        statuses = []
        for _ in range(40):  # a fresh session each time, so only the address limit applies
            with httpx.Client(base_url=live_world, timeout=30) as fresh:
                statuses.append(
                    fresh.post("/api/v1/matchups", json={"modality": "text_to_image"}).status_code
                )
            if statuses[-1] == 503:
                break
        assert statuses[-1] == 503 and set(statuses) <= {200, 503}, statuses
        with httpx.Client(base_url=live_world, timeout=30) as fresh:
            full = fresh.post("/api/v1/matchups", json={"modality": "text_to_image"})
        assert full.status_code == 503 and "full" in full.json()["detail"] and full.headers["retry-after"]
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["storage"].startswith("full")
        assert client.get("/healthz").status_code == 200
