"""A headless Debian Chromium driven by Playwright (never `playwright install`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One Chromium for the session; missing Chromium is a failure (`make test` installs it)."""
    assert CHROMIUM.exists(), "Debian's chromium is missing: run `bash scripts/test-services`"
    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page that records every request leaving the loopback (there must be none)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.external_requests = []  # type: ignore[attr-defined]
    pg.on(
        "request",
        lambda req: (
            None
            if req.url.startswith(("http://127.0.0.1", "data:"))
            else pg.external_requests.append(req.url)
        ),  # type: ignore[attr-defined]
    )
    yield pg
    context.close()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests last: once the session's Playwright (sync API) has started, it leaves an event
    loop set as running in the main thread, and every later `asyncio.run` there would fail."""
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)
