"""The arena on a phone (390x844 and 360x740) in a real Chromium: one matchup image at a time at the full content
width, switched by an A / B control or a swipe, the reference of an edit matchup one tap away, the sticky vote
bar never covering an image or a caption, and voting by tap and by key once both images have been seen.
Screenshots of each size go to $ARENA_SCREENSHOTS when set (else the test's temporary folder)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from arena.media.variants import SIZE_CLASSES

pytestmark = pytest.mark.e2e

PHONES = [(390, 844), (360, 740)]
SIDES = ("reference", "left", "right")


@pytest.fixture(params=PHONES, ids=lambda s: f"{s[0]}x{s[1]}")
def phone(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    """A touch page at a phone size (the page's CSP in force)."""
    width, height = request.param
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    page = context.new_page()
    yield page
    context.close()


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _loaded(page: Page) -> None:
    page.wait_for_selector("#pair:not(.loading)", timeout=20_000)
    page.wait_for_selector("#skip:not([disabled])", timeout=20_000)


def _content_width(page: Page) -> float:
    """The width of the page's content box (the viewport less the main column's padding)."""
    return page.evaluate(
        "(() => { const m = document.querySelector('main'); const s = getComputedStyle(m);"
        " return m.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight); })()"
    )


def _visible(page: Page) -> list[str]:
    """The matchup images on show (reference, left, right), in that order."""
    return [s for s in SIDES if page.locator(f"#img-{s}").is_visible()]


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def _show(page: Page, side: str) -> None:
    page.tap(f"#flip button[data-view={side}]")
    assert _visible(page) == [side]
    assert page.locator(f"#flip button[data-view={side}]").get_attribute("aria-pressed") == "true"


def _swipe(page: Page, dx: int) -> None:
    """A horizontal swipe over the image: touch events as a finger makes them, dispatched on the image. (The
    DevTools protocol's synthetic touches leave Chromium's gesture detector swallowing the next tap now and
    then, which would make the taps that follow flaky.)"""
    page.locator("#pair").evaluate(
        """(pair, dx) => {
            const img = Array.from(pair.querySelectorAll('img')).find((i) => i.getBoundingClientRect().width > 0);
            const r = img.getBoundingClientRect();
            const y = r.top + r.height / 2, x0 = r.left + r.width / 2 - dx / 2;
            const touch = (x) => new Touch({identifier: 1, target: img, clientX: x, clientY: y});
            const fire = (type, x, down) => img.dispatchEvent(new TouchEvent(type, {
                bubbles: true, cancelable: true, touches: down ? [touch(x)] : [],
                targetTouches: down ? [touch(x)] : [], changedTouches: [touch(x)]}));
            fire('touchstart', x0, true);
            for (const step of [1, 2, 3, 4, 5]) fire('touchmove', x0 + dx * step / 5, true);
            fire('touchend', x0 + dx, false);
        }""",
        dx,
    )


def _overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"] - 0.5
        and b["x"] < a["x"] + a["width"] - 0.5
        and a["y"] < b["y"] + b["height"] - 0.5
        and b["y"] < a["y"] + a["height"] - 0.5
    )


