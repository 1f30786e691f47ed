"""The reader's questions over real HTTP on both databases: certainty figures on the leaderboard, the model
page and the API (stored with the snapshot), and the head-to-head page checked against a direct count of the
published votes."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from sqlalchemy import delete, select

from arena.db.tables import RatingSnapshot
from arena.leaderboard.boards import SnapshotCache
from arena.leaderboard.published_votes import VoteSet, published_vote_rows
from arena.leaderboard.snapshots import take_snapshot
from tests.support.leaderboard_world import NOW, LeaderboardWorld


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_certainty_is_stored_with_the_snapshot_and_shown_on_every_page(web):
    rows = web.get("/api/v1/leaderboard", params={"include_modified": "true"}).json()["rows"]
    assert math.isclose(sum(r["p_best"] for r in rows), 1.0, abs_tol=1e-9)
    assert all(r["p_best"] <= r["p_top3"] <= 1.0 for r in rows)
    assert math.isclose(sum(r["p_top3"] for r in rows), 3.0, abs_tol=1e-9)
    by_rating = sorted(rows, key=lambda r: -r["rating"])
    assert by_rating[-1]["settled_below"] is None
    for upper, lower in itertools.pairwise(by_rating):
        assert upper["settled_below"] == (upper["model"] in (lower["above"] or []))
        assert (upper["votes_to_settle"] == 0) == upper["settled_below"]
    # the chance the votes to settle are quoted for, from the snapshot's parameters
    assert all(r["settle_probability"] == (None if r["settled_below"] is None else 0.8) for r in rows)
    html = web.get("/leaderboard").text
    aurora = html.split('<tr data-model="lb-aurora"', 1)[1].split("</tr>", 1)[0]
    cell = re.findall(r'<td class="num certainty" title="([^"]*)">(.*?)</td>', aurora, flags=re.S)[0]
    p = next(r for r in rows if r["model"] == "lb-aurora")["p_best"]
    shown = _text(cell[1]).split()[0]
    assert shown in ({">99%", "100%"} if p > 0.995 else {f"{100 * p:.0f}%"})
    assert "Against the next model down" in cell[0]
    aurora_row = next(r for r in rows if r["model"] == "lb-aurora")
    if aurora_row["settled_below"] is False:
        assert "80% chance to settle" in cell[0]
    assert 'href="/methodology#certainty"' in html
    model = web.get("/models/lb-aurora").text
    assert "P(best)" in model and "top 3:" in model.split('id="boards-table"', 1)[1]
    methodology = web.get("/methodology").text
    assert 'id="certainty"' in methodology and "Votes to settle" in methodology
    csv = web.get("/api/v1/leaderboard.csv").text.splitlines()[0].split(",")
    assert csv[-5:] == ["p_best", "p_top3", "settled_below", "votes_to_settle", "settle_probability"]


def test_head_to_head_matches_a_direct_count_of_the_published_votes(web, lb):
    a, b = "lb-aurora", "lb-meridian"
    page = web.get("/compare", params={"a": a, "b": b})
    assert page.status_code == 200
    html = page.text
    with lb.engine.connect() as conn:
        overall = SnapshotCache().board(conn, "text_to_image", "overall")
        rows = published_vote_rows(conn, VoteSet.of(overall))
    pair = [r for r in rows if {r.model_a, r.model_b} == {a, b}]
    wins = sum(
        r.winner in ("model_a", "model_b") and (r.winner == "model_a") == (r.model_a == a) for r in pair
    )
    ties = sum(r.winner not in ("model_a", "model_b") for r in pair)
    assert pair and _text(html.split('id="h2h-votes">', 1)[1].split("</dd>", 1)[0]) == f"{len(pair):,}"
    rate = _text(html.split('id="h2h-rate">', 1)[1].split("</dd>", 1)[0])
    assert rate.startswith(f"{100 * (wins + ties / 2) / len(pair):.0f}%")
    low, high = (int(x) for x in re.findall(r"interval (\d+)%–(\d+)%", rate)[0])
    assert low <= 100 * (wins + ties / 2) / len(pair) <= high
    ra, rb = overall.entry(a).rating, overall.entry(b).rating
    expected = 1 / (1 + 10 ** ((rb - ra) / 400))
    assert _text(html.split('id="h2h-expected">', 1)[1].split("</dd>", 1)[0]).startswith(
        f"{100 * expected:.0f}%"
    )
    # per use case: the counts add up to the pair's votes
    table = html.split('id="h2h-use_case"', 1)[1].split("</table>", 1)[0]
    counts = [int(c) for c in re.findall(r'<td class="num">(\d+)</td><td class="num">\d+ / ', table)]
    assert sum(counts) == len(pair)
    # matchups each won, with images that exist; the winner is marked on each
    assert "Aurora (test) won" in html and "Meridian (test) won" in html
    images = re.findall(r'src="(/media/[^"]+)"', html)
    assert images and all(web.get(src).status_code == 200 for src in images[:4])


def test_head_to_head_answers_bad_requests_with_a_message(web):
    same = web.get("/compare", params={"a": "lb-aurora", "b": "lb-aurora"})
    assert same.status_code == 400 and "two different models" in same.text
    mixed = web.get("/compare", params={"a": "lb-aurora", "b": "lb-inkwell"})
    assert mixed.status_code == 400 and "different modalities" in mixed.text
    unknown = web.get("/compare", params={"a": "lb-aurora", "b": "no-such-model"})
    assert unknown.status_code == 404 and "unknown model" in unknown.text
    empty = web.get("/compare")
    assert empty.status_code == 200 and 'id="compare-a"' in empty.text


def test_the_head_to_head_api_gives_the_pages_figures_as_data(web, lb):
    """Issue 28 item 7: /compare had no JSON twin. The API's record is a direct count of the published votes."""
    a, b = "lb-aurora", "lb-meridian"
    got = web.get("/api/v1/compare", params={"a": a, "b": b})
    assert got.status_code == 200, got.text
    data = got.json()
    with lb.engine.connect() as conn:
        overall = SnapshotCache().board(conn, "text_to_image", "overall")
        rows = published_vote_rows(conn, VoteSet.of(overall))
    pair = [r for r in rows if {r.model_a, r.model_b} == {a, b}]
    wins = sum(
        r.winner in ("model_a", "model_b") and (r.winner == "model_a") == (r.model_a == a) for r in pair
    )
    ties = sum(r.winner not in ("model_a", "model_b") for r in pair)
    record = data["record"]
    assert (record["votes"], record["wins"], record["ties"]) == (len(pair), wins, ties)
    assert record["win_rate"] == pytest.approx((wins + ties / 2) / len(pair))
    assert data["win_rate_low"] <= record["win_rate"] <= data["win_rate_high"]
    ra, rb = overall.entry(a).rating, overall.entry(b).rating
    assert data["expected_win_probability"] == pytest.approx(1 / (1 + 10 ** ((rb - ra) / 400)))
    assert sum(u["votes"] for u in data["use_cases"]) == len(pair)
    assert data["a_won"] and all(e["won"] for e in data["a_won"])
    assert web.get(data["a_won"][0]["image_url"]).status_code == 200
    flipped = web.get("/api/v1/compare", params={"a": b, "b": a}).json()["record"]
    assert (flipped["wins"], flipped["losses"]) == (record["losses"], record["wins"])


