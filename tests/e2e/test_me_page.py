"""/me in a real Chromium (the site's CSP kept): vote through the arena page until 20 votes counted, then open
"My votes" from the nav and find those votes, newest first with the models the reveal named, and a personal
board (or the models it cannot place yet, with why); at phone width each vote is a card and nothing scrolls
sideways."""

from collections.abc import Iterator

import pytest

from arena.app import create_app
from tests.conftest import serve
from tests.support.demo_field import build_demo_field

pytestmark = pytest.mark.e2e
VOTES = 21


@pytest.fixture
def site(settings, initialized) -> Iterator[str]:
    """The arena over six models, with a short minimum viewing time so the votes stay quick."""
    build_demo_field(settings, initialized)
    fast = settings.model_copy(
        update={"min_vote_seconds": 0.5, "session_votes_per_minute": 600, "address_votes_per_minute": 600}
    )
    with serve(create_app(fast, engine=initialized)) as url:
        yield url


def test_after_voting_through_the_page_my_votes_lists_them_and_fits_a_personal_board(page, site):
    page.goto(site + "/")
    revealed = []
    for i in range(VOTES):
        page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=20_000)
        page.keyboard.press(["1", "2", "1", "3"][i % 4])
        page.wait_for_selector("#arena.revealed", timeout=20_000)
        revealed.append(
            (page.locator("#reveal-left a").inner_text(), page.locator("#reveal-right a").inner_text())
        )
        page.keyboard.press("n")
    page.get_by_role("link", name="My votes").click()
    page.wait_for_selector("#me-summary")
    assert (
        f"{VOTES} votes from this browser session, {VOTES} counted"
        in page.locator("#me-summary").inner_text()
    )
    rows = page.locator("table.me-votes tbody tr")
    assert rows.count() == VOTES
    newest = rows.nth(0).locator("td")
    assert (newest.nth(3).inner_text(), newest.nth(4).inner_text()) == revealed[-1]
    oldest = rows.nth(VOTES - 1).locator("td")
    assert (oldest.nth(3).inner_text(), oldest.nth(4).inner_text()) == revealed[0]
    assert oldest.nth(5).inner_text() == "A is better" and oldest.nth(6).inner_text() == "Yes"
    assert page.locator("#me-text_to_image h2").inner_text() == "Text to image"
    placed = page.locator("#board-text_to_image tbody tr").count()
    unplaced = page.locator("#unplaced-text_to_image tbody tr").count()
    assert placed + unplaced == len({m for pair in revealed for m in pair})  # every model met is on one list
    assert placed == 0 or placed >= 2
    assert "no public board has been published yet" in page.locator("#agreement-text_to_image").inner_text()
    page.screenshot(path="/tmp/me-page.png", full_page=True)
    assert page.external_requests == []
    # On a phone each vote is a card of labelled lines: the models are within the window, nothing scrolls
    # sideways (the seven-column table did); the page itself (and the methodology it links to, whose long
    # commands used to widen it) stays as wide as the window.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(site + "/me")
    assert page.locator("#me-votes .scroll").evaluate("r => r.scrollWidth <= r.clientWidth + 1")
    for cell in (3, 4, 5):
        box = page.locator("table.me-votes tbody tr").first.locator("td").nth(cell).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (cell, box)
    for path in ("/me", "/methodology"):
        page.goto(site + path)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
