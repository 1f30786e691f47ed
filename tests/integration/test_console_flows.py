"""Console flows over real HTTP on both databases: a model deactivation is confirmed first, outlives a
models-file reload (the precedence is stated on the page) and keeps the model on the published board labelled
inactive; the models page says how to add a model."""

from __future__ import annotations

import re

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import AuditEntry, Model
from arena.leaderboard.snapshots import take_snapshot
from arena.ops import operators
from tests.conftest import serve
from tests.integration.test_console_pages import _votes


@pytest.fixture
def site(settings, world):
    _votes(world)
    with Session(world) as session:
        token = operators.add_operator(session, "opal", "operator", actor="test")
    with serve(create_app(settings, engine=world)) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.post("/admin/login", data={"token": token}).status_code == 303
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/admin").text).group(1)
        yield client, world, csrf, settings


def _active(world, slug: str) -> tuple[bool, bool]:
    with Session(world) as session:
        row = session.get(Model, slug)
        return row.active, row.console_inactive


def test_the_models_page_says_how_to_add_a_model_and_the_precedence_rule(site):
    client, _, _, settings = site
    page = client.get("/admin/models").text
    assert 'id="add-model"' in page and str(settings.models_file) in page
    for field in ("slug", "display_name", "organization", "modality", "adapter", "params", "active"):
        assert f"<code>{field}</code>" in page
    assert 'id="precedence"' in page and "stays inactive across reloads" in page


def test_deactivate_is_confirmed_and_a_reload_keeps_it_until_reactivated(site):
    client, world, csrf, _ = site
    form = {"csrf": csrf, "field": "active", "value": "false"}
    first = client.post("/admin/models/model-1/set", data=form)
    assert first.status_code == 303 and first.headers["location"] == "/admin/models/model-1/deactivate"
    assert _active(world, "model-1") == (True, False)  # nothing changed before the confirmation
    confirm = client.get("/admin/models/model-1/deactivate")
    assert confirm.status_code == 200 and 'name="confirm" value="yes"' in confirm.text
    assert "7 vote(s)" in confirm.text
    assert client.get("/admin/models/no-such/deactivate").status_code == 404
    done = client.post("/admin/models/model-1/set", data={**form, "confirm": "yes"})
    assert done.status_code == 303 and _active(world, "model-1") == (False, True)
    # the models file still says active: the preview does not undo it, nor does the reload
    preview = client.get("/api/v1/admin/models/reload").json()
    assert all(c["slug"] != "model-1" for c in preview["changed"])
    assert client.post("/admin/models/reload", data={"csrf": csrf}).status_code == 303
    assert _active(world, "model-1") == (False, True)
    row = client.get("/admin/models").text.split('data-model="model-1"', 1)[1].split("</tr>", 1)[0]
    assert "deactivated in the console; models.toml says active" in row
    again = client.post("/admin/models/model-1/set", data={**form, "value": "true"})
    assert again.status_code == 303 and _active(world, "model-1") == (True, False)
    assert client.post("/admin/models/reload", data={"csrf": csrf}).status_code == 303
    assert _active(world, "model-1") == (True, False)
    with Session(world) as session:
        actions = [a.action for a in session.exec(select(AuditEntry).where(AuditEntry.target == "model-1"))]
    assert actions == ["models.set_active", "models.set_active"]


def test_a_deactivated_model_stays_on_the_published_board_marked_inactive(site):
    client, world, csrf, settings = site
    form = {"csrf": csrf, "field": "active", "value": "false", "confirm": "yes"}
    assert client.post("/admin/models/model-1/set", data=form).status_code == 303
    anchored = settings.model_copy(update={"overall_anchor": "model-0", "slice_anchor": "model-0"})
    report = take_snapshot(world, anchored, modality="text_to_image")
    assert "text_to_image/overall" in report.boards, report.failures
    page = client.get("/leaderboard", params={"modality": "text_to_image"})
    assert page.status_code == 200
    row = page.text.split('<tr data-model="model-1"', 1)[1].split("</tr>", 1)[0]
    assert 'class="badge badge-inactive"' in row
    other = page.text.split('<tr data-model="model-0"', 1)[1].split("</tr>", 1)[0]
    assert "badge-inactive" not in other


@pytest.mark.parametrize(
    ("path", "section"),
    [("/admin/judge", "/admin/judge"), ("/evals", "/evals"), ("/evals/calibration", "/evals")],
)
def test_the_judge_and_eval_pages_keep_the_console_navigation(site, path, section):
    client = site[0]
    page = client.get(path)
    assert page.status_code == 200
    nav = page.text.split('class="console-nav"', 1)[1].split("</nav>", 1)[0]
    assert f'<a href="{section}" aria-current="page">' in nav and 'href="/admin/models"' in nav
    assert 'data-operator="opal"' in nav


TIME = re.compile(
    r'<time class="local-time" datetime="[^"]+">\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC</time>'
)
RAW = re.compile(r"\d{2}:\d{2}:\d{2}(\.\d+)?")  # seconds or microseconds in a shown time


def test_console_times_are_readable_with_a_local_time_hook(site):
    client, _, csrf, _ = site
    form = {"csrf": csrf, "field": "active", "value": "false", "confirm": "yes"}
    assert client.post("/admin/models/model-1/set", data=form).status_code == 303
    for path in ("/admin/audit", "/admin/votes", "/admin/operators"):
        page = client.get(path).text
        assert TIME.search(page), path
        shown = re.sub(r'datetime="[^"]*"', "", page)
        assert not RAW.search(shown), (path, RAW.search(shown).group(0))
        assert "/static/js/console_time.js" in page