def test_the_head_to_head_api_answers_bad_requests_with_a_message(web):
    same = web.get("/api/v1/compare", params={"a": "lb-aurora", "b": "lb-aurora"})
    assert same.status_code == 400 and "two different models" in same.json()["detail"]
    mixed = web.get("/api/v1/compare", params={"a": "lb-aurora", "b": "lb-inkwell"})
    assert mixed.status_code == 400 and "never meet" in mixed.json()["detail"]
    unknown = web.get("/api/v1/compare", params={"a": "lb-aurora", "b": "no-such-model"})
    assert unknown.status_code == 404 and "unknown model" in unknown.json()["detail"]
    assert web.get("/api/v1/compare").status_code == 422


@pytest.fixture(scope="module")
def older(lb: LeaderboardWorld) -> Iterator[datetime]:
    """A real snapshot a day before the world's, with another overall anchor; removed afterwards."""
    when = NOW - timedelta(days=1)
    earlier = lb.settings.model_copy(update={"overall_anchor": "lb-ember"})
    take_snapshot(lb.engine, earlier, seed=9, refilter=False, now=when)
    yield when
    with lb.engine.begin() as conn:
        conn.execute(delete(RatingSnapshot).where(RatingSnapshot.created_at == when))


def _stored(lb: LeaderboardWorld, when: datetime) -> RatingSnapshot:
    with lb.engine.connect() as conn:
        return conn.execute(
            select(RatingSnapshot).where(
                RatingSnapshot.board == "overall",
                RatingSnapshot.modality == "text_to_image",
                RatingSnapshot.created_at == when,
            )
        ).one()


