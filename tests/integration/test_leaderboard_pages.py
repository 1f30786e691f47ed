"""The leaderboard, model and methodology pages over real HTTP on both databases, from a published snapshot
of simulated votes: columns, labels, the modified toggle, sorting, every board, 404 and 422 answers."""

from __future__ import annotations

import re

import httpx
import pytest
from sqlalchemy import select

from arena.app import create_app
from arena.db.tables import Vote
from arena.leaderboard import board_keys
from prompts_taxonomy import load_taxonomy
from tests.conftest import serve

COLUMNS = [
    "Rank",
    "Model",
    "Organization",
    "Rating",
    "95% interval",
    "Votes",
    "Price / 1k images",
    "Generation time",
    "Endpoint",
    "Released",
    "P(best)",
]


def _models(html: str, table: str = "lb-table") -> list[str]:
    body = html.split(f'id="{table}"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr data-model="([^"]+)"', body)


def _row(html: str, slug: str) -> str:
    return html.split(f'<tr data-model="{slug}"', 1)[1].split("</tr>", 1)[0]


def _cells(html: str, slug: str) -> list[str]:
    """The text of a row's data cells: rank, organization, rating, interval, votes, price, time, kind, date."""
    cells = re.findall(r"<td[^>]*>(.*?)</td>", _row(html, slug), flags=re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", c)).strip() for c in cells]


def test_the_leaderboard_shows_every_column_and_hides_modified_endpoints_by_default(web):
    page = web.get("/leaderboard")
    assert page.status_code == 200
    html = page.text
    header = html.split('id="lb-table"', 1)[1].split("</thead>", 1)[0]
    assert [
        re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<th scope=\"col\"[^>]*>(.*?)</th>", header)
    ] == COLUMNS
    models = _models(html)
    assert "lb-ember-turbo" not in models
    assert set(models) == {"lb-aurora", "lb-meridian", "lb-ember", "lb-relic", "lb-fossil"}
    assert "1 modified endpoint hidden" in html
    aurora = _cells(html, "lb-aurora")
    assert (
        aurora[1] == "Org A"
        and aurora[5] == "$60.00"
        and aurora[7] == "Standard"
        and aurora[8] == "2026-09-15"
    )
    assert re.fullmatch(r"\+\d+ / −\d+", aurora[3]) and re.fullmatch(r"\d\.\d s \d\.\d–\d\.\d s", aurora[6])
    assert _cells(html, "lb-fossil")[5] == "–" and _cells(html, "lb-fossil")[8] == "–"
    # the anchor has a real interval like every other model
    assert re.fullmatch(r"\+\d+ / −\d+", _cells(html, "lb-meridian")[3])
    assert "by construction, not by certainty" in _row(html, "lb-meridian")
    assert "Legacy" in _row(html, "lb-relic") and "Legacy" not in _row(html, "lb-aurora")
    # the snapshot time and vote count, with a link to how they are computed
    assert "snapshot of" in html and "2026-11-20 12:00 UTC" in html and 'href="/methodology"' in html
    assert re.search(r'<span id="vote-count">\d+</span> votes', html)


def test_demo_pages_say_the_votes_are_simulated(web):
    for path in ("/leaderboard", "/models/lb-aurora", "/methodology"):
        html = web.get(path).text
        assert "simulated votes" in html, path
    assert "Simulated data." in web.get("/leaderboard").text


def test_the_toggle_shows_modified_endpoints_labelled_with_the_published_ranks(web):
    html = web.get("/leaderboard", params={"include_modified": "true"}).text
    assert "lb-ember-turbo" in _models(html)
    turbo = _row(html, "lb-ember-turbo")
    assert "badge-modified" in turbo and "Modified" in turbo
    api = web.get("/api/v1/leaderboard", params={"include_modified": "true"}).json()
    assert all(r["rank"] == r["published_rank"] for r in api["rows"])
    assert 'id="toggle-link"' in html and "hide modified endpoints" in html


def test_columns_sort_on_the_server_without_javascript(web):
    html = web.get("/leaderboard", params={"sort": "price", "order": "asc", "include_modified": "true"}).text
    assert _models(html) == [
        "lb-ember-turbo",
        "lb-ember",
        "lb-meridian",
        "lb-relic",
        "lb-aurora",
        "lb-fossil",
    ]
    html = web.get("/leaderboard", params={"sort": "rating", "order": "asc"}).text
    published = web.get("/api/v1/leaderboard").json()["rows"]
    assert _models(html) == [r["model"] for r in sorted(published, key=lambda r: r["rating"])]
    assert 'aria-sort="ascending"' in html and "sort=rating&amp;order=desc" in html


def test_every_board_of_both_modalities_renders(web):
    taxonomy = load_taxonomy()
    seen_empty = seen_full = 0
    for modality in ("text_to_image", "image_editing"):
        for key in board_keys(taxonomy):
            page = web.get("/leaderboard", params={"modality": modality, "board": key})
            assert page.status_code == 200, (modality, key)
            if "No published snapshot" in page.text:
                seen_empty += 1
            else:
                seen_full += 1
                assert _models(page.text)
    assert seen_full >= 4 and seen_empty >= 1


