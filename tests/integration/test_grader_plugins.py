"""A grader from an installed package: a tiny plugin is built and really installed (pip, `arena.graders` entry
point), then `arena eval run` in a fresh process grades with it offline and its gate reaches the verdicts, the
JUnit file and the summary; a plugin that cannot be imported stops the run with a one-line error."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from PIL import Image

from tests.support.plugins import pip_install

ROOT = Path(__file__).resolve().parents[2]

PYPROJECT = """
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1"

[tool.setuptools]
py-modules = ["{module}"]

[project.entry-points."arena.graders"]
{grader} = "{module}:GRADER"
"""

WIDTH_GATE = """
import io

from PIL import Image

from arena.evals.graders import RegisteredGrader
from arena.evals.scores import Sample, Score


def width_gate(*, min_width: int = 256):
    def grade(sample: Sample) -> list[Score]:
        if sample.output is None:
            return [Score.gate("width_gate", "width_gate", False, "no output", "missing_output")]
        with Image.open(io.BytesIO(sample.output)) as image:
            width = image.width
        passed = width >= min_width
        return [Score.gate("width_gate", "width_gate", passed, f"{width} px wide", "too_narrow")]

    return grade


GRADER = RegisteredGrader("width_gate", width_gate, "the output is at least min_width pixels wide")
"""

BROKEN = """
import arena_no_such_dependency  # the plugin's own import fails

GRADER = None
"""

SUITE = """
[suite]
name = "plugin suite"

[[models]]
model = "sandbox-aurora"

[[graders]]
name = "width_gate"
min_width = 300
min_pass_rate = 0.5

[[cases]]
id = "wide"
task = "generation"
prompt = "A wide banner"
images = ["wide.png"]

[[cases]]
id = "narrow"
task = "generation"
prompt = "A narrow banner"
images = ["narrow.png"]
"""


def _install(root: Path, name: str, module: str, grader: str, source: str) -> Path:
    """Build and install the plugin package with pip into its own folder; returns that folder."""
    package = root / f"{name}-src"
    package.mkdir()
    (package / "pyproject.toml").write_text(PYPROJECT.format(name=name, module=module, grader=grader))
    (package / f"{module}.py").write_text(source)
    return pip_install(package, root / f"{name}-site")


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("plugins")
    return {
        "good": _install(root, "arena-width-gate", "width_gate_plugin", "width_gate", WIDTH_GATE),
        "broken": _install(root, "arena-broken-grader", "broken_grader_plugin", "broken", BROKEN),
    }


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (90, 140, 200)).save(out, "PNG")
    return out.getvalue()


def _arena(site: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]),
        ARENA_DATABASE_URL=f"sqlite:///{folder / 'arena.db'}",
        ARENA_MODELS_FILE=str(ROOT / "models.toml"),
        ARENA_MEDIA_DIR=str(folder / "media"),
    )
    command = [sys.executable, "-c", "from arena.entry import main; main()", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def _suite(folder: Path) -> Path:
    (folder / "wide.png").write_bytes(_png(320, 200))
    (folder / "narrow.png").write_bytes(_png(120, 200))
    path = folder / "suite.toml"
    path.write_text(SUITE)
    return path


def test_an_installed_plugin_grader_reaches_verdicts_junit_and_summary(plugins, tmp_path):
    out = tmp_path / "run"
    done = _arena(plugins["good"], tmp_path, "eval", "run", str(_suite(tmp_path)), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "width_gate: 1/2 (50%, minimum 50%) ok" in done.stdout
    verdicts = {
        row["case_id"]: row["verdict"]
        for row in map(json.loads, (out / "results.jsonl").read_text().splitlines())
    }
    assert verdicts == {"wide": "pass", "narrow": "fail"}
    summary = json.loads((out / "summary.json").read_text())
    gate = summary["runs"]["sandbox-aurora"]["gates"]["width_gate"]
    assert (gate["passed"], gate["total"], gate["min_pass_rate"], gate["ok"]) == (1, 2, 0.5, True)
    junit = ET.parse(out / "junit.xml").getroot()
    failures = junit.findall(".//testcase/failure")
    assert [f.get("message") for f in failures] == ["failed: width_gate; tags: too_narrow"]


def test_a_plugin_option_is_checked_like_a_built_in_one(plugins, tmp_path):
    suite = _suite(tmp_path)
    suite.write_text(SUITE.replace("min_width = 300", 'min_width = "wide"'))
    done = _arena(plugins["good"], tmp_path, "eval", "run", str(suite), "--out", str(tmp_path / "run"))
    assert done.returncode == 2
    assert "option 'min_width' must be a number" in done.stderr


def test_a_broken_plugin_gives_one_clear_line(plugins, tmp_path):
    site = plugins["broken"]
    done = _arena(site, tmp_path, "eval", "run", str(_suite(tmp_path)), "--out", str(tmp_path / "run"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: grader plugin 'broken' (broken_grader_plugin:GRADER) could not be loaded: "
        "ModuleNotFoundError: No module named 'arena_no_such_dependency'"
    ]