def test_the_history_api_returns_the_exact_rows_of_an_older_snapshot(web, lb, older):
    stored = _stored(lb, older)
    params = {"include_modified": "true", "at": (older + timedelta(hours=1)).isoformat()}
    old = web.get("/api/v1/leaderboard", params=params).json()
    assert old["snapshot"]["params"]["seed"] == 9 and old["snapshot"]["params"]["anchor"] == "lb-ember"
    keys = (
        "rating",
        "ci_low",
        "ci_high",
        "votes",
        "wins",
        "losses",
        "ties",
        "provisional",
        "p_best",
        "p_top3",
    )
    got = {r["model"]: r for r in old["rows"]}
    assert set(got) == {r["model"] for r in stored.rows}
    for row in stored.rows:
        assert all(got[row["model"]][k] == row[k] for k in keys), row["model"]
        assert got[row["model"]]["published_rank"] == row["rank"]
        assert got[row["model"]]["above"] == row["above"]
    latest = web.get("/api/v1/leaderboard", params={"include_modified": "true"}).json()
    assert latest["snapshot"]["params"]["seed"] == 5
    # a naive time is UTC; before the first snapshot there is nothing; a malformed time is a 422
    naive = (older + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S")
    assert web.get("/api/v1/leaderboard", params={"at": naive}).json()["snapshot"]["params"]["seed"] == 9
    early = web.get("/api/v1/leaderboard", params={"at": "2000-01-01T00:00:00Z"})
    assert early.status_code == 404 and "at or before 2000-01-01" in early.json()["detail"]
    assert web.get("/api/v1/leaderboard", params={"at": "yesterday"}).status_code == 422


def test_rating_history_has_every_snapshot_with_its_interval_and_marks_the_anchor_change(web, lb, older):
    stored, latest = _stored(lb, older), _stored(lb, NOW)
    history = web.get("/api/v1/leaderboard/history", params={"model": ["lb-aurora", "lb-relic"]}).json()
    assert len(history["snapshots"]) == 2 and set(history["series"]) == {"lb-aurora", "lb-relic"}
    for slug in ("lb-aurora", "lb-relic"):
        points = history["series"][slug]
        expected = [next(r for r in s.rows if r["model"] == slug) for s in (stored, latest)]
        assert [(p["rating"], p["ci_low"], p["ci_high"]) for p in points] == [
            (r["rating"], r["ci_low"], r["ci_high"]) for r in expected
        ]
    assert [c["what"] for c in history["changes"]] == ["anchor lb-ember → lb-meridian"]
    assert web.get("/api/v1/leaderboard/history", params={"board": "use_case=nope"}).status_code == 404
    for path in ("/leaderboard", "/models/lb-aurora"):
        html = web.get(path).text
        assert 'id="chart-history"' in html and "anchor lb-ember → lb-meridian" in html
        table = html.split('id="chart-history"', 1)[1].split("</table>", 1)[0]
        assert table.count("Aurora (test)") == 2  # one row per snapshot
        assert "<script>" not in html  # data as application/json only


def test_the_pareto_front_is_marked_on_the_price_and_time_charts(web):
    from arena.web.leaderboard.charts import pareto_front

    # known answers: (cost, quality); ties on both keep both; a point beaten on both is off the front
    assert pareto_front([(1, 10), (2, 20), (3, 15), (1, 10), (0.5, 5)]) == [True, True, False, True, True]
    assert pareto_front([]) == []
    api = web.get("/api/v1/leaderboard").json()["rows"]
    html = web.get("/leaderboard").text
    for chart, cost in (("chart-price", "price_per_1000_images_usd"), ("chart-time", "median_generation_s")):
        table = html.split(f'id="{chart}"', 1)[1].split("</table>", 1)[0]
        rows = re.findall(r'<th scope="row">([^<]+)</th>(?:<td>[^<]*</td>){2}<td>(yes|)</td>', table)
        points = [(r["display_name"], r[cost], r["rating"]) for r in api if r[cost] is not None]
        # independent check: a model is on the front when no other is at least as cheap and as good, better on one
        expected = {
            n
            for n, c, q in points
            if not any(c2 <= c and q2 >= q and (c2 < c or q2 > q) for n2, c2, q2 in points if n2 != n)
        }
        assert len(rows) == len(points) and expected
        assert {name for name, front in rows if front} == expected, chart
