"""The daily spend caps of open battles: reserved before any provider is called, exact under concurrency on one
database, and shared through Redis by workers that share nothing else (two apps on two databases)."""

from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import redis
from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.db import make_engine
from arena.db.tables import OpenBattle, OpenSpend
from arena.initialize import initialize
from arena.open_prompts.spend import Caps, DatabaseLedger
from arena.settings import Settings
from tests.support.open_world import open_arena, open_settings, register, sandbox, start

REDIS_URL = "redis://127.0.0.1:6379/0"
PRICE = 0.05
MODELS = "".join(sandbox(s, price=PRICE) for s in ("cap-a", "cap-b", "cap-c"))


def _reserved(engine: Engine) -> dict[str, float]:
    with Session(engine) as s:
        return {r.model_slug: r.reserved_usd for r in s.exec(select(OpenSpend))}


def test_the_database_ledger_never_overshoots_under_threads(engine: Engine, initialized: Engine) -> None:
    ledger = DatabaseLedger(initialized)
    caps = Caps(overall=1.0, per_model=10.0)
    barrier = threading.Barrier(8)

    def one(i: int) -> bool:
        if i < 8:
            barrier.wait()
        return ledger.reserve("2026-12-03", {f"m{i % 3}": 0.1}, caps)

    with ThreadPoolExecutor(8) as pool:
        won = sum(pool.map(one, range(25)))
    assert won == 10
    assert _reserved(initialized)["*"] == pytest.approx(1.0)
    ledger.release("2026-12-03", "m0", 0.1)
    assert ledger.reserve("2026-12-03", {"m1": 0.1}, caps) is True
    assert ledger.reserve("2026-12-03", {"m1": 0.1}, caps) is False


def test_the_overall_cap_stops_new_battles_and_says_so(settings: Settings, initialized: Engine) -> None:
    register(initialized, MODELS)
    capped = open_settings(settings, open_daily_cap_usd=0.25, open_model_daily_cap_usd=1.0)
    with open_arena(capped, initialized) as (client, _app):
        codes = [start(client).status_code for _ in range(2)]
        spent = start(client)
    assert codes == [202, 202]
    assert spent.status_code == 503 and "budget for open-prompt battles is spent" in spent.json()["detail"]
    assert _reserved(initialized)["*"] == pytest.approx(0.2)


def test_the_per_model_cap_leaves_capped_models_out(settings: Settings, initialized: Engine) -> None:
    register(initialized, MODELS)
    capped = open_settings(settings, open_daily_cap_usd=10.0, open_model_daily_cap_usd=0.1)
    with open_arena(capped, initialized) as (client, _app):
        codes = [start(client).status_code for _ in range(4)]
    assert codes == [202, 202, 202, 503]  # 3 models x 2 battles each = 6 sides = 3 battles
    reserved = _reserved(initialized)
    assert all(reserved[s] == pytest.approx(0.1) for s in ("cap-a", "cap-b", "cap-c"))


def _race(urls: list[str], n: int) -> list[int]:
    """`n` starts at once, each from a new session, spread over the workers."""
    barrier = threading.Barrier(n)
    for (
        url
    ) in urls:  # FastAPI builds a route's dependency schema on its first match, not thread-safely: warm up
        assert httpx.post(url + "/api/v1/open/battles", json={"prompt": ""}).status_code == 422

    def one(i: int) -> int:
        with httpx.Client(base_url=urls[i % len(urls)], timeout=30) as client:
            barrier.wait()
            return start(client, f"a harbour at noon, take {i}").status_code

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))


def test_concurrent_starts_on_one_database_stop_exactly_at_the_cap(
    settings: Settings, initialized: Engine
) -> None:
    register(initialized, MODELS)
    capped = open_settings(settings, open_daily_cap_usd=0.5, open_model_daily_cap_usd=10.0)
    with open_arena(capped, initialized) as (client, _app):
        codes = _race([str(client.base_url)], 12)
    assert sorted(codes) == [202] * 5 + [503] * 7
    assert _reserved(initialized)["*"] == pytest.approx(0.5)


@pytest.fixture
def shared_secret() -> str:
    secret = "open-spend-" + secrets.token_hex(8)
    yield secret
    client = redis.Redis.from_url(REDIS_URL)
    from arena.runtime.shared_state import namespace

    for key in client.scan_iter(namespace(secret) + ":*"):
        client.delete(key)


def test_two_workers_on_two_databases_share_the_cap_through_redis(
    settings: Settings, initialized: Engine, tmp_path: Path, shared_secret: str
) -> None:
    register(initialized, MODELS)
    other_settings = settings.model_copy(
        update={"database_url": f"sqlite:///{tmp_path / 'other.db'}", "media_dir": tmp_path / "other-media"}
    )
    other = make_engine(other_settings.database_url)
    initialize(other_settings, other)
    register(other, MODELS)
    common = {
        "open_daily_cap_usd": 0.5,
        "open_model_daily_cap_usd": 10.0,
        "redis_url": REDIS_URL,
        "secret_key": shared_secret,
    }
    one = open_settings(settings, **common)
    two = open_settings(other_settings, **common)
    with open_arena(one, initialized) as (c1, _a1), open_arena(two, other) as (c2, _a2):
        codes = _race([str(c1.base_url), str(c2.base_url)], 12)
        for engine in (initialized, other):  # each worker's battles still run to the end
            _wait_generated(engine)
    assert sorted(codes) == [202] * 5 + [503] * 7  # one budget across two databases: only Redis held it
    assert _reserved(initialized).get("*", 0.0) + _reserved(other).get("*", 0.0) == pytest.approx(0.5)
    from arena.runtime.shared_state import namespace

    day = next(iter(_days(initialized) | _days(other)))
    stored = redis.Redis.from_url(REDIS_URL).get(f"{namespace(shared_secret)}:open-spend:{day}:*")
    assert stored is not None and int(stored) == 500_000
    other.dispose()


def _wait_generated(engine: Engine, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while True:
        with Session(engine) as s:
            statuses = [b.status for b in s.exec(select(OpenBattle))]
        if "generating" not in statuses:
            assert set(statuses) <= {"ready"}
            return
        assert time.monotonic() < deadline, statuses
        time.sleep(0.1)


def _days(engine: Engine) -> set[str]:
    with Session(engine) as s:
        return {r.day for r in s.exec(select(OpenSpend))}
