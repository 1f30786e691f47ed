"""A model with 3 votes and the highest point estimate never outranks a settled model (issue 28, item 3): the page,
the JSON API, the CSV, the chart data and `arena export` list it after every rated model, with no rank and the
reason, on both databases."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from arena.app import create_app
from arena.cli.main import app as cli
from tests.conftest import serve
from tests.support.unrated_board import MIN_VOTES, NEWCOMER, UnratedWorld, build

SETTLED = 6


@pytest.fixture
def world(database_url: str, tmp_path: Path) -> Iterator[UnratedWorld]:
    """The board stored as the snapshot job stores it."""
    w = build(database_url, tmp_path / "world")
    yield w
    w.engine.dispose()


@pytest.fixture
def client(world: UnratedWorld) -> Iterator[httpx.Client]:
    """A client of the app over the world."""
    app = create_app(world.settings, engine=world.engine, clock=world.clock)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def test_the_fit_gives_the_three_vote_model_the_top_point_estimate(world):
    top = world.board.rows[0]  # the ratings package orders by point estimate
    assert top.model == NEWCOMER and top.votes == 3 and top.provisional


def test_the_api_lists_it_after_every_rated_model_with_rank_null_and_the_reason(client):
    rows = client.get("/api/v1/leaderboard").json()["rows"]
    models = [r["model"] for r in rows]
    assert models.index(NEWCOMER) == len(rows) - 1 == SETTLED
    newcomer = rows[-1]
    assert newcomer["rank"] is None and newcomer["published_rank"] is None and newcomer["rated"] is False
    assert f"3 of {MIN_VOTES} votes" in newcomer["unrated_reason"]
    assert "interval unbounded" in newcomer["unrated_reason"]
    rated = rows[:-1]
    assert all(r["rated"] and isinstance(r["rank"], int) and r["unrated_reason"] is None for r in rated)
    # the settled models are ranked among themselves: the newcomer's unbounded replicates no longer make every
    # lead insignificant (which gave all seven models rank 1)
    assert rated[0]["rank"] == 1 and max(r["rank"] for r in rated) > 1
    # whatever the sort, the unrated model stays after the rated ones
    by_rating = client.get("/api/v1/leaderboard", params={"sort": "rating", "order": "desc"}).json()["rows"]
    assert by_rating[-1]["model"] == NEWCOMER
    by_votes = client.get("/api/v1/leaderboard", params={"sort": "votes", "order": "asc"}).json()["rows"]
    assert by_votes[-1]["model"] == NEWCOMER


def test_the_csv_leaves_its_rank_empty_and_says_why(client):
    text = client.get("/api/v1/leaderboard.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[-1]["model"] == NEWCOMER
    assert rows[-1]["rank"] == "" and rows[-1]["rated"] == "False"
    assert rows[-1]["unrated_reason"].startswith(f"3 of {MIN_VOTES} votes")
    assert all(r["rank"].isdigit() and r["rated"] == "True" for r in rows[:-1])


def test_the_page_lists_it_in_a_not_yet_rated_group_after_the_ranked_models(client):
    html = client.get("/leaderboard").text
    rated = html[html.index('<tbody id="lb-rated">') : html.index('<tbody id="lb-unrated"')]
    unrated = html[html.index('<tbody id="lb-unrated"') :]
    unrated = unrated[: unrated.index("</tbody>")]
    assert f'data-model="{NEWCOMER}"' not in rated and f'data-model="{NEWCOMER}"' in unrated
    assert len(re.findall(r'<tr data-model="', rated)) == SETTLED
    assert "Not yet rated" in unrated and f"3 of {MIN_VOTES} votes" in unrated
    assert 'data-rank=""' in unrated
    # the chart data draws the rated models only and names the other apart
    charts = json.loads(re.search(r'id="lb-chart-data">(.*?)</script>', html, re.S).group(1))
    assert NEWCOMER not in json.dumps(charts["ratings"]) and "Seedream" not in json.dumps(charts["ratings"])
    assert len(charts["ratings"]) == SETTLED
    assert [u["name"] for u in charts["unrated"]] == ["Seedream 4.0 External Import (5 imported images)"]
    assert 'id="charts-unrated"' in html


def test_the_model_page_and_its_api_say_not_yet_rated(client):
    boards = client.get(f"/api/v1/models/{NEWCOMER}").json()["boards"]
    overall = next(b for b in boards if b["board"] == "overall")
    assert overall["rank"] is None and overall["rated"] is False
    assert "not yet rated" in client.get(f"/models/{NEWCOMER}").text


def test_the_export_lists_it_last_with_rank_null(world, tmp_path, monkeypatch):
    for key, value in {
        "ARENA_DATABASE_URL": world.settings.database_url,
        "ARENA_MEDIA_DIR": str(world.settings.media_dir),
        "ARENA_MODELS_FILE": str(world.settings.models_file),
    }.items():
        monkeypatch.setenv(key, value)
    out = tmp_path / "export"
    result = CliRunner().invoke(cli, ["export", "--out", str(out)])
    assert result.exit_code == 0, result.output
    snapshot = json.loads((out / "snapshot.json").read_text())
    rows = snapshot["modalities"]["text_to_image"]["boards"]["overall"]["rows"]
    assert rows[-1]["model"] == NEWCOMER and rows[-1]["rank"] is None and rows[-1]["rated"] is False
    assert all(r["rated"] and r["rank"] >= 1 for r in rows[:-1])
    assert "rated: false, rank: null" in (out / "README.txt").read_text()
