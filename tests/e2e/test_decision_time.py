"""Time to a decision at the minimum time, pairwise and K-wise measured alike (issue 31's voter-time figure).

One server on the real clock with a demo-sized field and both modes on; one Chromium at 1440x900 plays a voter
who decides as soon as the page allows it: for a pair, a click on the left image's button the moment the
buttons are enabled; for four images, three taps and a submit the moment ranking opens. Each vote's time is
the server's own served->stored interval. This is the floor of a voter's time per interaction (the minimum
time plus the page's own steps), not a human's decision time, which no scripted browser can measure; the bench
`bench_kwise --seconds` takes these figures. Set ``ARENA_DECISION_TIMES=PATH`` to also write them as JSON."""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from sqlalchemy import select

from arena.app import create_app
from arena.db.tables import KwiseVote, Vote
from arena.voting.kwise_pick import K
from arena.voting.kwise_service import kwise_min_seconds
from tests.conftest import serve
from tests.support.demo_field import build_demo_field

pytestmark = pytest.mark.e2e

TRIALS = 3


@pytest.fixture
def both_settings(settings):
    return settings.model_copy(
        update={"kwise": True, "session_votes_per_minute": 600, "address_votes_per_minute": 600}
    )


@pytest.fixture
def both_site(both_settings, initialized) -> Iterator[str]:
    build_demo_field(both_settings, initialized)
    with serve(create_app(both_settings, engine=initialized)) as url:
        yield url


def _pairwise_seconds(page: Page, engine, trials: int) -> list[float]:
    for _ in range(trials):
        page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=20_000)
        page.click("button[data-choice=left]")
        page.wait_for_selector("#arena.revealed", timeout=20_000)
        page.click("#next")
    with engine.connect() as conn:
        rows = conn.execute(select(Vote.served_at, Vote.voted_at).order_by(Vote.id)).all()
    return [(voted - served).total_seconds() for served, voted in rows]


def _kwise_seconds(page: Page, engine, trials: int) -> list[float]:
    for _ in range(trials):
        page.wait_for_selector("#k-grid:not(.loading)", timeout=20_000)
        page.wait_for_selector(".k-pick:not([disabled])", timeout=20_000)
        for position in (2, 0, 3):
            page.locator(f'.k-pick[data-position="{position}"]').click()
        page.locator("#k-submit").click()
        page.wait_for_selector("#k-next:not([hidden])", timeout=20_000)
        page.locator("#k-next").click()
    with engine.connect() as conn:
        return [float(s) for (s,) in conn.execute(select(KwiseVote.seconds).order_by(KwiseVote.id))]


def test_time_to_a_decision_at_the_minimum_time_pairwise_and_kwise(
    browser: Browser, both_site, initialized, both_settings
):
    page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
    page.goto(both_site + "/")
    pair = _pairwise_seconds(page, initialized, TRIALS)
    page.goto(both_site + "/?mode=rank")
    ranked = _kwise_seconds(page, initialized, TRIALS)
    page.context.close()
    assert len(pair) == TRIALS and len(ranked) == TRIALS
    pair_min, rank_min = both_settings.min_vote_seconds, kwise_min_seconds(both_settings)
    assert all(s >= pair_min for s in pair) and all(s >= rank_min for s in ranked)
    figures = {"2": statistics.median(pair), str(K): statistics.median(ranked)}
    assert figures[str(K)] > figures["2"]  # four images never take less than two at these minimums
    print(
        f"\ntime to a decision at the minimum time (served->stored, median of {TRIALS}): "
        f"pair {figures['2']:.2f} s (minimum {pair_min:g} s; {', '.join(f'{s:.2f}' for s in pair)}); "
        f"K={K} {figures[str(K)]:.2f} s (minimum {rank_min:g} s; {', '.join(f'{s:.2f}' for s in ranked)}); "
        f"ratio {figures[str(K)] / figures['2']:.2f}"
    )
    out = os.environ.get("ARENA_DECISION_TIMES")
    if out:
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({"seconds": figures, "minimum": {"2": pair_min, str(K): rank_min}}, handle, indent=2)
