"""The "Your prompt" tab in a real Chromium, at desktop (1440x900) and phone (390x844) sizes: switch to the tab,
type a prompt, see progress, get both images together, vote once voting opens, see the reveal; the privacy
statement is on the page; no horizontal scrolling, and no request leaves the loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from sqlalchemy import Engine

from arena.settings import Settings
from tests.conftest import serve
from tests.support.open_world import open_settings, register, sandbox

pytestmark = pytest.mark.e2e
SIZES = [(1440, 900), (390, 844)]


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def sized(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    width, height = request.param
    phone = width < 600
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    page = context.new_page()
    page.external_requests = []  # type: ignore[attr-defined]
    page.on(
        "request",
        lambda r: (
            None
            if r.url.startswith(("http://127.0.0.1", "data:", "blob:"))
            else page.external_requests.append(r.url)
        ),
    )  # type: ignore[attr-defined]
    yield page
    context.close()


def test_the_whole_open_prompt_flow(sized: Page, settings: Settings, initialized: Engine) -> None:
    from arena.app import create_app

    register(initialized, "".join(sandbox(s, ms=400) for s in ("e2e-one", "e2e-two", "e2e-three")))
    app = create_app(open_settings(settings, min_vote_seconds=1.0), engine=initialized)
    page = sized
    with serve(app) as url:
        page.goto(url + "/")
        assert page.is_visible("#arena") and not page.is_visible("#open")
        page.click("#tab-open")
        assert page.get_attribute("#tab-open", "aria-selected") == "true"
        assert page.is_visible("#open") and not page.is_visible("#arena")
        assert "what is stored, for how long, who can read it" in page.inner_text("#open-privacy summary")
        page.fill("#open-prompt", 'a paper boat on a pond, a flag reading "HI"')
        page.click("#open-go")
        page.wait_for_selector("#open-progress:not([hidden])", timeout=10_000)
        page.wait_for_selector("#open-stage:not([hidden])", timeout=30_000)
        widths = page.evaluate(
            "['left','right'].map(s => document.getElementById('open-img-' + s).naturalWidth)"
        )
        assert widths == [1024, 1024]  # both images arrive together
        assert "e2e-" not in page.content()  # no model named before the vote
        page.wait_for_selector("[data-open-choice=left]:not([disabled])", timeout=10_000)
        overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page scrolls sideways by {overflow}px"
        page.click("[data-open-choice=left]")
        page.wait_for_selector("#open-reveal-left:not(:empty)", timeout=10_000)
        assert "display" in page.inner_text("#open-reveal-left")
        assert "counted" in page.inner_text("#open-status")
        assert page.is_visible("#open-again")
    assert page.external_requests == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_open_prompt_tab_has_no_serious_axe_violation(
    browser: Browser, settings: Settings, initialized: Engine, size: str
) -> None:
    from arena.app import create_app
    from tests.e2e.test_accessibility import VIEWPORTS, _axe, _report

    register(initialized, "".join(sandbox(s, ms=50) for s in ("e2e-one", "e2e-two")))
    context = browser.new_context(
        bypass_csp=True, **VIEWPORTS[size]
    )  # axe is injected (see test_accessibility)
    page = context.new_page()
    try:
        with serve(create_app(open_settings(settings), engine=initialized)) as url:
            page.goto(url + "/")
            page.click("#tab-open")
            page.click("#open-privacy summary")
            violations = _axe(page)
            page.fill("#open-prompt", "a red kite")
            page.click("#open-go")
            page.wait_for_selector("[data-open-choice=left]:not([disabled])", timeout=30_000)
            violations += _axe(page)
    finally:
        context.close()
    assert not violations, _report(f"the Your prompt tab at {size}", violations)
