"""A voter's walk through a running arena in Chromium, as a person would: N votes in a row at one window size
(keys on a desktop, taps on a phone, after looking at both images), then every reader page. Prints what a user
would notice: votes acknowledged, pairs seen, the same pair twice running, browser console errors, pages wider
than the window, images narrower than a third of the window, and the seconds per vote. Saves screenshots.

    .venv/bin/python scripts/voter_walk.py http://127.0.0.1:8000 --size 1440x900 --votes 30 --out /tmp/walk

Not a test: a record of a walk (the browser tests hold the rules). Exit 1 when a vote was not acknowledged or
the page logged an error.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

READER_PAGES = ("/leaderboard", "/compare", "/me", "/methodology")


def _size(text: str) -> tuple[int, int]:
    width, height = text.lower().split("x")
    return int(width), int(height)


def _overflow(page: Page) -> int:
    """Pixels the document is wider than the window (a horizontal scroll a reader would hit)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def _vote(page: Page, phone: bool, rng: random.Random) -> str:
    """Look at both images, then vote; returns the choice made."""
    page.wait_for_selector("#pair:not(.loading)", timeout=60_000)
    if phone and page.locator("#flip").is_visible():
        page.tap("#flip button[data-view=right]")
        page.wait_for_timeout(300)
        page.tap("#flip button[data-view=left]")
    page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=60_000)
    choice = rng.choice(["left", "left", "right", "right", "tie", "both_bad"])
    button = f"button[data-choice={choice}]"
    if phone:
        page.tap(button)
    else:
        page.keyboard.press({"left": "1", "right": "2", "tie": "3", "both_bad": "4"}[choice])
    page.wait_for_selector("#arena.revealed", timeout=60_000)
    return choice


def walk(base: str, size: tuple[int, int], votes: int, out: Path, seed: int) -> dict[str, object]:
    """Vote `votes` times at `size`, then open the reader pages; returns the figures."""
    phone = size[0] < 700
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    tag = f"{size[0]}x{size[1]}"
    errors: list[str] = []
    pairs: list[frozenset[str]] = []
    narrow: list[float] = []
    overflow: dict[str, int] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium")
        context = browser.new_context(
            viewport={"width": size[0], "height": size[1]}, is_mobile=phone, has_touch=phone
        )
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/")
        started = time.monotonic()
        for i in range(votes):
            _vote(page, phone, rng)
            names = (
                page.locator("#reveal-left a").inner_text(),
                page.locator("#reveal-right a").inner_text(),
            )
            pairs.append(frozenset(names))
            widths = page.evaluate(
                "[...document.querySelectorAll('#pair img')].filter(i => i.offsetParent)"
                ".map(i => i.getBoundingClientRect().width)"
            )
            narrow.extend(w for w in widths if w < size[0] / 3)
            if i in (0, votes - 1):
                page.screenshot(path=str(out / f"arena-{tag}-vote{i + 1}.png"))
            overflow["/"] = max(overflow.get("/", 0), _overflow(page))
            page.click("#next") if not phone else page.tap("#next")
        seconds = (time.monotonic() - started) / max(votes, 1)
        for path in READER_PAGES:
            response = page.goto(base + path)
            if response is None or response.status >= 400:
                errors.append(f"{path}: HTTP {response.status if response else 'none'}")
            overflow[path] = _overflow(page)
            page.screenshot(path=str(out / f"page{path.replace('/', '-')}-{tag}.png"), full_page=True)
        model_link = page.goto(base + "/leaderboard") and page.locator("a[href^='/models/']").first
        if model_link and model_link.count():
            href = model_link.get_attribute("href") or ""
            page.goto(base + href)
            overflow[href] = _overflow(page)
            page.screenshot(path=str(out / f"page-model-{tag}.png"), full_page=True)
        browser.close()
    repeats = sum(a == b for a, b in itertools.pairwise(pairs))
    return {
        "size": tag,
        "votes": len(pairs),
        "distinct_pairs": len(set(pairs)),
        "same_pair_twice_running": repeats,
        "seconds_per_vote": round(seconds, 2),
        "console_errors": errors,
        "overflow_px": {k: v for k, v in overflow.items() if v > 0},
        "images_narrower_than_a_third": len(narrow),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("--size", type=_size, default=(1440, 900))
    parser.add_argument("--votes", type=int, default=30)
    parser.add_argument("--out", type=Path, default=Path("/tmp/voter-walk"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = walk(args.base.rstrip("/"), args.size, args.votes, args.out, args.seed)
    print(json.dumps(result, indent=2))
    sys.exit(1 if result["console_errors"] or result["votes"] != args.votes else 0)


if __name__ == "__main__":
    main()
