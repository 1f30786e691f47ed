"""`arena eval run` end to end on the sandbox models with the judge on the fake Chat Completions server:
reports, stored rows, exit codes, schema-breaking judge answers, and resuming a killed run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from sqlalchemy import func
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db import make_engine, upgrade_database
from arena.db.eval_tables import EvalResult, EvalScore, JudgeCacheEntry
from arena.evals.runner import RunConfig, SuiteRunner
from arena.evals.store import RunStore
from arena.evals.suite import load_suite
from arena.generation.registry import load_registry
from arena.judge import JudgeClient, JudgeConfig
from tests.fakes.chat_server import Answer

ROOT = Path(__file__).resolve().parents[2]
LOGO = ROOT / "prompts_taxonomy" / "data" / "reference_images" / "logo_lumen_labs.png"
METRICS = 3  # the logo rubric's metrics: one judge call each

SUITE = """
[suite]
name = "tiny logo suite"
workflow = "logo_editing"

[[models]]
model = "sandbox-retouch"

[[models]]
model = "sandbox-palimpsest"

[[graders]]
name = "basic"

[[graders]]
name = "preservation"
min_outside_ssim = 0.9
min_pass_rate = {rate}

[[graders]]
name = "rubric"
min_pass_rate = 0.0

[[cases]]
id = "ring-recolour"
task = "editing"
prompt = "Make the ring red. Change nothing else."
references = ["logo.png"]
edit_region = [0.3, 0.1, 0.7, 0.5]
tags = ["recolour"]

