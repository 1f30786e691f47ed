"""Private matchup sets over real HTTP: `arena eval share` makes a secret link; the page serves each case's two
outputs blind (no model names, images re-encoded like arena matchups, per-voter showings), a form vote reveals
the model runs, votes never reach the public votes table, and `arena eval pairwise --humans` puts the human win
rate beside the judge's."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import httpx
from PIL import Image
from sqlmodel import Session, func, select
from typer.testing import CliRunner

from arena.app import create_app
from arena.cli.main import app as cli_app
from arena.db import upgrade_database
from arena.db.private_tables import PrivateShowing
from arena.db.tables import Matchup, Vote
from arena.media.variants import png_length
from tests.conftest import serve
from tests.fakes.chat_server import Answer
from tests.support.eval_pairs import COLOURS, stored_eval

SHOWING = re.compile(r'name="showing" value="([^"]+)"')


def colour(png: bytes) -> str:
    pixel = Image.open(io.BytesIO(png)).convert("RGB").getpixel((100, 100))
    return min(COLOURS, key=lambda name: sum((a - b) ** 2 for a, b in zip(COLOURS[name], pixel, strict=True)))


def count(engine, table) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(table)).one()


def test_private_set_blind_votes_kept_apart(monkeypatch, settings, engine, fake_chat, tmp_path: Path):
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_JUDGE_BASE_URL", fake_chat.base_url)
    monkeypatch.setenv("ARENA_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("ARENA_JUDGE_API_KEY_ENV", "")
    upgrade_database(engine)
    stored_eval(engine, "r1", tmp_path / "r1", {"ember": "red", "flint": "blue", "gale": "green"}, cases=4)
    cli = CliRunner()
    vague = cli.invoke(cli_app, ["eval", "share", "r1"])  # three model runs: which two?
    assert vague.exit_code == 2 and "--a and --b" in vague.output
    shared = cli.invoke(cli_app, ["eval", "share", "r1", "--a", "ember", "--b", "flint", "--json"])
    assert shared.exit_code == 0, shared.output
    info = json.loads(shared.stdout)
    assert info["pairs"] == 4 and info["path"] == f"/private/{info['token']}"
    page_path = info["path"]

    with (
        serve(create_app(settings, engine=engine)) as url,
        httpx.Client(base_url=url, timeout=30) as voter,
        httpx.Client(base_url=url, timeout=30) as stranger,
    ):
        assert voter.get("/private/not-the-token").status_code == 404
        for n in range(4):
            page = voter.get(page_path)
            assert page.status_code == 200 and f"{n} of 4 pairs voted" in page.text
            assert "poster c" in page.text  # the request is shown ...
            for name in ("ember", "flint", "gale", "sandbox-"):  # ... the model runs are not
                assert name not in page.text
            showing = SHOWING.search(page.text).group(1)
            assert voter.get(page_path).text.count(showing) >= 1  # a reload keeps the same open showing
            images = {}
            for side in ("left", "right"):
                image = voter.get(f"{page_path}/img/{showing}/{side}")
                assert image.status_code == 200 and image.headers["content-type"] == "image/png"
                assert len(image.content) == png_length(1024)  # the arena's fixed-length served encoding
                images[side] = colour(image.content)
                assert stranger.get(f"{page_path}/img/{showing}/{side}").status_code == 404  # another voter
            assert set(images.values()) == {"red", "blue"}
            red_side = "left" if images["left"] == "red" else "right"
            foreign = voter.post(
                f"{page_path}/vote",
                data={"showing": showing, "choice": red_side},
                headers={"Origin": "http://evil"},
            )
            assert foreign.status_code == 403
            voted = voter.post(f"{page_path}/vote", data={"showing": showing, "choice": red_side})
            assert voted.status_code == 200
            shown = "ember" if red_side == "left" else "flint"
            assert f"Left was <strong>{shown}</strong>" in voted.text
            assert voter.get(f"{page_path}/img/{showing}/left").status_code == 404  # no image after the vote
            again = voter.post(f"{page_path}/vote", data={"showing": showing, "choice": "tie"})
            assert again.status_code == 409
        assert "voted on every pair" in voter.get(page_path).text
        bad = stranger.get(page_path)
        assert bad.status_code == 200 and "0 of 4 pairs voted" in bad.text
        assert (
            stranger.post(f"{page_path}/vote", data={"showing": "x" * 10, "choice": "left"}).status_code
            == 404
        )

    assert count(engine, Vote) == 0 and count(engine, Matchup) == 0  # nothing reached the public arena
    with Session(engine) as s:
        votes = s.exec(select(PrivateShowing).where(PrivateShowing.choice != "")).all()
    assert len(votes) == 4 and all(v.outcome == 0 for v in votes)  # ember (A) won every vote

    fake_chat.default = Answer.json({"preferred": "left", "reason": "left"})
    result = cli.invoke(
        cli_app, ["eval", "pairwise", "r1", "--a", "ember", "--b", "flint", "--humans", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (judge,) = report["pairs_by_label"]
    assert (judge["ties"], judge["win_rate"]) == (4, 0.5)
    (human,) = report["humans"]["pairs_by_label"]
    assert (human["a"], human["wins"], human["losses"], human["ties"], human["win_rate"]) == (
        "ember",
        4,
        0,
        0,
        1.0,
    )
    assert human["wilson_95"][1] == 1.0 and human["wilson_95"][0] < 1.0
    assert "Human votes (private set #" in (tmp_path / "r1" / "pairwise.md").read_text()
