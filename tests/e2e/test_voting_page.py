"""Voting in a real browser: ten matchups by mouse and keyboard, reveal after each vote, phone layout. The app
runs on a frozen clock, so each test moves it past the minimum time before voting (else the vote is stored
but not counted, and nothing is revealed)."""

from datetime import timedelta

import pytest
from sqlmodel import Session, func, select

from arena.db.tables import Vote
from arena.media.variants import FULL_SIZE, SIZE_CLASSES

pytestmark = pytest.mark.e2e


def _ready(page, frozen=None):
    page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=20_000)
    if frozen is not None:  # the matchup was served before the buttons were enabled
        frozen.advance(timedelta(seconds=5))
    assert (
        page.locator("#reveal-left").inner_text() == "" and page.locator("#reveal-right").inner_text() == ""
    )
    # One size class for the matchup (chosen from the layout and the device, never per side or model).
    left, right = (
        page.locator(f"#img-{side}").evaluate("img => img.naturalWidth") for side in ("left", "right")
    )
    assert left == right and left in SIZE_CLASSES


def _revealed(page):
    page.wait_for_selector("#arena.revealed", timeout=20_000)
    left, right = page.locator("#reveal-left a").inner_text(), page.locator("#reveal-right a").inner_text()
    assert left.startswith("Model ") and right.startswith("Model ") and left != right
    return left, right


def _side(vote: Vote) -> str:
    if vote.winner == "tie":
        return "tie"
    if vote.winner == "tie (bothbad)":
        return "both_bad"
    other = "right" if vote.a_side == "left" else "left"
    return vote.a_side if vote.winner == "model_a" else other


def test_ten_votes_with_mouse_and_keyboard_each_reveal_the_models(page, live_world, world, frozen, tmp_path):
    page.goto(live_world + "/")
    for i, choice in enumerate(["left", "right", "tie", "both_bad", "left"]):
        _ready(page, frozen)
        page.click(f"button[data-choice={choice}]")
        _revealed(page)
        if i == 0:
            page.screenshot(path=str(tmp_path / "arena.png"), full_page=True)
            assert (tmp_path / "arena.png").stat().st_size > 20_000
        page.click("#next")
    for key in ["1", "2", "3", "4", "2"]:
        _ready(page, frozen)
        page.keyboard.press(key)
        _revealed(page)
        page.keyboard.press("n")
    _ready(page)
    assert page.locator("#votes-count").inner_text() == "10"
    with Session(world) as s:
        votes = s.exec(select(Vote)).all()
        assert s.exec(select(func.count()).select_from(Vote)).one() == 10
    # The winner is stored as model_a / model_b, and which side model_a sits on is a coin flip, so compare
    # the side each vote chose with the buttons and keys pressed, in order.
    votes.sort(key=lambda v: v.id)
    chosen = [_side(v) for v in votes]
    assert chosen == ["left", "right", "tie", "both_bad", "left", "left", "right", "tie", "both_bad", "right"]
    assert all(v.images_fetched and v.source == "human" for v in votes)
    assert page.external_requests == []


def test_editing_tab_shows_the_reference_image_and_the_instruction(page, live_world, world, frozen):
    page.goto(live_world + "/")
    _ready(page)
    page.click("[role=tab][data-modality=image_editing]")
    page.wait_for_selector("#side-reference:not([hidden])", timeout=20_000)
    _ready(page, frozen)
    widths = {
        page.locator(f"#img-{s}").evaluate("img => img.naturalWidth") for s in ("reference", "left", "right")
    }
    assert len(widths) == 1 and widths <= set(SIZE_CLASSES)
    assert page.locator("#prompt-label").text_content() == "Edit instruction"
    assert "edited the reference image" in page.locator("#lede").inner_text()
    assert "Unchanged parts" in page.locator("#hints").inner_text()
    ref = page.locator("#side-reference").bounding_box()
    out = page.locator("#side-left").bounding_box()
    assert abs(ref["width"] - out["width"]) < 2  # the reference is as large as the outputs
    before = page.locator("#img-left").get_attribute("src")
    page.click("button.show-before[data-side=left]")
    assert page.locator("#img-left").get_attribute("src") == page.locator("#img-reference").get_attribute(
        "src"
    )
    page.click("button.show-before[data-side=left]")
    assert page.locator("#img-left").get_attribute("src") == before
    page.keyboard.press("1")
    _revealed(page)


def test_on_a_phone_the_images_stack_and_the_buttons_fit(browser, live_world, world, frozen):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(live_world + "/")
        _ready(page, frozen)
        left = page.locator("#side-left").bounding_box()
        right = page.locator("#side-right").bounding_box()
        assert right["y"] >= left["y"] + left["height"] - 1  # stacked, not side by side
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # A phone shows each image at about 166 px: it gets the smallest size class, and full size on tap.
        assert page.locator("#img-left").evaluate("img => img.naturalWidth") == SIZE_CLASSES[0]
        page.tap("#side-left button.zoom")
        page.wait_for_function(
            f"() => document.getElementById('lightbox-img').naturalWidth === {FULL_SIZE}", timeout=20_000
        )
        page.keyboard.press("Escape")
        page.tap("button[data-choice=right]")
        _revealed(page)
    finally:
        context.close()
