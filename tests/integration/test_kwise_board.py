"""The K-wise board over real HTTP on both databases (issue 31): rankings drawn by Plackett-Luce from known model
strengths come back in their true order on GET /api/v1/kwise/board, never pooled with the pairwise board; a
session that always ranks by screen position is filtered by the position rule and left out of the fit; models in
fewer rankings than ARENA_KWISE_MIN_RANKINGS are not yet rated; the endpoint is 404 while the mode is off."""

from __future__ import annotations

import json
from datetime import timedelta

import httpx
import numpy as np
import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from arena.app import create_app
from arena.cli.main import app
from arena.db.tables import KwiseVerdict, Vote
from arena.voting.kwise_service import KwiseService
from arena.voting.matchup_cache import PoolCache
from arena.voting.service_types import Voter
from arena.web.leaderboard.kwise import forget_boards
from prompts_taxonomy import load_taxonomy
from tests.conftest import serve

STRENGTH = {"model-0": 2.0, "model-1": 1.0, "model-2": 0.0, "model-3": -1.0}  # log-strengths (nats)


def _play(
    service: KwiseService, frozen, rng, *, sessions: int, per_session: int, by_position: str | None = None
):
    for s in range(sessions):
        voter = Voter(f"{by_position or 'honest'}-{s}", f"addr-{by_position}-{s}", "simulated")
        for _ in range(per_session):
            m = service.serve(voter, "text_to_image", rng, frozen())
            for url in m["images"]:
                service.fetch_image(url.rsplit("/", 1)[1], voter.session_id, frozen())
            frozen.advance(timedelta(seconds=10))
            models = service.peek_models(m["id"])
            if by_position:
                order = list(range(len(models)))
            else:  # Plackett-Luce: pick the best of the rest by strength, one place at a time
                left, order = list(range(len(models))), []
                while left:
                    w = np.exp([STRENGTH[models[i]] for i in left])
                    order.append(left.pop(int(rng.choice(len(left), p=w / w.sum()))))
            answer = service.cast(voter, m["id"], order, False, frozen())
            assert answer["counted"] is True


@pytest.fixture
def kwise_settings(settings):
    return settings.model_copy(update={"kwise": True, "demo_mode": True, "kwise_min_rankings": 50})


def test_the_board_recovers_the_true_order_and_filters_a_position_voter(kwise_settings, world, frozen):
    forget_boards()
    service = KwiseService(world, kwise_settings, load_taxonomy(), PoolCache(world, background=False))
    rng = np.random.default_rng(7)
    _play(service, frozen, rng, sessions=30, per_session=8)
    _play(service, frozen, rng, sessions=1, per_session=12, by_position="lazy")
    with serve(create_app(kwise_settings, engine=world, clock=frozen)) as url:
        board = httpx.get(url + "/api/v1/kwise/board", params={"modality": "text_to_image"}).json()
        assert httpx.get(url + "/api/v1/kwise/board", params={"modality": "nope"}).status_code == 404
        page = httpx.get(url + "/leaderboard").text
    section = page[page.index('id="kwise-board"') :]
    assert "Rank four board" in section and "240 rankings fitted" in section and "12 filtered" in section
    assert (
        section.index("Model 0")
        < section.index("Model 1")
        < section.index("Model 2")
        < section.index("Model 3")
    )
    assert [r["slug"] for r in board["rows"]] == ["model-0", "model-1", "model-2", "model-3"]
    assert all(r["rated"] for r in board["rows"])
    assert board["rankings"] == 240 and board["filtered"] == 12
    # 1 nat = 400 / ln 10 Elo; the truth's gaps are one nat each, the fit within its intervals
    gap = board["rows"][0]["rating"] - board["rows"][1]["rating"]
    assert 100 < gap < 300
    with world.connect() as conn:
        flagged = conn.execute(
            select(KwiseVerdict.vote_id, KwiseVerdict.filter).where(KwiseVerdict.kept == False)  # noqa: E712
        ).all()
        # the twelve position-ranked votes, each caught by the position rule (the pair rules may catch them too:
        # ranking by position ignores which model is better); no honest vote is filtered
        assert len({v for v, _ in flagged}) == 12
        assert len({v for v, f in flagged if f == "kwise_position"}) == 12
        assert conn.execute(select(func.count()).select_from(Vote)).scalar_one() == 0  # never pooled


def test_models_in_too_few_rankings_are_not_yet_rated_and_the_board_is_off_by_default(
    kwise_settings, settings, world, frozen
):
    forget_boards()
    strict = kwise_settings.model_copy(update={"kwise_min_rankings": 1000})
    service = KwiseService(world, strict, load_taxonomy(), PoolCache(world, background=False))
    _play(service, frozen, np.random.default_rng(1), sessions=3, per_session=4)
    with serve(create_app(strict, engine=world, clock=frozen)) as url:
        board = httpx.get(url + "/api/v1/kwise/board").json()
    assert board["rows"] and not any(r["rated"] for r in board["rows"])
    assert all("fewer than 1000" in r["why_not_rated"] and "rank" not in r for r in board["rows"])
    forget_boards()
    with serve(create_app(settings, engine=world, clock=frozen)) as url:
        assert httpx.get(url + "/api/v1/kwise/board").status_code == 404
        assert 'id="kwise-board"' not in httpx.get(url + "/leaderboard").text
        assert "Rank four" not in httpx.get(url + "/").text


def _position_flagged(engine) -> set[int]:
    with engine.connect() as conn:
        rows = conn.execute(select(KwiseVerdict.vote_id).where(KwiseVerdict.filter == "kwise_position"))
        return {v for (v,) in rows}


def test_votes_filter_re_runs_the_kwise_batch_filters_too(
    kwise_settings, settings, world, frozen, monkeypatch
):
    """`arena votes filter` rewrites the K-wise verdicts as the board does and reports the rankings it filters."""
    service = KwiseService(world, kwise_settings, load_taxonomy(), PoolCache(world, background=False))
    rng = np.random.default_rng(3)
    _play(service, frozen, rng, sessions=6, per_session=6)
    _play(service, frozen, rng, sessions=1, per_session=12, by_position="lazy")
    assert _position_flagged(world) == set()  # nothing has run the batch filters yet
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    monkeypatch.setenv("ARENA_MODELS_FILE", str(settings.models_file))
    result = CliRunner().invoke(app, ["votes", "filter", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["kwise_votes"] == 6 * 6 + 12 and out["kwise_filtered_votes"] == 12
    assert len(_position_flagged(world)) == 12
    text = CliRunner().invoke(app, ["votes", "filter"], catch_exceptions=False).stdout
    assert "48 K-wise rankings, 12 filtered by at least one filter" in text  # a second run: the same verdicts
