"""The leaderboard in a real browser: tabs, boards, the modified toggle, sorting, charts and a model page;
then the same page with JavaScript off. No request leaves the loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from arena.app import create_app
from tests.conftest import BACKENDS, serve
from tests.support.leaderboard_world import LeaderboardWorld, shared_world

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module", params=BACKENDS)
def lb(request: pytest.FixtureRequest) -> LeaderboardWorld:
    """The published world on each backend."""
    return shared_world(request, request.param)


@pytest.fixture(scope="module")
def site(lb: LeaderboardWorld) -> Iterator[str]:
    """Base URL of the app over the world."""
    with serve(create_app(lb.settings, engine=lb.engine, clock=lb.clock)) as url:
        yield url


def _models(page: Page) -> list[str]:
    return page.locator("#lb-table tbody tr").evaluate_all("rows => rows.map(r => r.dataset.model)")


def test_clicking_through_tabs_boards_the_toggle_sorting_and_a_model_page(page, site):
    page.goto(site + "/leaderboard")
    assert page.locator(".banner").inner_text().startswith("Demo instance")
    assert "Simulated data." in page.locator(".notice.simulated").inner_text()
    assert "lb-ember-turbo" not in _models(page) and len(_models(page)) == 5
    # the charts are drawn by the vendored library
    page.wait_for_function(
        "() => window.Chart && Chart.getChart('chart-ratings') && Chart.getChart('chart-price')"
    )
    assert page.locator("#lb-controls button.apply").is_hidden()

    page.check("#include-modified")  # submits the form
    page.wait_for_url("**include_modified=true**")
    assert "lb-ember-turbo" in _models(page)
    assert page.locator("tr[data-model=lb-ember-turbo] .badge-modified").text_content() == "Modified"
    assert page.locator("tr[data-model=lb-relic] .badge-legacy").text_content() == "Legacy"

    page.click("th[data-sort=price] a")  # sorts in place, no reload
    assert _models(page)[:2] == ["lb-ember-turbo", "lb-ember"]
    assert page.locator("th[data-sort=price]").get_attribute("aria-sort") == "ascending"
    assert "sort=price" in page.url
    page.click("th[data-sort=price] a")
    assert _models(page)[-1] == "lb-fossil" and _models(page)[0] == "lb-aurora"  # no price: last either way

    page.select_option("#board-select", "capability=human_anatomy")
    page.wait_for_url("**board=capability%3Dhuman_anatomy**")
    assert "Capability: Human Anatomy" in page.locator(".lb-meta").inner_text()
    assert page.locator("#include-modified").is_checked()

    page.click("nav.tabs a[data-modality=image_editing]")
    page.wait_for_url("**modality=image_editing**")
    assert set(_models(page)) >= {"lb-retouch", "lb-inkwell"}

    page.click("#lb-table a[href='/models/lb-inkwell']")
    page.wait_for_url("**/models/lb-inkwell")
    assert page.locator("h1").inner_text().startswith("Inkwell (test)")
    page.wait_for_function("() => Chart.getChart('chart-boards') && Chart.getChart('chart-trend')")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.example img')).every(i => i.complete && i.naturalWidth > 0)"
    )
    assert page.locator(".example").count() >= 2
    assert page.locator("#opponents-table tbody tr").count() == 2
    page.click("text=How these numbers are computed")
    page.wait_for_url("**/methodology")
    assert "Parameters in force" in page.content()
    assert page.external_requests == []


def test_without_javascript_the_tables_carry_everything_and_the_controls_submit(browser: Browser, site):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    outside: list[str] = []
    page.on(
        "request",
        lambda r: None if r.url.startswith(("http://127.0.0.1", "data:")) else outside.append(r.url),
    )
    try:
        page.goto(site + "/leaderboard")
        assert page.locator("#lb-controls button.apply").is_visible()
        page.check("#include-modified")
        page.click("#lb-controls button.apply")
        page.wait_for_url("**include_modified=true**")
        assert "lb-ember-turbo" in _models(page)
        page.click("th[data-sort=votes] a")  # a server-side sort
        page.wait_for_url("**sort=votes**")
        votes = page.locator("#lb-table tbody tr").evaluate_all("rows => rows.map(r => +r.dataset.votes)")
        assert votes == sorted(votes, reverse=True)
        for details in page.locator("details.chart-data summary").all():
            details.click()
        assert page.locator("#chart-price ~ details table tbody tr, .chart details table").count() >= 3
        assert page.locator("#heatmap-use_case tbody tr").count() == 6
    finally:
        context.close()
    assert outside == []


def test_without_javascript_the_intervals_relative_to_control_adds_the_difference_column(
    browser: Browser, site
):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(site + "/leaderboard")
        assert "not the interval of its gap to the anchor" in page.locator("#interval-statement").inner_text()
        assert page.locator("#relative-col").count() == 0
        page.select_option("#relative-select", "anchor")
        page.click("#lb-relative button.apply")
        page.wait_for_url("**relative_to=anchor**")
        assert page.locator("#relative-col").inner_text().startswith("X − ")
        cells = page.locator("#lb-table tbody td.difference").all_inner_texts()
        assert len(cells) == len(_models(page)) and sum("[" in c for c in cells) == len(cells)
        assert "per pair" in page.locator("#relative-note").inner_text()
    finally:
        context.close()


def test_the_compare_picker_keeps_both_models_in_one_modality(page, site):
    """Issue 28 item 7: the picker mixed modalities, and a mixed pair then answered 400. Options are grouped by
    modality, and once A is chosen B offers only models of A's modality."""
    page.goto(site + "/compare")
    groups = page.locator("#compare-b optgroup").evaluate_all(
        "gs => gs.map(g => [g.label, [...g.querySelectorAll('option')].map(o => o.dataset.modality)])"
    )
    assert [label for label, _ in groups] == ["Text to image", "Image editing"]
    assert all(len(set(mods)) == 1 for _, mods in groups)
    page.select_option("#compare-a", "lb-aurora")
    offered = page.locator("#compare-b option:not(:disabled)").evaluate_all(
        "os => os.filter(o => !o.parentElement.disabled).map(o => o.value)"
    )
    assert "lb-meridian" in offered and "lb-inkwell" not in offered
    page.select_option("#compare-b", "lb-meridian")
    page.click("#compare button.apply")
    page.wait_for_url("**b=lb-meridian**")
    assert page.locator("#h2h-votes").is_visible()
