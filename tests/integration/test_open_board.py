"""The open-prompt board over real HTTP and the CLI, on both databases: fitted on open votes only (never pooled
with the curated boards), the same Bradley-Terry point estimates as an independent fit, one cluster per battle,
slices by the tagged use case, and the not-yet-rated rule."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from typer.testing import CliRunner

from arena.app import create_app
from arena.cli.main import app as cli
from arena.leaderboard.snapshots import take_snapshot
from tests.conftest import serve
from tests.support.open_board_world import MIN_VOTES, N_VOTES, NEWCOMER, STRENGTH, OpenWorld, build

ELO = 400 / math.log(10)


@pytest.fixture
def world(database_url: str, tmp_path: Path) -> Iterator[OpenWorld]:
    w = build(database_url, tmp_path / "world")
    yield w
    w.engine.dispose()


@pytest.fixture
def client(world: OpenWorld) -> Iterator[httpx.Client]:
    app = create_app(world.settings, engine=world.engine, clock=lambda: world.clock)
    with serve(app) as url, httpx.Client(base_url=url, timeout=60) as c:
        yield c


def mm_fit(votes: list[tuple[str, str, str, str]], models: list[str]) -> dict[str, float]:
    """Bradley-Terry by Hunter's MM iterations (no ties), log-strengths with model-0 at zero: an implementation
    independent of `ratings`."""
    idx = {m: k for k, m in enumerate(models)}
    wins = np.zeros((len(models), len(models)))
    for a, b, winner, _ in votes:
        if a in idx and b in idx:
            won, lost = (a, b) if winner == "model_a" else (b, a)
            wins[idx[won], idx[lost]] += 1
    games = wins + wins.T
    p = np.ones(len(models))
    for _ in range(5000):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        p = wins.sum(axis=1) / denom
        p /= p[0]
    return {m: float(np.log(p[idx[m]])) for m in models}


def test_the_open_board_is_the_open_votes_fit(world, client):
    out = client.get("/api/v1/open/board", params={"modality": "text_to_image"}).json()
    assert out["pooled_with_curated"] is False
    assert out["vote_count"] == N_VOTES + 3
    assert out["clusters"] == N_VOTES + 3  # one output per battle: every vote its own cluster
    rows = {r["model"]: r for r in out["rows"]}
    truth = mm_fit(world.votes, [*STRENGTH, NEWCOMER])
    for model in ("model-1", "model-2", NEWCOMER):
        got = rows[model]["rating"] - rows["model-0"]["rating"]
        assert got == pytest.approx(ELO * truth[model], abs=0.3)
    # the known truth is inside the intervals of the settled models' gaps (stated strengths 0, 0.5, 1.0 nats)
    assert [r["model"] for r in out["rows"][:3]] == ["model-2", "model-1", "model-0"]
    assert all(r["votes"] >= MIN_VOTES for r in out["rows"][:3])


def test_a_model_with_three_votes_is_listed_last_not_yet_rated(client):
    rows = client.get("/api/v1/open/board").json()["rows"]
    assert rows[-1]["model"] == NEWCOMER
    assert rows[-1]["rank"] is None and rows[-1]["rated"] is False
    assert f"3 of {MIN_VOTES} votes" in rows[-1]["unrated_reason"]
    assert all(r["rated"] and r["rank"] >= 1 for r in rows[:-1])
    assert rows[0]["rank"] == 1


def test_slices_hold_only_their_tagged_votes(world, client):
    out = client.get("/api/v1/open/board", params={"board": "use_case=consumer"}).json()
    expected = sum(1 for v in world.votes if v[3] == "consumer")
    assert out["vote_count"] == expected == out["slices"]["use_case"]["consumer"]
    assert sum(r["votes"] for r in out["rows"]) == 2 * expected - 0  # each vote counts for both its models
    assert client.get("/api/v1/open/board", params={"board": "use_case=nope"}).status_code == 404
    assert client.get("/api/v1/open/board", params={"board": "weird"}).status_code == 404
    assert client.get("/api/v1/open/board", params={"modality": "video"}).status_code in (404, 422)
    empty = client.get("/api/v1/open/board", params={"board": "capability=physics"}).json()
    assert empty["rows"] == [] and empty["note"]


def test_open_votes_never_reach_the_curated_boards(world, client):
    report = take_snapshot(world.engine, world.settings, refilter=False, now=world.clock)
    assert report.boards == {}
    assert report.failures["text_to_image/overall"] == "no kept votes"
    assert client.get("/api/v1/leaderboard").status_code == 404


def test_the_cli_prints_the_same_board(world, client, monkeypatch):
    for key, value in {
        "ARENA_DATABASE_URL": world.settings.database_url,
        "ARENA_MEDIA_DIR": str(world.settings.media_dir),
        "ARENA_MODELS_FILE": str(world.settings.models_file),
        "ARENA_MIN_VOTES": str(MIN_VOTES),
        "ARENA_BOOTSTRAP_ROUNDS": "200",
        "ARENA_OVERALL_ANCHOR": "model-0",
        "ARENA_SLICE_ANCHOR": "model-0",
    }.items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(cli, ["open", "board", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rows"] == client.get("/api/v1/open/board").json()["rows"]
    text = CliRunner().invoke(cli, ["open", "board"])
    assert "never pooled" in text.output and "not yet rated: 3 of 40 votes" in text.output
    bad = CliRunner().invoke(cli, ["open", "board", "--board", "use_case=nope"])
    assert bad.exit_code != 0 and "error: no open board" in bad.output


def test_the_leaderboard_page_has_an_open_prompts_section(client):
    page = client.get("/leaderboard")
    assert page.status_code == 200
    section = page.text[page.text.index('id="open-prompts"') :]
    assert "never pooled with the boards above" in section
    assert f"{N_VOTES + 3} vote(s)" in section
    rows = re.findall(
        r"<tr( class=\"unrated\")?><td>([^<]*)</td><th scope=\"row\"><a href=\"/models/([^\"]+)\"", section
    )
    assert [(r[1], r[2]) for r in rows] == [
        ("1", "model-2"),
        ("2", "model-1"),
        ("3", "model-0"),
        ("–", NEWCOMER),
    ]
    assert "not yet rated: 3 of 40 votes" in section
    assert "board=use_case%3Dconsumer" in section
