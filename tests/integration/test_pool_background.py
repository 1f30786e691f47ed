"""The matchmaking pool is rebuilt off the request path: a stale pool is served at once while exactly one
background rebuild runs, and the votes cast per pair are counted incrementally to the same totals as a recount."""

import threading

from sqlmodel import Session, func, select

from arena.db.tables import Vote
from arena.voting.matchmaking import pair_key
from arena.voting.matchup_cache import PoolCache
from tests.integration.test_snapshots import _votes


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_stale_pool_is_served_at_once_while_one_background_rebuild_runs(world):
    clock = Clock()
    cache = PoolCache(world, ttl=15.0, clock=clock)
    first = cache.get("text_to_image")
    assert first.cells and cache.refreshes == 1
    release, started = threading.Event(), threading.Event()
    real_load = cache.load
    calls = []

    def slow_load(modality):
        calls.append(modality)
        started.set()
        release.wait(60)
        return real_load(modality)

    cache.load = slow_load
    clock.now = 20.0  # past the ttl
    served = [cache.get("text_to_image") for _ in range(50)]  # none of these waits for the rebuild
    assert started.wait(30)
    assert all(p is first for p in served) and calls == ["text_to_image"]
    release.set()
    for _ in range(600):
        if cache.refreshes == 2:
            break
        threading.Event().wait(0.05)
    assert cache.refreshes == 2 and cache.get("text_to_image") is not first


def test_votes_cast_counted_incrementally_equal_a_full_recount(settings, world):
    settings = settings.model_copy(update={"demo_mode": True})
    cache = PoolCache(world)
    with world.connect() as conn:
        assert cache.votes_cast(conn, "text_to_image") == {}
    _votes(settings, world, n=60)
    with world.connect() as conn:
        after_first = cache.votes_cast(conn, "text_to_image")
    _votes(settings, world, n=40)
    with world.connect() as conn:
        incremental = cache.votes_cast(conn, "text_to_image")
    with Session(world) as s:
        recount: dict = {}
        for a, b, n in s.exec(
            select(Vote.model_a, Vote.model_b, func.count()).group_by(Vote.model_a, Vote.model_b)
        ):
            recount[pair_key(a, b)] = recount.get(pair_key(a, b), 0) + n
    assert sum(after_first.values()) == 60 and sum(incremental.values()) == 100
    assert incremental == recount
