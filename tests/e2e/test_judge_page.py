"""The judge calibration page in a real browser, desktop and phone: an operator signs in and reads agreement,
position bias, the judge board, and the disagreements with both images loaded; nothing leaves the loopback."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from arena.app import create_app
from arena.judge.client import JudgeClient, JudgeConfig
from arena.judge.run import run_matchups
from arena.judge.scenario_rubrics import load_rubrics
from arena.leaderboard.snapshots import take_snapshot
from arena.media.store import MediaStore
from tests.conftest import serve
from tests.support.judge_world import accurate, seed_votes

pytestmark = pytest.mark.e2e


@pytest.fixture
def judged_site(world, settings, fake_chat):
    settings.overall_anchor = settings.slice_anchor = "model-0"
    settings.bootstrap_rounds = 50
    seed_votes(world)
    take_snapshot(world, settings, modality="text_to_image", refilter=False)
    fake_chat.responder = accurate(80)
    client = JudgeClient(JudgeConfig(base_url=fake_chat.base_url, model="fake-judge"), world)
    # In a thread of its own: Playwright's sync API may already run an event loop in this one.
    worker = threading.Thread(
        target=run_matchups,
        args=(world, client),
        kwargs={
            "judge_model": "fake-judge",
            "rubrics": load_rubrics(),
            "media": MediaStore(settings.media_dir),
            "modality": "text_to_image",
            "sample": 48,
        },
    )
    worker.start()
    worker.join()
    with serve(create_app(settings, engine=world)) as url:
        yield url


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_an_operator_reads_the_judge_report_with_the_disagreement_images(browser, judged_site, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    external: list[str] = []
    page.on(
        "request",
        lambda r: None if r.url.startswith(("http://127.0.0.1", "data:")) else external.append(r.url),
    )
    page.goto(judged_site + "/admin/judge")
    page.fill("#token", "test-operator-token")
    page.click("form.signin button[type=submit]")
    page.goto(judged_site + "/admin/judge")
    page.wait_for_selector("#agreement")
    assert "overall" in page.inner_text("#agreement") and "0.0%" in page.inner_text("#position-bias")
    assert "Kendall" in page.inner_text("#correlation")
    images = page.locator("#disagreements img")
    assert images.count() >= 2
    for k in range(2):  # the images load lazily: bring them into view, as a reader scrolling down would
        images.nth(k).scroll_into_view_if_needed()
    loaded = "() => [...document.querySelectorAll('#disagreements img')].slice(0, 2).every(i => i.naturalWidth > 0)"
    page.wait_for_function(loaded)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0  # wide tables scroll inside their box, not the page
    shots = os.environ.get("ARENA_SCREENSHOT_DIR")
    if shots:
        page.screenshot(path=str(Path(shots) / f"judge-{width}.png"), full_page=False)
        page.locator("#disagreements").scroll_into_view_if_needed()
        page.screenshot(path=str(Path(shots) / f"judge-{width}-disagreements.png"), full_page=False)
    assert external == []
    context.close()
