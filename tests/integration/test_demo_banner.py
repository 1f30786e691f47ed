"""The demo banner sits inside a landmark on every page (issue 28: axe reported "region" on every page of a
demo instance, the banner being the one piece of content outside the header, main and footer)."""

from __future__ import annotations

from html.parser import HTMLParser

import httpx
import pytest
from sqlalchemy import Engine

from arena.app import create_app
from arena.settings import Settings
from tests.conftest import serve

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
LANDMARK_TAGS = {"header", "main", "footer", "nav", "aside"}
LANDMARK_ROLES = {"banner", "main", "contentinfo", "navigation", "complementary", "region", "search", "form"}


class _BannerAncestry(HTMLParser):
    """Records the open elements (tag, attributes) around the first element of class "banner"."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.around: list[tuple[str, dict[str, str | None]]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        self.stack.append((tag, dict(attrs)))
        if self.around is None and "banner" in (dict(attrs).get("class") or "").split():
            self.around = list(self.stack)

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass


def _is_landmark(tag: str, attrs: dict[str, str | None]) -> bool:
    role = attrs.get("role")
    if role is not None:
        return role in LANDMARK_ROLES
    if tag == "section":  # a section is a region landmark only when it is named
        return bool(attrs.get("aria-label") or attrs.get("aria-labelledby"))
    return tag in LANDMARK_TAGS


@pytest.fixture
def demo_url(settings: Settings, initialized: Engine):
    app = create_app(settings.model_copy(update={"demo_mode": True}), engine=initialized)
    with serve(app) as url:
        yield url


def test_the_demo_banner_is_inside_a_landmark_on_every_page(demo_url: str):
    with httpx.Client(base_url=demo_url, timeout=30) as client:
        for path in ("/", "/leaderboard", "/me", "/methodology", "/admin"):
            page = client.get(path)
            assert page.status_code == 200, path
            parser = _BannerAncestry()
            parser.feed(page.text)
            assert parser.around is not None, f"{path}: no demo banner"
            assert "Demo instance" in page.text
            assert any(_is_landmark(tag, attrs) for tag, attrs in parser.around), (path, parser.around)
            assert parser.around[-1][1].get("aria-label") == "Demo instance"  # a landmark named for readers


def test_the_demo_banner_says_sandbox_images_are_placeholders(demo_url: str):
    """Issue 28 item 7: the banner said the votes are simulated but not that the images are placeholders."""
    with httpx.Client(base_url=demo_url, timeout=30) as client:
        for path in ("/", "/leaderboard"):
            text = " ".join(client.get(path).text.split())
            assert "images are <strong>placeholders</strong>" in text, path
            assert "not the output of any real image model" in text, path
