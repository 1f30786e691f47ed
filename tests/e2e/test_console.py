"""The operator console in a real browser: an operator uploads a batch with one bad line (sees the line error,
nothing imported), fixes it, imports, queues a timing run, retires a prompt, and finds all three actions in the
audit log under their name; a viewer sees the same pages with no action buttons and gets 403 on a forged POST."""

from __future__ import annotations

import json
import re

import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import Prompt
from arena.generation.registry import parse_registry, sync_registry
from arena.ops import operators
from tests.conftest import serve
from tests.fakes.scheduling import sandbox_registry

pytestmark = pytest.mark.e2e

GOOD = {
    "id": "console-neon-01",
    "modality": "text_to_image",
    "text": 'A neon sign above a noodle bar at night that reads "OPEN LATE" in pink tubes',
    "use_case": "marketing_advertising",
    "capability": "text_rendering",
}
SECOND = GOOD | {
    "id": "console-kite-02",
    "text": "An origami kite made of folded newspaper caught in a cherry tree",
}


@pytest.fixture
def console(settings, initialized, tmp_path):
    with Session(initialized) as session:
        sync_registry(session, parse_registry(sandbox_registry({"sandbox-a": (20, 30)})))
        olga = operators.add_operator(session, "olga", "operator", actor="test")
        vic = operators.add_operator(session, "vic", "viewer", actor="test")
    with serve(create_app(settings, engine=initialized)) as url:
        yield url, initialized, olga, vic, tmp_path


def _sign_in(page, url, token):
    page.goto(url + "/admin")
    page.fill("#token", token)
    page.click("form.signin button[type=submit]")
    page.wait_for_selector("nav.console-nav")


def test_an_operator_works_through_the_console_and_the_audit_log_names_them(page, console):
    url, engine, olga, _, tmp_path = console
    _sign_in(page, url, olga)
    assert page.inner_text("[data-operator]") == "olga"

    bad = tmp_path / "batch.jsonl"
    bad.write_text(json.dumps(GOOD) + "\n" + json.dumps(SECOND | {"capability": "juggling"}) + "\n")
    page.goto(url + "/admin/prompts")
    page.set_input_files("#prompt-file", str(bad))
    page.click("#import")
    errors = page.wait_for_selector("#upload-errors")
    assert "Line 2" in errors.inner_text() and "nothing was imported" in errors.inner_text()
    with Session(engine) as session:
        assert session.get(Prompt, GOOD["id"]) is None

    bad.write_text(json.dumps(GOOD) + "\n" + json.dumps(SECOND) + "\n")
    page.set_input_files("#prompt-file", str(bad))
    page.click("#import")
    page.wait_for_url(re.compile(r"/admin/prompts\?done="))
    assert "Imported 2 prompt(s)" in page.inner_text("[role=status]")

    page.goto(url + "/admin")
    row = page.locator('tr[data-job="timing_run"]')
    row.locator("select[name=model]").select_option("sandbox-a")
    row.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/admin\?queued=\d+"))

    page.goto(url + "/admin/prompts?q=noodle")
    page.click(f'a[href="/admin/prompts/{GOOD["id"]}"]')
    page.fill("#reason", "duplicates a sign prompt")
    page.click("#status-action")
    page.wait_for_url(re.compile(r"\?done="))
    assert page.inner_text("[data-field=status]") == "retired"

    page.goto(url + "/admin/audit?actor=olga")
    actions = page.locator("#audit tbody tr").evaluate_all("rows => rows.map(r => r.dataset.action)")
    assert {"prompts.import", "jobs.queue", "prompts.retire_one"} <= set(actions)
    assert all(
        a == "olga" for a in page.locator("#audit tbody tr").evaluate_all("r => r.map(x => x.dataset.actor)")
    )
    with Session(engine) as session:
        assert session.get(Prompt, GOOD["id"]).status == "retired"
        assert session.exec(select(Prompt).where(Prompt.id == SECOND["id"])).one().status == "active"
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url + "/admin/prompts")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    assert page.external_requests == []  # type: ignore[attr-defined]


def test_a_viewer_sees_the_pages_without_action_buttons_and_a_forged_post_is_refused(page, console):
    url, engine, _, vic, _ = console
    _sign_in(page, url, vic)
    for path in (
        "/admin",
        "/admin/models",
        "/admin/prompts",
        "/admin/votes",
        "/admin/retirement",
        "/admin/audit",
    ):
        page.goto(url + path)
        assert page.locator("nav.console-nav").count() == 1, path
        forms = page.locator("form[method=post]").evaluate_all("fs => fs.map(f => f.getAttribute('action'))")
        assert forms == ["/admin/logout"], (path, forms)
    prompt_id = page.goto(url + "/api/v1/admin/prompts?status=active").json()["prompts"][0]["id"]
    page.goto(url + f"/admin/prompts/{prompt_id}")
    assert page.locator("#status-action").count() == 0
    csrf = page.locator("input[name=csrf]").first.get_attribute("value")
    status = page.evaluate(
        """async ([id, csrf]) => {
            const body = new URLSearchParams({csrf: csrf, reason: "forged"});
            const r = await fetch(`/admin/prompts/${id}/retire`, {method: "POST", body, credentials: "same-origin"});
            return r.status;
        }""",
        [prompt_id, csrf],
    )
    assert status == 403
    with Session(engine) as session:
        assert session.get(Prompt, prompt_id).status == "active"
