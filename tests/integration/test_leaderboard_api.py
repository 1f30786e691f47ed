"""The leaderboard JSON API and CSV downloads on both databases: the published digits, the toggle, prices and
timing, the OpenAPI documentation, and 404/422 answers."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select

from arena.app import create_app
from arena.db.tables import Prompt, RatingSnapshot
from arena.leaderboard.latency import latency_stats
from arena.web.leaderboard.api import CSV_COLUMNS
from tests.conftest import serve
from tests.support.leaderboard_world import MODELS, LeaderboardWorld

PRICES = {m[0]: m[4] for m in MODELS}


@pytest.fixture(scope="module")
def api(lb: LeaderboardWorld) -> Iterator[httpx.Client]:
    """A client of the app served over the world, its clock frozen at the snapshot time."""
    app = create_app(lb.settings, engine=lb.engine, clock=lb.clock)
    with serve(app) as url, httpx.Client(base_url=url, timeout=20) as client:
        yield client


def _stored(lb: LeaderboardWorld, modality: str, board: str) -> RatingSnapshot:
    with lb.engine.connect() as conn:
        row = conn.execute(
            select(RatingSnapshot)
            .where(RatingSnapshot.modality == modality, RatingSnapshot.board == board)
            .order_by(RatingSnapshot.id.desc())
        ).first()
    assert row is not None
    return row


def test_the_api_publishes_the_stored_board_digits_and_hides_modified_endpoints(api, lb):
    data = api.get("/api/v1/leaderboard").json()
    stored = _stored(lb, "text_to_image", "overall")
    assert (
        data["modality"] == "text_to_image" and data["board"] == "overall" and data["board_name"] == "Overall"
    )
    assert data["snapshot"]["vote_count"] == stored.vote_count
    assert data["snapshot"]["includes_simulated_votes"] is True
    assert data["snapshot"]["params"]["anchor"] == "lb-meridian"
    assert data["hidden_modified"] == 1 and "lb-ember-turbo" not in {r["model"] for r in data["rows"]}
    published = {r["model"]: r for r in stored.rows}
    for row in data["rows"]:
        want = published[row["model"]]
        assert (row["rating"], row["ci_low"], row["ci_high"], row["votes"]) == (
            want["rating"],
            want["ci_low"],
            want["ci_high"],
            want["votes"],
        )
        assert row["wins"] + row["losses"] + row["ties"] == row["votes"]
        shown = {r["model"] for r in data["rows"]}  # ranks re-read among the listed models only
        assert row["above"] == [m for m in want["above"] if m in shown]
        assert row["rank"] == 1 + len(row["above"])
    anchor = published["lb-meridian"]
    assert anchor["ci_low"] < anchor["rating"] == 1000.0 < anchor["ci_high"]
    ratings = [r["rating"] for r in data["rows"]]
    assert ratings == sorted(ratings, reverse=True)


def test_prices_are_per_thousand_images_and_times_are_the_fourteen_day_statistics(api, lb):
    rows = {
        r["model"]: r
        for r in api.get("/api/v1/leaderboard", params={"include_modified": True}).json()["rows"]
    }
    stats = latency_stats(lb.engine, lb.now)
    for slug, row in rows.items():
        price = PRICES[slug]
        assert row["price_per_1000_images_usd"] == (None if price is None else pytest.approx(price * 1000))
        assert row["median_generation_s"] == pytest.approx(stats[slug].median)
        assert row["p05_generation_s"] == pytest.approx(stats[slug].p05)
        assert row["p95_generation_s"] == pytest.approx(stats[slug].p95)
        assert row["generation_samples"] == stats[slug].samples
    assert rows["lb-ember-turbo"]["endpoint_kind"] == "modified"
    assert rows["lb-relic"]["cohort"] == "legacy" and rows["lb-aurora"]["cohort"] == "current"


def test_every_published_board_downloads_as_csv(api, lb):
    with lb.engine.connect() as conn:
        boards = sorted(set(conn.execute(select(RatingSnapshot.modality, RatingSnapshot.board)).all()))
    assert len(boards) >= 6
    for modality, board in boards:
        response = api.get(
            "/api/v1/leaderboard.csv", params={"modality": modality, "board": board, "include_modified": True}
        )
        assert response.status_code == 200, (modality, board)
        assert response.headers["content-type"].startswith("text/csv")
        assert "attachment" in response.headers["content-disposition"]
        rows = list(csv.DictReader(io.StringIO(response.text)))
        assert list(rows[0]) == CSV_COLUMNS
        stored = {r["model"]: r for r in _stored(lb, modality, board).rows}
        assert {r["model"] for r in rows} == set(stored)
        for r in rows:
            assert float(r["rating"]) == stored[r["model"]]["rating"]
            assert (r["above"].split(";") if r["above"] else []) == stored[r["model"]]["above"]


def test_a_model_api_gives_every_board_opponents_cells_timing_and_examples(api, lb):
    data = api.get("/api/v1/models/lb-aurora").json()
    assert data["price_per_1000_images_usd"] == pytest.approx(60.0)
    assert data["endpoint_kind"] == "standard" and data["cohort"] == "current"
    boards = {b["board"]: b for b in data["boards"]}
    overall = boards["overall"]
    assert (
        overall["rating"]
        == next(r for r in _stored(lb, "text_to_image", "overall").rows if r["model"] == "lb-aurora")[
            "rating"
        ]
    )
    assert len(boards) >= 2 and all(b["models_on_board"] >= 2 for b in boards.values())
    # the head-to-head records add up to the votes the model has on the overall board
    assert sum(o["votes"] for o in data["opponents"]) == overall["votes"]
    assert sum(o["wins"] for o in data["opponents"]) == overall["wins"]
    assert sum(c["votes"] for c in data["cells"]) == overall["votes"]
    assert data["generation_time"]["samples"] > 40 and len(data["generation_time"]["daily"]) == 15
    assert data["examples"] and {e["won"] for e in data["examples"]} <= {True, False}
    assert all(
        set(e)
        == {
            "won",
            "prompt_id",
            "prompt",
            "use_case",
            "capability",
            "opponent",
            "image_url",
            "opponent_image_url",
        }
        for e in data["examples"]
    )
    image = api.get(data["examples"][0]["image_url"])
    assert image.status_code == 200 and image.headers["content-type"] == "image/jpeg"
    # Captioned images come only from prompts the arena no longer serves in blind matchups.
    with lb.engine.connect() as conn:
        status = dict(conn.execute(select(Prompt.id, Prompt.status)).all())
    assert {status[e["prompt_id"]] for e in data["examples"]} == {"retired"}


def test_the_api_is_documented_in_the_openapi_schema(api):
    schema = api.get("/openapi.json").json()
    paths = schema["paths"]
    for path in ("/api/v1/leaderboard", "/api/v1/leaderboard.csv", "/api/v1/models/{slug}"):
        assert "get" in paths[path], path
    ok = paths["/api/v1/leaderboard"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok["$ref"].endswith("/LeaderboardOut")
    model = paths["/api/v1/models/{slug}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert model["$ref"].endswith("/ModelOut")
    params = {p["name"] for p in paths["/api/v1/leaderboard"]["get"]["parameters"]}
    assert {"modality", "board", "include_modified"} <= params
    assert "text/csv" in paths["/api/v1/leaderboard.csv"]["get"]["responses"]["200"]["content"]
    components = schema["components"]["schemas"]
    assert "rating" in components["LeaderboardRowOut"]["properties"]
    assert "price_per_1000_images_usd" in components["LeaderboardRowOut"]["properties"]


@pytest.mark.parametrize(
    ("path", "params", "message"),
    [
        ("/api/v1/leaderboard", {"modality": "video"}, "unknown modality 'video'"),
        ("/api/v1/leaderboard", {"board": "use_case=knitting"}, "unknown board 'use_case=knitting'"),
        ("/api/v1/leaderboard", {"board": "capability=physics"}, "no published snapshot"),
        ("/api/v1/leaderboard.csv", {"modality": "audio"}, "unknown modality 'audio'"),
        ("/api/v1/models/no-such-model", {}, "unknown model 'no-such-model'"),
    ],
)
def test_unknown_modality_board_or_slug_is_a_404_with_a_message(api, path, params, message):
    response = api.get(path, params=params)
    assert response.status_code == 404
    assert message in response.json()["detail"]


@pytest.mark.parametrize(
    "params",
    [
        {"board": "overall;drop"},
        {"include_modified": "sometimes"},
        {"sort": "rating; --"},
        {"order": "up"},
        {"modality": ""},
    ],
)
def test_bad_query_values_are_422(api, params):
    response = api.get("/api/v1/leaderboard", params=params)
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"][0] == "query"
