"""`relative_to` on the leaderboard API and page, both databases (bootstrap on SQLite, sandwich on PostgreSQL).

Known answer: every row's difference and interval equal the published ratings and the stored standard error of
that pair, decoded here by hand from the snapshot's `differences` column (d -+ 1.96 se, and d -+ critical se);
the stored standard errors are the pair's own (the anchor's interval is not part of them); differences from one
model are the differences from the anchor re-based (anchor-invariance); an unknown slug is a 422 with a message;
the page states what the displayed interval is and offers the control.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select

from arena.app import create_app
from arena.db.tables import RatingSnapshot
from tests.conftest import serve
from tests.support.leaderboard_world import LeaderboardWorld

Z95 = 1.959963984540054


@pytest.fixture(scope="module")
def api(lb: LeaderboardWorld) -> Iterator[httpx.Client]:
    app = create_app(lb.settings, engine=lb.engine, clock=lb.clock)
    with serve(app) as url, httpx.Client(base_url=url, timeout=20) as client:
        yield client


def _stored(lb: LeaderboardWorld, board: str = "overall") -> tuple[dict[str, float], dict, dict]:
    with lb.engine.connect() as conn:
        row = conn.execute(
            select(RatingSnapshot.rows, RatingSnapshot.differences, RatingSnapshot.params)
            .where(RatingSnapshot.modality == "text_to_image", RatingSnapshot.board == board)
            .order_by(RatingSnapshot.id.desc())
        ).first()
    assert row is not None and row.differences is not None
    return {r["model"]: r["rating"] for r in row.rows}, row.differences, row.params


def _se(payload: dict, x: str, y: str) -> float:
    """The stored upper triangle, read by hand: row-major pairs (i < j) of the payload's model order."""
    models = payload["models"]
    i, j = sorted((models.index(x), models.index(y)))
    if i == j:
        return 0.0
    n = len(models)
    k = i * n - i * (i + 1) // 2 + (j - i - 1)
    value = payload["se"][k]
    return math.inf if value is None else value


def test_relative_to_the_anchor_gives_each_difference_with_its_own_interval(api, lb):
    ratings, payload, params = _stored(lb)
    anchor = params["anchor"]
    data = api.get("/api/v1/leaderboard", params={"relative_to": "anchor", "include_modified": True}).json()
    assert data["relative_to"]["model"] == anchor and data["relative_to"]["is_anchor"] is True
    assert data["relative_to"]["interval"] == "per-pair"
    assert "not an interval of the gap to the anchor" in data["intervals"]
    critical = payload["critical"]
    for row in data["rows"]:
        d = row["difference"]
        want = ratings[row["model"]] - ratings[anchor]
        se = _se(payload, row["model"], anchor)
        assert d["estimate"] == pytest.approx(want, abs=1e-9)
        assert (d["low"], d["high"]) == pytest.approx((want - Z95 * se, want + Z95 * se), abs=1e-6)
        assert (d["simultaneous_low"], d["simultaneous_high"]) == pytest.approx(
            (want - critical * se, want + critical * se), abs=1e-6
        )
        if row["model"] != anchor:
            # the old reading, "1000 + gap" against the row's own interval, is not this interval
            assert d["high"] - d["low"] != pytest.approx(row["ci_high"] - row["ci_low"], abs=0.5)
    assert next(r for r in data["rows"] if r["model"] == anchor)["difference"] == {
        "estimate": 0.0,
        "low": 0.0,
        "high": 0.0,
        "simultaneous_low": 0.0,
        "simultaneous_high": 0.0,
    }


