"""docs/howto/add-a-grader.md, followed: its module block is written as a module, its registration entry is
registered, its suite is run with `arena eval run`, and the grader's gate decides the verdict."""

from __future__ import annotations

import importlib
import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from arena.cli.main import app
from arena.evals import graders
from arena.evals.graders import RegisteredGrader, register
from arena.evals.scores import Sample

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "howto" / "add-a-grader.md"


def blocks(language: str) -> list[str]:
    """The page's fenced code blocks in `language`, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", PAGE.read_text(), flags=re.S | re.M)


@pytest.fixture
def brightness(tmp_path, monkeypatch) -> RegisteredGrader:
    """The page's module and registration, registered for this test only."""
    module, entry = blocks("python")
    (tmp_path / "howto_brightness.py").write_text(module)
    monkeypatch.syspath_prepend(str(tmp_path))
    factory = importlib.import_module("howto_brightness").brightness
    registered = eval(entry, {"RegisteredGrader": RegisteredGrader, "brightness": factory})
    monkeypatch.setattr(graders, "_registry", dict(graders.registered()))
    register(registered)
    return registered


def test_the_page_shows_a_module_its_registration_a_suite_and_a_plugin_entry_point():
    assert len(blocks("python")) == 2
    suite, plugin = blocks("toml")
    assert 'name = "brightness"' in suite
    assert '[project.entry-points."arena.graders"]' in plugin and plugin.split("\n")[1].startswith(
        "brightness ="
    )


def test_following_the_page_gives_a_grader_whose_gate_decides_the_verdict(brightness, tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(tmp_path / "media"))
    suite, _ = blocks("toml")
    (tmp_path / "brightness.toml").write_text(suite)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", "run", str(tmp_path / "brightness.toml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "brightness: 1/1 (100%, minimum 100%) ok" in result.output
    [row] = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert row["verdict"] == "pass"
    [score] = [s for s in row["scores"] if s["key"] == "brightness"]
    assert score["kind"] == "gate" and 30 <= score["details"]["mean"] <= 235
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"]["sandbox-aurora"]["gates"]["brightness"]["min_pass_rate"] == 1.0


def test_the_page_grader_fails_a_black_image_with_its_tag(brightness):
    black = io.BytesIO()
    Image.new("RGB", (64, 64)).save(black, "PNG")
    grade = brightness.build({"min_mean": 30}, {})
    [score] = grade(Sample(None, black.getvalue(), (), None))
    assert (score.passed, score.failure_tags) == (False, ("too_dark",))
    assert brightness.check_options({"min_mean": "dark"}) == (
        "min_mean",
        "option 'min_mean' must be a number",
    )