[[cases]]
id = "add-star"
task = "editing"
prompt = "Add a small star in the top right corner."
references = ["logo.png"]
edit_region = [0.75, 0.05, 0.95, 0.25]
"""


def judge_answers(call) -> Answer:
    """A well-behaved judge: 5 on every metric, 'pass' on gates."""
    schema = call.body["response_format"]["json_schema"]["schema"]
    if "passed" in schema["properties"]:
        return Answer.json({"passed": True, "reason": "fine", "failure_tags": []})
    return Answer.json({"score": 5, "reason": "looks exact", "failure_tags": []})


@pytest.fixture
def env(monkeypatch, tmp_path, database_url, fake_chat):
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    monkeypatch.setenv("ARENA_JUDGE_BASE_URL", fake_chat.base_url)
    monkeypatch.setenv("ARENA_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("ARENA_JUDGE_API_KEY_ENV", "")
    fake_chat.responder = judge_answers
    return tmp_path


def write_suite(folder: Path, rate: float = 1.0) -> Path:
    """The suite and its reference image (paths in a suite stay inside its folder)."""
    (folder / "logo.png").write_bytes(LOGO.read_bytes())
    path = folder / "suite.toml"
    path.write_text(SUITE.replace("{rate}", str(rate)))
    return path


def test_a_run_stores_everything_writes_reports_and_fails_below_threshold(env, fake_chat, database_url):
    out = env / "run"
    result = CliRunner().invoke(
        app, ["eval", "run", str(write_suite(env)), "--out", str(out), "--concurrency", "2"]
    )
    assert result.exit_code == 1, result.output
    assert "preservation" in result.output and "BELOW" in result.output
    summary = json.loads((out / "summary.json").read_text())
    # The spilling sandbox model damages pixels outside the region; the clean one does not.
    assert summary["runs"]["sandbox-retouch"]["gates"]["preservation"]["rate"] == 1.0
    assert summary["runs"]["sandbox-palimpsest"]["gates"]["preservation"]["rate"] == 0.0
    assert summary["breaches"] == ["sandbox-palimpsest: preservation pass rate 0.00 < 1.00"]
    # The judge gave 5s, but the failed pixel check lowers non-target invariance to 0 for palimpsest.
    assert summary["runs"]["sandbox-palimpsest"]["metrics"]["rubric:non_target_invariance"]["mean"] == 0.0
    assert summary["runs"]["sandbox-retouch"]["metrics"]["rubric:non_target_invariance"]["mean"] == 5.0
    assert len(fake_chat.calls) == 4 * METRICS
    # the reference, the reference with the edit region outlined, and the output (no text asked for: no zoom)
    assert all(len(c.image_urls) == 3 for c in fake_chat.calls)
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 4 and all(len(x["scores"]) >= 2 + METRICS for x in lines)
    html = (out / "report.html").read_text()
    assert "ring-recolour" in html and "changed_outside_region" in html and "looks exact" in html
    assert all((out / src).is_file() for src in _img_sources(html))
    junit = ET.parse(out / "junit.xml").getroot()
    failures = junit.findall(".//testcase/failure")
    assert len(failures) == 3  # two palimpsest items and the breached threshold
    engine = make_engine(database_url)
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(EvalResult)).one() == 4
        keys = s.exec(select(EvalScore.result_id, EvalScore.key)).all()
    engine.dispose()
    assert len(keys) == len(set(keys))


def test_the_exit_code_is_zero_when_every_rate_meets_its_minimum(env):
    suite = str(write_suite(env, rate=1.0))
    result = CliRunner().invoke(
        app, ["eval", "run", suite, "--out", str(env / "r"), "--models", "sandbox-retouch"]
    )
    assert result.exit_code == 0, result.output
    assert "sandbox-palimpsest" not in result.output


def test_schema_breaking_judge_answers_leave_metrics_unscored_with_the_reason(env, fake_chat):
    fake_chat.responder = lambda call: Answer.text("The edit deserves a 5.")
    out = env / "run"
    suite = write_suite(env, rate=0.0)
    suite.write_text(suite.read_text().replace("min_pass_rate = 0.0", "min_pass_rate = 1.0"))
    result = CliRunner().invoke(
        app,
        ["eval", "run", str(suite), "--out", str(out), "--models", "sandbox-retouch"],
    )
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert {r["verdict"] for r in rows} == {"unscored"}
    judged = [s for r in rows for s in r["scores"] if s["key"].startswith("rubric:")]
    assert judged and all(s["value"] is None and "not JSON" in s["reason"] for s in judged)
    assert len(fake_chat.calls) == 2 * METRICS * 3  # first try + 2 retries per metric
    assert result.exit_code == 3, result.output  # unscored checks are not passed: an outage, not a breach


def test_bad_input_is_one_line_and_exit_2(env):
    bad = env / "bad.toml"
    bad.write_text(SUITE.replace('task = "editing"', 'task = "edit"', 1).replace("{rate}", "1"))
    result = CliRunner().invoke(app, ["eval", "run", str(bad)])
    assert result.exit_code == 2
    assert (
        f"{bad}:" in result.output and "invalid suite" in result.output and "Traceback" not in result.output
    )
    assert CliRunner().invoke(app, ["eval", "run", str(env / "missing.toml")]).exit_code == 2
    assert CliRunner().invoke(app, ["eval", "run", str(write_suite(env)), "--resume"]).exit_code == 2
    out = env / "used"
    out.mkdir()
    (out / "x").write_text("x")
    result = CliRunner().invoke(app, ["eval", "run", str(write_suite(env)), "--out", str(out)])
    assert result.exit_code == 2 and "--resume" in result.output


class Killed(Exception):
    """Stands in for the process dying."""


def test_resume_after_a_killed_run_makes_no_duplicate_judge_calls_or_scores(
    env, fake_chat, database_url, monkeypatch
):
    engine = make_engine(database_url)
    upgrade_database(engine)
    registry = {e.slug: e for e in load_registry(ROOT / "models.toml")}
    suite = load_suite(write_suite(env), {k: v.modality for k, v in registry.items()})
    judge_config = JudgeConfig(base_url=fake_chat.base_url, model="fake-judge")
    out = env / "run"
    real = RunStore.record_grades
    graded = {"n": 0}

    def dies_on_the_third(self, *args, **kwargs):
        graded["n"] += 1
        if graded["n"] == 3:  # generated and judged, killed before its scores were committed
            raise Killed()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(RunStore, "record_grades", dies_on_the_third)
    first = SuiteRunner(
        suite,
        engine,
        registry,
        RunConfig(out, concurrency=1, progress=lambda _: None),
        JudgeClient(judge_config, engine),
    )
    with pytest.raises(Killed):
        asyncio.run(_run(first))
    calls_before = len(fake_chat.calls)
    assert calls_before == 3 * METRICS
    monkeypatch.setattr(RunStore, "record_grades", real)
    lines: list[str] = []
    second = SuiteRunner(
        suite,
        engine,
        registry,
        RunConfig(out, concurrency=1, resume=True, progress=lines.append),
        JudgeClient(judge_config, engine),
    )
    summary, _code = asyncio.run(_run(second))
    assert second.run_id == first.run_id
    assert lines[0].startswith(f"resuming {first.run_id}: 2 items already done, 2 to go")
    # Only the one item never judged costs calls; the killed item's answers come from the cache.
    assert len(fake_chat.calls) == 4 * METRICS
    with Session(engine) as s:
        results = s.exec(select(EvalResult)).all()
        keys = s.exec(select(EvalScore.result_id, EvalScore.key)).all()
        cached = s.exec(select(func.count()).select_from(JudgeCacheEntry)).one()
    engine.dispose()
    assert len(results) == 4 and all(r.verdict for r in results)
    assert len(keys) == len(set(keys)) == 4 * (3 + METRICS)  # basic, preservation, its info score, judge
    assert cached == 4 * METRICS
    assert sum(r["items"] for r in summary["runs"].values()) == 4


async def _run(runner: SuiteRunner):
    try:
        return await runner.run()
    finally:
        await runner.judge.aclose()


def _img_sources(html: str) -> list[str]:
    import re

    return re.findall(r'<img src="([^"]+)"', html)


def test_xfail_cases_do_not_fail_the_run_and_a_passing_one_is_reported_xpass(env):
    path = write_suite(env)
    text = path.read_text().replace(
        'tags = ["recolour"]', 'tags = ["recolour"]\nxfail = "palimpsest spills outside the region"'
    )
    path.write_text(text.replace("edit_region = [0.75", 'xfail = "same spill"\nedit_region = [0.75'))
    out = env / "x"
    result = CliRunner().invoke(app, ["eval", "run", str(path), "--out", str(out)])
    # palimpsest fails both marked cases (xfail), retouch passes them (xpass): nothing fails the run.
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"]["sandbox-palimpsest"]["verdicts"]["xfail"] == 2
    assert summary["runs"]["sandbox-retouch"]["verdicts"]["xpass"] == 2
    assert summary["breaches"] == [] and len(summary["xpassed"]) == 2
    assert "XPASS sandbox-retouch: ring-recolour#0" in result.output
    junit = ET.parse(out / "junit.xml").getroot()
    assert junit.findall(".//testcase/failure") == []
    assert len([s for s in junit.findall(".//testcase/skipped") if "xfail" in s.get("message", "")]) == 2


def test_a_failing_unmarked_case_still_fails_beside_an_xfail_one(env):
    path = write_suite(env)
    path.write_text(path.read_text().replace('tags = ["recolour"]', 'tags = ["recolour"]\nxfail = "known"'))
    result = CliRunner().invoke(app, ["eval", "run", str(path), "--out", str(env / "y")])
    assert result.exit_code == 1, result.output
    assert "preservation pass rate 0.00 < 1.00" in result.output or "BELOW" in result.output


def test_an_empty_xfail_reason_is_bad_input(env):
    path = write_suite(env)
    path.write_text(path.read_text().replace('tags = ["recolour"]', 'tags = ["recolour"]\nxfail = ""'))
    result = CliRunner().invoke(app, ["eval", "run", str(path), "--out", str(env / "z")])
    assert result.exit_code == 2 and "xfail" in result.output


def test_judge_samples_take_the_median_score_of_k_answers(env, fake_chat):
    import itertools

    cycles: dict[str, itertools.cycle] = {}

    def answers(call) -> Answer:  # each metric's three samples are asked in a row (both concurrencies 1)
        score = next(cycles.setdefault(call.schema_name, itertools.cycle([1, 5, 4])))
        return Answer.json({"score": score, "reason": f"said {score}", "failure_tags": []})

    fake_chat.responder = answers
    out = env / "k"
    args = ["eval", "run", str(write_suite(env)), "--out", str(out), "--models", "sandbox-retouch"]
    result = CliRunner().invoke(
        app, [*args, "--concurrency", "1", "--judge-concurrency", "1", "--judge-samples", "3"]
    )
    assert result.exit_code == 0, result.output
    assert len(fake_chat.calls) == 2 * METRICS * 3
    metrics = json.loads((out / "summary.json").read_text())["runs"]["sandbox-retouch"]["metrics"]
    assert {k: m["mean"] for k, m in metrics.items()} == {
        "rubric:edit_intent_correctness": 4.0,
        "rubric:non_target_invariance": 4.0,
        "rubric:character_and_style_integrity": 4.0,
    }
    line = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    judged = [s for s in line["scores"] if s["key"].startswith("rubric:")]
    assert all(s["details"]["sample_scores"] == [1.0, 5.0, 4.0] for s in judged)
    assert all(s["reason"] == "said 4" for s in judged)


def test_judge_samples_must_be_at_least_one(env):
    args = ["eval", "run", str(write_suite(env)), "--out", str(env / "k0"), "--judge-samples", "0"]
    assert CliRunner().invoke(app, args).exit_code == 2
