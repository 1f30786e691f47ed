"""The arena page's extras over real HTTP: the favicon (no 404 on every page), and the progress notice while
`arena demo --serve` prepares the demo behind the server (on the leaderboard too, which has no board yet)."""

import httpx

from arena.app import create_app
from arena.cli.demo import DemoProgress
from arena.web.context import context_of
from tests.conftest import serve


def test_the_favicon_is_served_and_linked(http):
    page = http.get("/")
    assert '/static/favicon.svg" type="image/svg+xml">' in page.text
    icon = http.get("/favicon.ico", follow_redirects=True)
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.content.startswith(b"<svg")


def test_while_the_demo_is_prepared_the_page_says_how_far_it_got(settings, world):
    app = create_app(settings, engine=world)
    context_of(app).live.demo_progress = DemoProgress()
    with serve(app) as url, httpx.Client(base_url=url) as client:
        text = client.get("/").text
        assert "The demo is still being prepared (generating the sandbox images)" in text
        # world: 4 text-to-image models x 8 prompts and 3 editing models x 8 prompts made so far
        assert "56 of " in text
        board = client.get("/leaderboard").text  # no snapshot yet: the board page says why
        assert "The demo is still being prepared" in board and "arena ratings snapshot" not in board
        context_of(app).live.demo_progress.ready = True
        assert "still being prepared" not in client.get("/").text
        assert "still being prepared" not in client.get("/leaderboard").text  # not kept in the page cache
