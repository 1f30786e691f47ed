"""Each shipped suite says in its header which offline gates each sandbox model run passes and fails
(`# sandbox: RUN passes A, B; fails C`); running the suite offline on the sandbox models bears every line out, and
the exit code is 1 exactly when a line names a failed gate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^# sandbox: (\S+) passes (.+); fails (.+)$", re.MULTILINE)


def expectations(suite: Path) -> dict[str, tuple[set[str], set[str]]]:
    """run label -> (gates it passes, gates it fails), from the suite's header."""

    def names(text: str) -> set[str]:
        return set() if text.strip() == "nothing" else {n.strip() for n in text.split(",")}

    return {m[1]: (names(m[2]), names(m[3])) for m in LINE.finditer(suite.read_text())}


@pytest.mark.parametrize("name", ["logo_editing", "ui_mockups", "marketing_flyers", "virtual_tryon"])
def test_the_suite_header_says_what_the_sandbox_passes_and_fails(name, tmp_path, monkeypatch):
    suite = ROOT / "evals" / f"{name}.toml"
    expected = expectations(suite)
    assert expected, f"{suite} has no '# sandbox: RUN passes ...; fails ...' lines"
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'eval.db'}")
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", "run", str(suite), "--no-judge", "--out", str(out)])
    summary = json.loads((out / "summary.json").read_text())
    got = {
        label: (
            {k for k, g in run["gates"].items() if g["ok"] and not k.startswith("rubric")},
            {k for k, g in run["gates"].items() if not g["ok"] and not k.startswith("rubric")},
        )
        for label, run in summary["runs"].items()
    }
    assert got == expected
    assert result.exit_code == (1 if any(fails for _, fails in expected.values()) else 3), result.output
