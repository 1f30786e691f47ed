"""State that processes share through Redis (127.0.0.1:6379) besides the database: the matchmaking vote plan is
computed by one process and used by all, and a snapshot taken anywhere retires every process's cached
leaderboard pages at once. Two apps on one database stand for two workers (each has its own pool and caches,
exactly as two processes do)."""

import re
import secrets
import threading

import httpx
import pytest

from arena.app import create_app
from arena.leaderboard import reader as reader_module
from arena.leaderboard.snapshots import take_snapshot
from arena.runtime.shared_state import PageGeneration, SharedRedis, shared_redis
from arena.voting.shared_plan import SharedPlan
from arena.web.context import context_of
from tests.conftest import serve
from tests.integration.test_snapshots import _votes

REDIS = "redis://127.0.0.1:6379/0"
MODALITY = "text_to_image"


@pytest.fixture
def rated(settings, world):
    """Settings of a fresh arena namespace in Redis over a world with 120 simulated votes and a snapshot, so
    the vote plan has ratings to work from."""
    settings = settings.model_copy(
        update={
            "demo_mode": True,
            "bootstrap_rounds": 20,
            "overall_anchor": "model-1",
            "slice_anchor": "model-1",
            "secret_key": secrets.token_hex(16),
        }
    )
    _votes(settings, world, n=120)
    assert "text_to_image/overall" in take_snapshot(world, settings, modality=MODALITY).boards
    return settings


def _matchup(url: str) -> None:
    r = httpx.post(f"{url}/api/v1/matchups", json={"modality": MODALITY}, timeout=30)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("shared", [True, False])
def test_two_workers_draw_matchups_from_one_plan_only_with_redis(rated, world, shared):
    settings = rated.model_copy(update={"redis_url": REDIS if shared else ""})
    one, two = create_app(settings, engine=world), create_app(settings, engine=world)
    with serve(one) as url_one, serve(two) as url_two:
        _matchup(url_one)
        _matchup(url_two)
    first, second = context_of(one).pool.get(MODALITY), context_of(two).pool.get(MODALITY)
    assert first.plan and second.plan == first.plan
    if shared:
        assert first.plan_version is not None and second.plan_version == first.plan_version
        computed = context_of(one).pool.plan_source.computed + context_of(two).pool.plan_source.computed
        assert computed == 1  # the second worker read the first one's plan instead of computing its own
    else:
        assert first.plan_version is None and second.plan_version is None  # each computed its own


def test_a_worker_waits_for_the_plan_another_is_computing_instead_of_computing_its_own():
    shared = SharedRedis(shared_redis_client(), f"arena:test:{secrets.token_hex(6)}")
    one, two = SharedPlan(shared, wait=30), SharedPlan(shared, wait=30)
    inside, release = threading.Event(), threading.Event()
    results: dict[str, object] = {}

    def slow() -> dict:
        inside.set()
        release.wait(30)
        return {("a", "b"): 1.0}

    def computed_twice() -> dict:
        raise AssertionError("the waiting worker computed its own plan")

    def run(name: str, source: SharedPlan, compute) -> None:
        try:  # an exception is kept, so the assertion below names it instead of a bare thread warning
            results[name] = source.plan(MODALITY, compute, fresh=False)
        except BaseException as exc:  # reported by the assertion below
            results[name] = exc

    worker = threading.Thread(target=run, args=("one", one, slow))
    worker.start()
    assert inside.wait(30)
    waiting = threading.Thread(target=run, args=("two", two, computed_twice))
    waiting.start()
    release.set()
    worker.join(60)
    waiting.join(60)
    assert results == {"one": ({("a", "b"): 1.0}, 1), "two": ({("a", "b"): 1.0}, 1)}, results
    assert (one.fallbacks, two.fallbacks) == (0, 0)
    again = two.plan(MODALITY, lambda: {("a", "b"): 0.5}, fresh=True)  # after an operator's change
    assert again == ({("a", "b"): 0.5}, 2) and one.plan(MODALITY, dict, fresh=False) == again


def test_an_unreachable_redis_leaves_each_process_computing_its_own_plan():
    import redis

    client = redis.Redis.from_url("redis://127.0.0.1:1/0", socket_timeout=0.2, socket_connect_timeout=0.2)
    source = SharedPlan(SharedRedis(client, "arena:test:down"))
    assert source.plan(MODALITY, lambda: {("a", "b"): 1.0}, fresh=False) == ({("a", "b"): 1.0}, None)
    assert source.fallbacks == 1


def shared_redis_client():
    import redis

    return redis.Redis.from_url(
        REDIS, socket_timeout=10, socket_connect_timeout=10
    )  # a loaded CI machine stalls


def _vote_count(page: str) -> int:
    found = re.search(r'id="vote-count">([0-9,]+)<', page)
    assert found, "no vote count on the page"
    return int(found.group(1).replace(",", ""))


def _page(url: str) -> str:
    r = httpx.get(f"{url}/leaderboard", timeout=30)
    assert r.status_code == 200, r.text
    return r.text


@pytest.mark.parametrize("shared", [True, False])
def test_a_snapshot_taken_anywhere_retires_every_workers_cached_pages(rated, world, monkeypatch, shared):
    # The database is re-read only hourly here: with Redis the generation alone must carry the change.
    monkeypatch.setattr(reader_module, "DB_RECHECK_SECONDS", 3600.0)
    settings = rated.model_copy(update={"redis_url": REDIS if shared else ""})
    one, two = create_app(settings, engine=world), create_app(settings, engine=world)
    with serve(one) as url_one, serve(two) as url_two:
        before = _page(url_two)
        assert _page(url_one) and _page(url_two) == before  # cached
        _votes(settings, world, n=60)
        take_snapshot(world, settings, modality=MODALITY)  # as the scheduler does, in a third process
        after = _page(url_two)
    assert 0 < _vote_count(before) < _vote_count(after)  # the second worker shows the new snapshot at once


def test_an_operator_change_that_invalidates_the_pool_advances_the_shared_generation(settings, world):
    settings = settings.model_copy(update={"redis_url": REDIS, "secret_key": secrets.token_hex(16)})
    app = create_app(settings, engine=world)
    generation = PageGeneration(shared_redis(settings))
    context_of(app).pool.get(MODALITY)
    start = generation.current()
    context_of(app).pool.invalidate()  # what model, prompt and retirement changes call
    assert generation.current() == start + 1


def test_with_redis_unreachable_pages_are_keyed_by_the_database_on_every_request(rated, world, monkeypatch):
    monkeypatch.setattr(reader_module, "DB_RECHECK_SECONDS", 3600.0)  # only the per-request read can see it
    settings = rated.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"})  # nothing listens there
    app = create_app(settings, engine=world)
    with serve(app) as url:
        before = _page(url)
        _votes(settings, world, n=60)
        take_snapshot(world, settings, modality=MODALITY)  # cannot advance the generation: logged, not raised
        after = _page(url)
    assert 0 < _vote_count(before) < _vote_count(after)
