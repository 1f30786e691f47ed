"""Console flows in a real browser (Tokyo time zone): Deactivate goes through a confirmation page before
anything changes, and console times are rewritten from their UTC fallback to the browser's local time."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from arena.app import create_app
from arena.db.tables import Model
from arena.generation.registry import parse_registry, sync_registry
from arena.ops import operators
from tests.conftest import serve
from tests.fakes.scheduling import sandbox_registry

pytestmark = pytest.mark.e2e


@pytest.fixture
def console(settings, initialized):
    with Session(initialized) as session:
        sync_registry(session, parse_registry(sandbox_registry({"sandbox-a": (20, 30)})))
        olga = operators.add_operator(session, "olga", "operator", actor="test")
    with serve(create_app(settings, engine=initialized)) as url:
        yield url, initialized, olga


@pytest.fixture
def tokyo(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="Asia/Tokyo")
    page = context.new_page()
    yield page
    context.close()


def test_deactivate_is_confirmed_and_console_times_are_local(tokyo, console):
    page = tokyo
    url, engine, olga = console
    page.goto(url + "/admin")
    page.fill("#token", olga)
    page.click("form.signin button[type=submit]")
    page.wait_for_selector("nav.console-nav")

    page.goto(url + "/admin/models")
    page.click('tr[data-model="sandbox-a"] a:has-text("Deactivate")')
    page.wait_for_selector("#confirm-deactivate")
    with Session(engine) as session:
        assert session.get(Model, "sandbox-a").active  # nothing changed before the confirmation
    page.click("#confirm-deactivate-button")
    page.wait_for_selector('tr[data-model="sandbox-a"] .console-override')
    assert "inactive" in page.inner_text('tr[data-model="sandbox-a"]')
    with Session(engine) as session:
        row = session.get(Model, "sandbox-a")
        assert (row.active, row.console_inactive) == (False, True)

    # the deactivation is in the audit log; its time is shown in Tokyo time, the UTC text kept as tooltip
    page.goto(url + "/admin/audit")
    stamp = page.locator("time.local-time").first
    iso = stamp.get_attribute("datetime")
    assert stamp.get_attribute("data-local") == "1"
    assert "UTC" in stamp.get_attribute("title") and "." not in stamp.get_attribute("title")
    expected = page.evaluate(
        """(iso) => new Intl.DateTimeFormat(undefined, {timeZone: "Asia/Tokyo", day: "numeric", month: "short",
        year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short"}).format(new Date(iso))""",
        iso,
    )
    assert stamp.inner_text() == expected and "UTC" not in expected
