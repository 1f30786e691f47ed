"""The API documentation in a real browser, offline and under the CSP: Swagger UI lists the operations and
expands one, Redoc renders the reference and its search finds an operation; no console error (a CSP violation
is one), no request leaves the server."""

import pytest
from playwright.sync_api import Page

pytestmark = pytest.mark.e2e


def _watch_console(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def _outside(page: Page, base: str) -> list[str]:
    # Redoc's search worker is a blob: URL of this origin, made by its own bundle: not a request out.
    return [u for u in page.external_requests if not u.startswith("blob:" + base)]  # type: ignore[attr-defined]


def test_swagger_ui_lists_the_operations_offline_under_the_csp(page, live_url):
    errors = _watch_console(page)
    page.goto(live_url + "/docs")
    page.wait_for_selector(".opblock-summary-path", timeout=15_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/votes" in paths and "/api/v1/leaderboard" in paths
    page.locator(".opblock-summary", has_text="/api/v1/health").first.click()
    page.wait_for_selector(".opblock.is-open .responses-table")
    assert errors == []
    assert _outside(page, live_url) == []


def test_redoc_renders_the_reference_and_searches_offline_under_the_csp(page, live_url):
    errors = _watch_console(page)
    page.goto(live_url + "/redoc")
    page.wait_for_selector("[data-section-id^='operation/']", timeout=15_000)
    assert page.locator("h1", has_text="Image arena").count() == 1
    assert page.locator("[data-section-id^='operation/']").count() > 10
    page.fill("input[placeholder='Search...']", "leaderboard")
    page.wait_for_selector("[data-role='search:results'] li")
    assert "Leaderboard" in page.inner_text("[data-role='search:results']")
    assert errors == []
    assert _outside(page, live_url) == []
