"""The variety rules through the real serve path on both databases: on a demo-sized field (6 text-to-image
models, 15 pairs) whose vote plan wants a single pair, 2,000 matchups served to 100 sessions of 20 respect the
window cap in every window of 200 and the per-session rules (tests/unit/test_matchmaking_variety.py runs the same
rules in memory); the operators' audit shows realised pair shares next to planned ones."""

from datetime import timedelta

import httpx
import numpy as np
import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import aliased

from arena.db.tables import Matchup, Output, utcnow
from arena.voting.matchup_cache import ModalityPool, PoolCache
from arena.voting.service import ArenaService, Voter
from prompts_taxonomy import load_taxonomy
from tests.support.demo_field import build_demo_field
from tests.support.variety import session_breaches, worst_window

FAVOURED = ("model-4", "model-5")


class OnePairPlan(PoolCache):
    """The pool as loaded, with the vote plan the issue saw: everything on one pair."""

    def load(self, modality: str) -> ModalityPool:
        pool = super().load(modality)
        models = sorted(pool.models)
        pool.plan = {(a, b): 0.0 for i, a in enumerate(models) for b in models[i + 1 :]} | {FAVOURED: 1.0}
        return pool


def _served(engine: Engine) -> tuple[list[tuple[str, str]], dict[str, list[tuple[str, str]]]]:
    left, right = aliased(Output), aliased(Output)
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                Matchup.session_id, left.model_slug, right.model_slug, Matchup.left_model, Matchup.right_model
            )
            .join(left, left.id == Matchup.left_output_id)
            .join(right, right.id == Matchup.right_output_id)
            .order_by(Matchup.served_at)
        ).all()
    # The rules read the models each matchup stores; they must be its outputs' models.
    assert [(a, b) for _, a, b, _, _ in rows] == [(sa, sb) for _, _, _, sa, sb in rows]
    rows = [(session, a, b) for session, a, b, _, _ in rows]
    sessions: dict[str, list[tuple[str, str]]] = {}
    for session, a, b in rows:
        sessions.setdefault(session, []).append((a, b))
    return [(a, b) for _, a, b in rows], sessions


def test_two_thousand_served_matchups_keep_the_window_cap_and_the_session_rules(settings, initialized):
    build_demo_field(settings, initialized)
    service = ArenaService(initialized, settings, load_taxonomy(), pool=OnePairPlan(initialized))
    rng = np.random.default_rng(7)
    now = utcnow()
    step = 0
    for group in range(10):  # 10 groups of 10 sessions served interleaved: 100 sessions x 20 = 2,000
        names = [f"session-{group}-{k}" for k in range(10)]
        for _ in range(20):
            for name in rng.permutation(names):
                step += 1
                service.serve_matchup(
                    Voter(str(name)), "text_to_image", rng, now + timedelta(milliseconds=step)
                )
    served, sessions = _served(initialized)
    assert len(served) == 2000 and len(sessions) == 100
    assert worst_window(served) <= 40  # 3 x 200 / 15
    for name, sequence in sessions.items():
        assert len(sequence) == 20
        assert session_breaches(sequence, 15) == [], name
    favoured = sum(1 for p in served[200:] if set(p) == set(FAVOURED)) / 1800
    assert 0.15 < favoured <= 0.2  # the plan still gets its way, up to the cap


class StalePool(OnePairPlan):
    """A pool that never refreshes (as if its 15 s had not passed), whose plan wants (model-0, model-1)."""

    favoured = ("model-0", "model-1")

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, ttl=3600.0)

    def load(self, modality: str) -> ModalityPool:
        pool = super().load(modality)
        pool.plan = dict.fromkeys(pool.plan, 0.0) | {self.favoured: 1.0}
        return pool


def test_model_shares_are_counted_live_in_every_process(settings, initialized):
    """Issue 24: the share cap read the pool's shares, up to 15 s old, while every matchup moves them. Two
    services (two server processes) over one database, pools never refreshed, a plan that wants one pair, and
    one-matchup sessions (so no session rule binds): each serve must see every matchup served before it, by
    either process, and keep model-0 at the cap (1.1 x 2 / 4 = 0.55 of the last 199 matchups)."""
    build_demo_field(settings, initialized, models=4, prompts=4)
    settings = settings.model_copy(update={"model_share_factor": 1.1})
    services = [
        ArenaService(initialized, settings, load_taxonomy(), pool=StalePool(initialized)) for _ in range(2)
    ]
    for service in services:  # both pools loaded before any matchup: they hold the shares of an empty window
        service.pool.get("text_to_image")
    rng = np.random.default_rng(3)
    now = utcnow()
    for k in range(400):
        services[k % 2].serve_matchup(
            Voter(f"one-{k}"), "text_to_image", rng, now + timedelta(milliseconds=k)
        )
    served, _ = _served(initialized)
    assert all(service.pool.refreshes == 1 for service in services)  # each loaded its pool once, at the start
    models = [f"model-{i}" for i in range(4)]
    for k in range(199, 400):
        before = served[k - 199 : k]
        shares = {m: sum(1 for p in before if m in p) / 199 for m in models}
        if shares["model-0"] > 0.55 and sum(1 for m in models if shares[m] <= 0.55) >= 2:
            assert "model-0" not in served[k], (k, shares)
    last = served[200:]
    assert sum(1 for p in last if "model-0" in p) / 200 <= 0.57
    # Without the cap the plan's pair would fill the window cap (99 of 199) and model-0 would be in ~70%.
    assert sum(1 for p in last if set(p) == set(StalePool.favoured)) / 200 > 0.3


def test_the_sampling_audit_shows_realised_pair_shares_beside_planned_ones(voter_world):
    client, engine = voter_world
    for _ in range(12):
        assert client.post("/api/v1/matchups", json={"modality": "text_to_image"}).status_code == 200
    audit = client.get(
        "/api/v1/admin/sampling", headers={"Authorization": "Bearer test-operator-token"}
    ).json()
    pairs = audit["pairs"]
    served, _ = _served(engine)
    assert pairs["window"] == 200 and pairs["window_cap"] == 100 and pairs["served_in_window"] == 12
    counted = {tuple(r["pair"]): r["in_window"] for r in pairs["rows"]}
    expected: dict[tuple[str, str], int] = {}
    for a, b in served:
        key = (a, b) if a < b else (b, a)
        expected[key] = expected.get(key, 0) + 1
    assert {k: v for k, v in counted.items() if v} == expected
    assert abs(sum(r["realised_share"] for r in pairs["rows"]) - 1.0) < 1e-3
    assert all(r["planned_share"] == 0.0 for r in pairs["rows"])  # no snapshot yet, so no plan


def test_the_sampling_audit_needs_the_operator_token(voter_world):
    client, _ = voter_world
    assert client.get("/api/v1/admin/sampling").status_code == 401


@pytest.fixture
def voter_world(live_world, world):
    with httpx.Client(base_url=live_world, timeout=20) as client:
        yield client, world