def _bar_covers_nothing(page: Page, where: str) -> None:
    """At the top, the middle and the bottom of the page, no visible image or caption meets the vote bar."""
    bottom = page.evaluate("document.documentElement.scrollHeight - window.innerHeight")
    for top in (0, bottom // 2, bottom):
        page.evaluate(f"window.scrollTo({{top: {top}, behavior: 'instant'}})")
        bar = _box(page, "#choices")
        for selector in ("#pair .side img", "#pair .side figcaption"):
            items = page.locator(selector)
            for i in range(items.count()):
                if not items.nth(i).is_visible():
                    continue
                box = items.nth(i).bounding_box()
                assert box is not None and not _overlaps(box, bar), (where, top, selector, i, box, bar)
    page.evaluate("window.scrollTo({top: 0, behavior: 'instant'})")


def _full_width(page: Page, side: str) -> float:
    width = _box(page, f"#img-{side}")["width"]
    content = _content_width(page)
    print(f"{page.viewport_size}: #img-{side} {width:.0f} px of {content:.0f} px content width")
    assert width >= 0.9 * content, (side, width, content)
    return width


def test_a_phone_shows_one_image_at_full_width_and_switches_by_tap_and_swipe(phone, live_world, tmp_path):
    phone.goto(live_world + "/")
    _loaded(phone)
    size = phone.viewport_size
    phone.screenshot(path=str(_shots(tmp_path) / f"phone-{size['width']}x{size['height']}.png"))
    assert phone.evaluate("document.documentElement.scrollWidth") <= size["width"]
    _full_width(phone, "left")
    assert _visible(phone) == ["left"]
    assert phone.locator("#flip button[data-view=reference]").is_hidden()  # no reference: two images
    _show(phone, "right")
    _full_width(phone, "right")
    phone.screenshot(path=str(_shots(tmp_path) / f"phone-{size['width']}x{size['height']}-b.png"))
    _show(phone, "left")
    _swipe(phone, -160)  # finger moves left: the next image, B
    assert _visible(phone) == ["right"]
    _swipe(phone, 160)
    assert _visible(phone) == ["left"]
    # One size class for both sides, picked from the displayed width (Playwright's device pixel ratio is 1).
    natural = {phone.locator(f"#img-{s}").evaluate("i => i.naturalWidth") for s in ("left", "right")}
    assert natural == {next(s for s in SIZE_CLASSES if s >= 0.9 * _box(phone, "#img-left")["width"])}


def test_an_edit_matchup_shows_the_output_full_width_and_the_reference_one_tap_away(
    phone, live_world, tmp_path
):
    phone.goto(live_world + "/")
    _loaded(phone)
    phone.tap("[role=tab][data-modality=image_editing]")
    phone.wait_for_selector("#arena.editing #pair:not(.loading)", timeout=20_000)
    _loaded(phone)
    size = phone.viewport_size
    phone.screenshot(path=str(_shots(tmp_path) / f"phone-{size['width']}x{size['height']}-edit.png"))
    assert _visible(phone) == ["left"]
    _full_width(phone, "left")
    _show(phone, "reference")
    _full_width(phone, "reference")
    assert "Reference" in phone.locator("#side-reference figcaption").inner_text()
    natural = {phone.locator(f"#img-{s}").evaluate("i => i.naturalWidth") for s in SIDES}
    assert len(natural) == 1 and natural <= set(SIZE_CLASSES)  # the same class for all three
    _swipe(phone, -160)
    assert _visible(phone) == ["left"]
    _bar_covers_nothing(phone, "edit, A")
    _show(phone, "right")
    _bar_covers_nothing(phone, "edit, B")


def test_the_vote_bar_never_covers_an_image_or_a_caption(phone, live_world, frozen):
    phone.goto(live_world + "/")
    _loaded(phone)
    for side in ("left", "right"):
        if _visible(phone) != [side]:
            _show(phone, side)
        _bar_covers_nothing(phone, side)
    phone.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=20_000)
    frozen.advance(timedelta(seconds=5))
    phone.tap("button[data-choice=right]")
    phone.wait_for_selector("#arena.revealed", timeout=20_000)
    _bar_covers_nothing(phone, "after the vote")  # the captions now name the models


def test_on_a_phone_the_vote_opens_once_both_images_were_seen_and_works_by_tap_and_key(
    phone, live_world, frozen
):
    phone.goto(live_world + "/")
    _loaded(phone)
    phone.wait_for_timeout(2_500)  # past the minimum viewing time
    assert phone.locator("button[data-choice=left]").is_disabled()  # B not seen yet
    assert "B" in phone.locator("#status").inner_text()
    phone.keyboard.press("1")
    phone.wait_for_timeout(200)
    assert not phone.locator("#arena.revealed").count()
    _swipe(phone, -160)
    phone.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=20_000)
    frozen.advance(timedelta(seconds=5))
    phone.tap("button[data-choice=left]")
    phone.wait_for_selector("#arena.revealed", timeout=20_000)
    names = phone.locator("#reveal-left a").inner_text(), phone.locator("#reveal-right a").inner_text()
    assert all(n.startswith("Model ") for n in names)
    # the reveal is on screen without scrolling: the status line naming both models sits in the vote bar
    status, height = _box(phone, "#status"), phone.viewport_size["height"]
    assert status["y"] >= 0 and status["y"] + status["height"] <= height, status
    assert all(n in phone.locator("#status").inner_text() for n in names)
    phone.tap("#next")
    _loaded(phone)
    assert _visible(phone) == ["left"]  # each matchup starts on A
    assert phone.locator("#reveal-left").inner_text() == ""
    _show(phone, "right")
    phone.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=20_000)
    frozen.advance(timedelta(seconds=5))
    phone.keyboard.press("2")
    phone.wait_for_selector("#arena.revealed.chose-right", timeout=20_000)
    assert phone.locator("#votes-count").inner_text() == "2"
