"""Layout at 1440x900 (issue 28, item 5): the arena's "Show before" pill no longer styles /compare's section, and
the leaderboard table fits its container with no horizontal scroll and model names of at most two lines, on a
board with names as long as real ones and a model not yet rated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from arena.app import create_app
from tests.conftest import serve
from tests.support.unrated_board import NEWCOMER, build

pytestmark = pytest.mark.e2e

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app over a stored board with long model names (SQLite: layout does not depend on the database)."""
    root = tmp_path_factory.mktemp("layout")
    world = build(f"sqlite:///{root / 'arena.db'}", root)
    with serve(create_app(world.settings, engine=world.engine, clock=world.clock)) as url:
        yield url
    world.engine.dispose()


@pytest.fixture
def wide(browser: Browser) -> Iterator[Page]:
    """A 1440x900 page."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def test_the_compare_section_is_not_styled_as_the_show_before_pill(wide: Page, site: str):
    wide.goto(site + "/compare")
    style = wide.locator("section#compare").evaluate(
        "el => { const s = getComputedStyle(el); return {radius: s.borderTopLeftRadius, cursor: s.cursor, "
        "border: s.borderTopWidth, size: s.fontSize, body: getComputedStyle(document.body).fontSize}; }"
    )
    assert style["radius"] == "0px" and style["cursor"] == "auto" and style["border"] == "0px", style
    assert style["size"] == style["body"], style  # not the pill's .8rem


def test_the_show_before_pill_keeps_its_look_on_the_arena_page(wide: Page, site: str):
    wide.goto(site + "/")
    pill = wide.locator("button.show-before").first
    style = pill.evaluate(
        "el => ({radius: getComputedStyle(el).borderTopLeftRadius, cursor: getComputedStyle(el).cursor})"
    )
    assert style["radius"] != "0px" and style["cursor"] == "pointer", style


@pytest.mark.parametrize("query", ["", "?relative_to=anchor"])
def test_the_leaderboard_table_fits_its_container_and_names_take_at_most_two_lines(
    wide: Page, site: str, query: str
):
    wide.goto(site + "/leaderboard" + query)
    sizes = wide.locator("#lb-table").evaluate(
        "t => ({table: t.scrollWidth, box: t.parentElement.clientWidth, scroll: t.parentElement.scrollWidth})"
    )
    assert sizes["table"] <= sizes["box"] and sizes["scroll"] <= sizes["box"], sizes
    lines = wide.locator("#lb-table tbody tr[data-model] th[scope=row] a").evaluate_all(
        "links => links.map(a => { const s = getComputedStyle(a); const lh = parseFloat(s.lineHeight) || "
        "1.2 * parseFloat(s.fontSize); return [a.textContent, Math.round(a.getBoundingClientRect().height / lh)]; })"
    )
    assert len(lines) == 7 and all(n <= 2 for _name, n in lines), lines
    # P(best), the last column, is inside the visible box
    last = wide.locator("#lb-table thead th").last.evaluate(
        "th => th.getBoundingClientRect().right <= th.closest('.scroll').getBoundingClientRect().right + 0.5"
    )
    assert last
    assert wide.locator(f"#lb-unrated tr[data-model={NEWCOMER}]").count() == 1


def test_the_not_yet_rated_group_passes_axe(browser: Browser, site: str):
    context = browser.new_context(bypass_csp=True, viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(site + "/leaderboard")
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("async () => await axe.run('#lb-table', {resultTypes: ['violations']})")
        blocking = [
            (v["id"], v["help"]) for v in result["violations"] if v["impact"] in ("critical", "serious")
        ]
        assert blocking == []
    finally:
        context.close()
