"""A voter's first minute in a real Chromium, on a demo-sized field (6 models, 15 pairs) with the real clock:
30 votes in a row see varied pairs and never the same pair twice running; scrolling keys scroll and vote for
nothing; a vote before the minimum viewing time cannot be cast from the page; prompt, both images and the
buttons share one screen; the lightbox flips between the images and closes on Escape."""

import itertools
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from sqlmodel import Session, func, select

from arena.app import create_app
from arena.db.tables import Vote
from tests.conftest import serve
from tests.support.demo_field import build_demo_field

pytestmark = pytest.mark.e2e


def _site(settings, initialized, min_seconds: float) -> Iterator[str]:
    build_demo_field(settings, initialized)
    fast = settings.model_copy(
        update={
            "min_vote_seconds": min_seconds,
            "session_votes_per_minute": 600,
            "address_votes_per_minute": 600,
        }
    )
    with serve(create_app(fast, engine=initialized)) as url:
        yield url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page whose context bypasses the CSP: Playwright evaluates `wait_for_function` strings with eval,
    which the pages' `script-src 'self'` forbids. (CSP compliance of the pages is checked by the other
    browser tests, which keep the policy.)"""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    pg.external_requests = []  # type: ignore[attr-defined]
    pg.on(
        "request",
        lambda req: (
            None
            if req.url.startswith(("http://127.0.0.1", "data:"))
            else pg.external_requests.append(req.url)  # type: ignore[attr-defined]
        ),
    )
    yield pg
    context.close()


@pytest.fixture
def demo_site(settings, initialized) -> Iterator[str]:
    """The arena over the demo-sized field, real clock, a short minimum time so 30 votes stay quick."""
    yield from _site(settings, initialized, 0.5)


@pytest.fixture
def strict_site(settings, initialized) -> Iterator[str]:
    """The same with the default minimum viewing time of 2 s."""
    yield from _site(settings, initialized, 2.0)


def _phone(browser: Browser) -> Page:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True
    )
    return context.new_page()


def _loaded(page: Page) -> None:
    page.wait_for_function(
        "document.getElementById('img-right').naturalWidth > 0 && "
        "!document.getElementById('pair').classList.contains('loading')",
        timeout=20_000,
    )


def _votes(engine) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Vote)).one()


def test_thirty_votes_in_a_row_see_varied_pairs_never_the_same_twice_running(page, demo_site, initialized):
    page.goto(demo_site + "/")
    pairs = []
    for i in range(30):
        page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=20_000)
        page.keyboard.press(["1", "2", "3", "4"][i % 4])
        page.wait_for_selector("#arena.revealed", timeout=20_000)
        left = page.locator("#reveal-left a").inner_text()
        right = page.locator("#reveal-right a").inner_text()
        assert left.startswith("Model ") and right.startswith("Model ") and left != right
        pairs.append(frozenset((left, right)))
        page.keyboard.press("n")
    assert _votes(initialized) == 30
    assert all(a != b for a, b in itertools.pairwise(pairs)), pairs
    assert len(set(pairs)) >= 10
    assert page.external_requests == []


def test_scrolling_keys_scroll_and_vote_for_nothing(browser, demo_site, initialized):
    # A phone-width window with a keyboard: image, buttons and hints stack, so the page is taller than the
    # window (on a desktop window the matchup fits one screen and there is nothing to scroll).
    page = browser.new_context(viewport={"width": 390, "height": 700}, bypass_csp=True).new_page()
    page.goto(demo_site + "/")
    _loaded(page)
    page.click("#flip button[data-view=right]")  # one image at a time: the vote opens once B was seen too
    page.click("#flip button[data-view=left]")
    page.evaluate(
        "document.activeElement.blur()"
    )  # Space on a focused button presses it instead of scrolling
    page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=20_000)
    assert page.evaluate("document.documentElement.scrollHeight > window.innerHeight + 200")
    assert page.evaluate("document.activeElement.closest('#choices') === null")  # no vote button has focus
    for key in ("ArrowDown", "Space", "PageDown", "ArrowUp"):
        start = "document.documentElement.scrollHeight" if key == "ArrowUp" else "0"
        page.evaluate(f"window.scrollTo({{top: {start}, behavior: 'instant'}})")
        page.wait_for_timeout(400)  # keyboard scrolling is animated: let an earlier scroll settle first
        before = page.evaluate("window.scrollY")
        page.keyboard.press(key)
        moved = "<" if key == "ArrowUp" else ">"
        page.wait_for_function(f"window.scrollY {moved} {before}", timeout=5_000)
    # the tab list takes arrows without voting or reloading either
    page.focus("[role=tab][aria-selected=true]")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.modality") == "image_editing"
    assert page.locator("[role=tab][data-modality=text_to_image]").get_attribute("aria-selected") == "true"
    page.wait_for_timeout(500)
    assert _votes(initialized) == 0
    assert not page.locator("#arena.revealed").count()
    page.context.close()


def test_a_vote_before_the_minimum_time_cannot_be_cast_from_the_page(page, strict_site, initialized):
    page.goto(strict_site + "/")
    _loaded(page)
    assert page.locator("button[data-choice=left]").is_disabled()
    page.keyboard.press("1")
    page.locator("button[data-choice=right]").click(force=True)
    page.wait_for_timeout(300)
    assert _votes(initialized) == 0
    page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=10_000)
    page.keyboard.press("1")
    page.wait_for_selector("#arena.revealed", timeout=20_000)
    assert _votes(initialized) == 1
    assert "You chose A" in page.locator("#status").inner_text()


@pytest.mark.parametrize("size", [(1440, 900), (1366, 768), (1280, 720)])
def test_prompt_images_and_buttons_share_one_screen(browser, demo_site, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)
    page = context.new_page()
    page.goto(demo_site + "/")
    _loaded(page)
    for selector in (
        "#prompt",
        "#img-left",
        "#img-right",
        "button[data-choice=left]",
        "button[data-choice=right]",
        "#skip",
    ):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size[1], (selector, box)
    assert page.locator("#img-left").bounding_box()["width"] >= 300
    context.close()


def test_on_a_phone_the_vote_bar_stays_reachable_while_scrolling(browser, demo_site):
    page = _phone(browser)
    page.goto(demo_site + "/")
    _loaded(page)
    page.tap("#flip button[data-view=right]")
    page.locator("#side-right figcaption").scroll_into_view_if_needed()
    bar = page.locator("#choices").bounding_box()
    assert bar["y"] + bar["height"] <= 844 + 1
    page.wait_for_selector("button[data-choice=right]:not([disabled])", timeout=10_000)
    page.tap("button[data-choice=right]")
    page.wait_for_selector("#arena.revealed", timeout=20_000)
    page.tap("#next")
    page.wait_for_function("window.scrollY === 0")
    page.context.close()


def test_the_lightbox_shows_full_size_flips_and_closes_on_escape(page, demo_site, initialized):
    page.goto(demo_site + "/")
    _loaded(page)
    page.focus("button.zoom[data-side=left]")
    page.keyboard.press("Enter")
    assert page.locator("#lightbox").evaluate("d => d.open")
    assert page.locator("#lightbox-title").inner_text() == "Image A"
    left_src = page.locator("#lightbox-img").get_attribute("src")
    page.keyboard.press("ArrowRight")
    assert page.locator("#lightbox-title").inner_text() == "Image B"
    assert page.locator("#lightbox-img").get_attribute("src") != left_src
    page.keyboard.press("1")  # no vote while the full-size view is open
    page.keyboard.press("Escape")
    assert not page.locator("#lightbox").evaluate("d => d.open")
    assert _votes(initialized) == 0


def test_skip_stores_no_vote_and_loads_another_matchup(page, demo_site, initialized):
    page.goto(demo_site + "/")
    _loaded(page)
    first = page.locator("#img-left").get_attribute("src")
    page.click("#skip")
    page.wait_for_function(f"document.getElementById('img-left').getAttribute('src') !== {first!r}")
    _loaded(page)
    assert _votes(initialized) == 0
