"""An offline run does not read as a pass: with --no-judge the judge's checks are recorded as skipped, items
are unscored (never passed), and the summary, report, JUnit file and exit code (3) all say so."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

from typer.testing import CliRunner

from arena.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
SUITE = """
[suite]
name = "checkout offline"
workflow = "ui_mockup"

[[models]]
model = "sandbox-aurora"

[[graders]]
name = "basic"

[[graders]]
name = "rubric"

[[cases]]
id = "checkout"
task = "generation"
prompt = "A mobile checkout screen with an order summary and one primary button."
"""


def test_no_judge_marks_the_judge_skipped_everywhere(monkeypatch, tmp_path, database_url):
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    (tmp_path / "suite.toml").write_text(SUITE)
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["eval", "run", str(tmp_path / "suite.toml"), "--out", str(out), "--no-judge"]
    )
    assert result.exit_code == 3, result.output
    assert "SKIPPED rubric" in result.output and "0/1 pass" in result.output
    summary = json.loads((out / "summary.json").read_text())
    run = summary["runs"]["sandbox-aurora"]
    assert run["verdicts"] == {
        "pass": 0,
        "fail": 0,
        "unscored": 1,
    }  # the basic gate passed; the judge did not run
    assert run["gates"]["rubric:instruction_following"] == {
        "passed": 0,
        "total": 1,
        "unscored": 1,
        "rate": 0.0,
        "min_pass_rate": 1.0,
        "ok": False,
    }
    assert summary["breaches"] == [] and summary["skipped_graders"]
    row = json.loads((out / "results.jsonl").read_text())
    judged = [s for s in row["scores"] if s["grader"] == "rubric"]
    assert {s["key"] for s in judged} >= {"rubric:instruction_following", "rubric:layout_hierarchy"}
    assert all(s["value"] is None and s["reason"].startswith("skipped: --no-judge") for s in judged)
    junit = ET.parse(out / "junit.xml").getroot()
    assert junit.find(".//testcase[@name='checkout#0']/skipped") is not None
    assert junit.find(".//testcase[@name='rubric']/skipped") is not None and not junit.findall(".//failure")
    assert "Not a pass: graders skipped." in (out / "report.html").read_text()


def test_with_the_judge_the_same_suite_passes_and_keeps_its_text_score_beside(
    monkeypatch, tmp_path, database_url, fake_chat
):
    from tests.integration.test_eval_run import judge_answers

    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    monkeypatch.setenv("ARENA_JUDGE_BASE_URL", fake_chat.base_url)
    monkeypatch.setenv("ARENA_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("ARENA_JUDGE_API_KEY_ENV", "")
    fake_chat.responder = judge_answers
    (tmp_path / "suite.toml").write_text(SUITE)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", "run", str(tmp_path / "suite.toml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    row = json.loads((out / "results.jsonl").read_text())
    assert row["verdict"] == "pass"
    text = next(s for s in row["scores"] if s["key"] == "rubric:text_rendering")
    assert text["kind"] == "info" and text["value"] == 5.0  # measured, not a verdict input
    assert "judge text 5/5" in (out / "report.html").read_text()
