"""The arena page in a real browser: it renders the pool grid and makes no external request."""

import pytest

pytestmark = pytest.mark.e2e


def test_arena_page_shows_the_pool_grid_without_external_requests(page, live_url, tmp_path):
    page.goto(live_url + "/")
    assert page.locator("h1").inner_text() == "Image arena"
    rows = page.locator("table.grid tbody tr")
    assert rows.count() == 10
    assert page.locator("table.grid thead th").count() == 10
    page.screenshot(path=str(tmp_path / "arena.png"), full_page=True)
    assert (tmp_path / "arena.png").stat().st_size > 10_000
    assert page.external_requests == []
