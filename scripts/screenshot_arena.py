"""Screenshots of the arena page at the sizes voters use, from a running arena (for example `make run`):
docs/arena-1440x900.png, docs/arena-1366x768.png, docs/arena-390x844.png (and an edit matchup at 1440x900, the
reveal after a vote at 1440x900 and 390x844).
Each is the first screen only (no full-page capture), so it shows what a voter sees without scrolling.

    .venv/bin/python scripts/screenshot_arena.py http://127.0.0.1:8000 [--out docs]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

SIZES = [(1440, 900), (1366, 768), (390, 844)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--out", type=Path, default=Path("docs"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for width, height in SIZES:
            phone = width < 700
            context = browser.new_context(
                viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
            )
            page = context.new_page()
            page.goto(args.url.rstrip("/") + "/")
            if phone:  # one image at a time: the vote opens once B was seen too
                page.wait_for_selector("#pair:not(.loading)", timeout=60_000)
                page.tap("#flip button[data-view=right]")
                page.tap("#flip button[data-view=left]")
            page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=60_000)
            page.screenshot(path=str(args.out / f"arena-{width}x{height}.png"))
            if phone:
                page.tap("button[data-choice=right]")
                page.wait_for_selector("#arena.revealed", timeout=30_000)
                page.screenshot(path=str(args.out / f"arena-reveal-{width}x{height}.png"))
            if width == 1440:
                page.click("button[data-choice=left]")
                page.wait_for_selector("#arena.revealed", timeout=30_000)
                page.screenshot(path=str(args.out / "arena-reveal-1440x900.png"))
                page.click("#next")
                page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=60_000)
                page.click("[role=tab][data-modality=image_editing]")
                try:
                    page.wait_for_selector("#side-reference:not([hidden])", timeout=30_000)
                    page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=60_000)
                    page.screenshot(path=str(args.out / "arena-edit-1440x900.png"))
                except PlaywrightError:
                    print("no editing matchup yet: skipped arena-edit-1440x900.png")
            context.close()
        browser.close()
    print(f"screenshots in {args.out}/")


if __name__ == "__main__":
    main()
