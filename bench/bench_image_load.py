"""Bytes per matchup and time to both images on the arena page over a throttled link. Builds a throwaway arena of
the six text-to-image sandbox models (outputs for the first `--prompts` prompts), serves it with uvicorn, and
drives Debian's Chromium through Playwright: per device (a 390x844 phone at 3 device pixels per CSS pixel,
1440x900 desktops at 1x and 2x) and per link profile (set by the DevTools protocol's
`Network.emulateNetworkConditions`: `4g` is 9 Mbit/s down, 1.5 up, 170 ms round trip; `3g` is 1.6 Mbit/s down,
0.75 up, 300 ms; `none` is loopback), it loads `--matchups` matchups one after another (the Skip button, which
stores nothing) and records, per matchup, the time from asking for it (the click) to both images decoded and
shown, and the bytes of its images (Resource Timing: transfer size, headers included). Prints medians.

    python bench/bench_image_load.py [--matchups 7] [--prompts 6] [--profiles 4g,3g] [--devices phone,desktop]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from playwright.sync_api import Browser, sync_playwright  # noqa: E402

from arena.app import create_app  # noqa: E402
from arena.db import make_engine  # noqa: E402
from arena.initialize import initialize  # noqa: E402
from arena.settings import Settings  # noqa: E402
from tests.conftest import serve  # noqa: E402
from tests.support.anonymity import build_world  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
PROFILES = {  # bytes per second; latency in ms (the round trip Chromium adds to each request)
    "4g": {"downloadThroughput": 9e6 / 8, "uploadThroughput": 1.5e6 / 8, "latency": 170},
    "3g": {"downloadThroughput": 1.6e6 / 8, "uploadThroughput": 0.75e6 / 8, "latency": 300},
    "none": {"downloadThroughput": -1, "uploadThroughput": -1, "latency": 0},
}
DEVICES = {
    "phone 390x844 @3x": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 3,
        "is_mobile": True,
    },
    "desktop 1440x900 @1x": {"viewport": {"width": 1440, "height": 900}, "device_scale_factor": 1},
    "desktop 1440x900 @2x": {"viewport": {"width": 1440, "height": 900}, "device_scale_factor": 2},
}
LOADED = (
    "() => !document.getElementById('pair').classList.contains('loading')"
    " && !document.getElementById('skip').disabled"
)
IMAGE_BYTES = """() => performance.getEntriesByType('resource')
    .filter((e) => e.name.includes('/img/'))
    .map((e) => ({name: e.name, bytes: e.transferSize || e.encodedBodySize}))"""


def measure(browser: Browser, url: str, device: dict, profile: dict, matchups: int) -> dict:
    """Median time to both images and bytes per matchup (and the image width shown) over `matchups` loads."""
    context = browser.new_context(**device)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", {"offline": False, **profile})
    try:
        page.goto(url + "/", timeout=120_000)
        page.wait_for_function(LOADED, timeout=120_000)
        seconds, sizes = [], []
        for _ in range(matchups):
            page.evaluate("performance.clearResourceTimings()")
            started = page.evaluate("performance.now()")
            page.click("#skip")
            page.wait_for_function("() => document.getElementById('pair').classList.contains('loading')")
            page.wait_for_function(LOADED, timeout=120_000, polling=20)
            seconds.append((page.evaluate("performance.now()") - started) / 1000)
            sizes.append(sum(e["bytes"] for e in page.evaluate(IMAGE_BYTES)))
        width = page.locator("#img-left").evaluate("img => img.naturalWidth")
        shown = page.locator("#img-left").evaluate("img => img.getBoundingClientRect().width")
    finally:
        context.close()
    return {
        "seconds": statistics.median(seconds),
        "bytes": statistics.median(sizes),
        "width": width,
        "css": shown,
        "n": len(seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matchups", type=int, default=7)
    parser.add_argument("--prompts", type=int, default=6)
    parser.add_argument("--profiles", default="4g,3g", help=f"comma-separated, of {', '.join(PROFILES)}")
    parser.add_argument("--devices", default="phone,desktop", help="comma-separated name prefixes of DEVICES")
    args = parser.parse_args()
    profiles = [p.strip() for p in args.profiles.split(",") if p.strip()]
    unknown = [p for p in profiles if p not in PROFILES]
    if unknown:
        parser.error(f"unknown profile(s): {', '.join(unknown)}")
    with tempfile.TemporaryDirectory(prefix="arena-imageload-") as tmp:
        root = Path(tmp)
        url = f"sqlite:///{root / 'arena.db'}"
        settings = Settings(
            database_url=url,
            media_dir=root / "media",
            models_file=root / "models.toml",
            _env_file=None,  # type: ignore[call-arg]
        )
        engine = make_engine(url)
        initialize(settings, engine)
        build_world(settings, engine, prompts=args.prompts)
        with serve(create_app(settings, engine=engine)) as base, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            print(
                "device | link | image px (CSS px shown) | bytes per matchup | time to both images (median)"
            )
            prefixes = tuple(d.strip() for d in args.devices.split(",") if d.strip())
            for name, device in DEVICES.items():
                if not name.startswith(prefixes):
                    continue
                for profile in profiles:
                    r = measure(browser, base, device, PROFILES[profile], args.matchups)
                    print(
                        f"{name} | {profile} | {r['width']} ({r['css']:.0f}) | {r['bytes'] / 1e6:.2f} MB | "
                        f"{r['seconds']:.2f} s (n={r['n']})"
                    )
            browser.close()
        engine.dispose()


if __name__ == "__main__":
    main()