def test_differences_from_any_model_do_not_depend_on_the_anchor(api, lb):
    ratings, payload, params = _stored(lb)
    anchor = params["anchor"]
    other = next(m for m in ratings if m != anchor)
    by_anchor = {r["model"]: r["difference"] for r in api.get(
        "/api/v1/leaderboard", params={"relative_to": "anchor", "include_modified": True}).json()["rows"]}  # fmt: skip
    by_other = api.get("/api/v1/leaderboard", params={"relative_to": other, "include_modified": True}).json()
    assert by_other["relative_to"]["is_anchor"] is False
    for row in by_other["rows"]:
        d = row["difference"]
        assert d["estimate"] == pytest.approx(
            by_anchor[row["model"]]["estimate"] - by_anchor[other]["estimate"]
        )
        se = _se(payload, row["model"], other)
        assert d["high"] - d["low"] == pytest.approx(2 * Z95 * se, abs=1e-6)
    # the pair (anchor, other) has one interval whichever of the two is the reference
    there = by_anchor[other]
    back = next(r for r in by_other["rows"] if r["model"] == anchor)["difference"]
    assert (back["low"], back["high"]) == pytest.approx((-there["high"], -there["low"]), abs=1e-6)


def test_an_unknown_reference_model_is_a_422_with_a_message(api):
    reply = api.get("/api/v1/leaderboard", params={"relative_to": "no-such-model"})
    assert reply.status_code == 422
    assert "'no-such-model' is not on this board" in reply.json()["detail"]
    assert api.get("/api/v1/leaderboard", params={"relative_to": "Not A Slug"}).status_code == 422
    assert "difference" not in api.get("/api/v1/leaderboard").json()["rows"][0] or all(
        r["difference"] is None for r in api.get("/api/v1/leaderboard").json()["rows"]
    )


def test_the_csv_carries_the_difference_columns_when_asked(api, lb):
    ratings, _, params = _stored(lb)
    text = api.get("/api/v1/leaderboard.csv", params={"relative_to": "anchor"}).text
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        assert float(row["difference"]) == pytest.approx(ratings[row["model"]] - ratings[params["anchor"]])
        assert float(row["difference_low"]) <= float(row["difference"]) <= float(row["difference_high"])


def test_the_model_api_gives_the_difference_from_each_boards_anchor(api, lb):
    ratings, payload, params = _stored(lb)
    slug = next(m for m in ratings if m != params["anchor"])
    overall = next(b for b in api.get(f"/api/v1/models/{slug}").json()["boards"] if b["board"] == "overall")
    d = overall["anchor_difference"]
    assert d["estimate"] == pytest.approx(ratings[slug] - ratings[params["anchor"]])
    assert d["high"] - d["low"] == pytest.approx(2 * Z95 * _se(payload, slug, params["anchor"]), abs=1e-6)


def test_the_page_says_what_the_interval_is_and_offers_the_difference_columns(api, lb):
    ratings, _, params = _stored(lb)
    html = api.get("/leaderboard").text
    assert 'id="interval-statement"' in html
    assert "not the interval of its gap to the anchor" in html
    assert 'name="relative_to"' in html and '<option value="anchor">the anchor (' in html
    assert 'id="relative-col"' not in html
    shown = api.get("/leaderboard", params={"relative_to": "anchor"}).text
    assert (
        'id="relative-col"' in shown
        and "(the anchor), with the 95% interval of that difference, per pair" in shown
    )
    assert '<option value="anchor" selected>' in shown
    other = next(m for m in ratings if m != params["anchor"])
    row = shown.split(f'<tr data-model="{other}"', 1)[1].split("</tr>", 1)[0]
    cell = row.split('class="num difference"', 1)[1].split("</td>", 1)[0]
    assert "[" in cell and "simultaneous (as the ranks)" in cell
    missing = api.get("/leaderboard", params={"relative_to": "no-such-model"}).text
    assert "No differences: model &#39;no-such-model&#39; is not on this board" in missing


def test_the_model_page_shows_the_difference_from_the_anchor(api, lb):
    ratings, _, params = _stored(lb)
    slug = next(m for m in ratings if m != params["anchor"])
    html = api.get(f"/models/{slug}").text
    assert 'id="anchor-diff-col"' in html
    gap = round(ratings[slug] - ratings[params["anchor"]])
    sign = "0" if gap == 0 else f"+{gap:,}" if gap > 0 else f"−{-gap:,}"
    assert f">{sign} [" in html