def test_the_editing_tab_and_the_heat_map_list_that_modality_only(web):
    html = web.get("/leaderboard", params={"modality": "image_editing"}).text
    assert set(_models(html)) == {"lb-retouch", "lb-inkwell", "lb-palimpsest"}
    assert 'aria-current="page">Image editing' in html
    heat = html.split('id="heatmap-capability"', 1)[1].split("</table>", 1)[0]
    assert "Text Rendering" in heat and "Inkwell (test)" in heat and "Aurora" not in heat


def test_the_charts_have_their_numbers_in_tables_and_use_only_the_vendored_library(web):
    html = web.get("/leaderboard").text
    for chart in ("chart-ratings", "chart-price", "chart-time"):
        figure = html.split(f'<canvas id="{chart}"', 1)[1].split("</figure>", 1)[0]
        assert "<table" in figure and "Aurora (test)" in figure
    scripts = [httpx.URL(s) for s in re.findall(r'<script[^>]*src="([^"]+)"', html)]
    assert all(s.host in ("", "127.0.0.1") and s.path.startswith("/static/") for s in scripts)
    assert "/static/vendor/chartjs/chart.umd.min.js" in {s.path for s in scripts}
    lib = web.get("/static/vendor/chartjs/chart.umd.min.js")
    assert lib.status_code == 200 and "Chart.js v4" in lib.text[:200]


def test_a_model_page_shows_boards_opponents_timing_examples_and_no_voter_data(web, lb):
    page = web.get("/models/lb-aurora")
    assert page.status_code == 200
    html = page.text
    for heading in (
        "Ratings on every board",
        "Win rate against each opponent",
        "By use case and capability",
        "Generation time, last 14 days",
        "Example matchups",
    ):
        assert heading in html
    assert "$60.00" in html and "Standard" in html and "Current" in html
    opponents = html.split('id="opponents-table"', 1)[1].split("</table>", 1)[0]
    assert all(name in opponents for name in ("Meridian (test)", "Ember (test)", "Relic (test)"))
    assert "successful samples" in html and 'id="trend-table"' in html
    images = re.findall(r'src="(/media/[^"]+)"', html)
    assert images and all(web.get(src).headers["content-type"] == "image/jpeg" for src in images[:4])
    with lb.engine.connect() as conn:
        sessions = {s for (s,) in conn.execute(select(Vote.session_id)).all()}
        hashes = {h for (h,) in conn.execute(select(Vote.client_hash)).all() if h}
    assert not any(s in html for s in sessions | hashes)


def test_an_editing_model_page_shows_the_reference_images_of_its_examples(web):
    html = web.get("/models/lb-inkwell").text
    refs = re.findall(r'src="(/leaderboard/reference/[^"]+)"', html)
    assert refs and web.get(refs[0]).headers["content-type"] == "image/jpeg"
    assert web.get("/leaderboard/reference/no-such-prompt").status_code == 404


def test_the_methodology_page_states_the_parameters_in_force(web):
    html = web.get("/methodology").text
    assert "lb-meridian" in html and "lb-retouch" in html  # the anchors the published boards used
    assert "Not yet rated below" in html and "40 votes" in html
    assert "Relic (test)" in html.split("Legacy cohort", 1)[1][:200]
    assert "arena ratings fit" in html and "arena export" in html
    assert 'id="intervals"' in html and "shifted by <em>one</em> constant per board" in html
    assert "Another anchor changes no rank" in html


def test_the_anchors_model_page_shows_its_interval(web):
    html = web.get("/models/lb-meridian").text
    row = html.split("Ratings on every board", 1)[1].split("</tr>", 2)[1]
    assert re.search(r"\+\d+ / −\d+", row) and "(anchor)" in row


@pytest.mark.parametrize(
    "path",
    [
        "/leaderboard?modality=video",
        "/leaderboard?board=use_case%3Dunderwater_basket_weaving",
        "/leaderboard?board=capability%3Dtelepathy",
        "/models/no-such-model",
    ],
)
def test_unknown_modality_board_or_model_pages_are_404_with_a_message(web, path):
    page = web.get(path)
    assert page.status_code == 404
    assert "text/html" in page.headers["content-type"]
    assert "unknown" in page.text and "Traceback" not in page.text


@pytest.mark.parametrize(
    "query",
    [
        {"board": "everything"},
        {"board": "use_case="},
        {"include_modified": "perhaps"},
        {"sort": "vibes"},
        {"order": "sideways"},
        {"modality": "Text To Image!"},
    ],
)
def test_bad_query_values_are_422(web, query):
    page = web.get("/leaderboard", params=query)
    assert page.status_code == 422
    assert page.json()["detail"] == "invalid request"


def test_a_model_page_says_collecting_until_the_minimum_number_of_timing_samples(lb):
    settings = lb.settings.model_copy(update={"min_timing_samples": 1000})
    app = create_app(settings, engine=lb.engine, clock=lb.clock)
    with serve(app) as url, httpx.Client(base_url=url, timeout=20) as client:
        html = client.get("/models/lb-aurora").text
    assert "collecting (" in html and "of 1000 samples)" in html
    assert "Collecting:" in html and "successful samples so far" in html
    assert 'id="trend-table"' not in html  # no time or trend is shown before the minimum
