"""The judge's calibration set and drift flag, the `arena judge` commands and the operator page, over real HTTP
to an in-process OpenAI-compatible judge, on both databases."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from arena.cli.main import app
from arena.judge.calibset import calibration_items
from arena.judge.client import JudgeClient, JudgeConfig
from arena.judge.drift import calibration_drift
from arena.judge.run import run_calibration_set
from arena.judge.scenario_rubrics import RUBRIC_DIR, load_rubrics
from tests.fakes.chat_server import Answer, ChatCall
from tests.support.judge_world import COLOURS, accurate, always_left, model_of

LEVELS = {"ideal": 9, "medium": 6, "bad": 2}


def _grader(lazy_marker: str | None = None):
    """Scores calibration images by their known label; with `lazy_marker` in the rubric text it calls all ideal."""
    grades = {base64.b64encode(i.image).decode(): i.grade for i in calibration_items()}

    def answer(call: ChatCall) -> Answer:
        image = call.image_urls[-1].split(",", 1)[1]
        level = LEVELS[grades[image]]
        if lazy_marker and lazy_marker in call.body["messages"][0]["content"]:
            level = 9
        names = list(
            call.body["response_format"]["json_schema"]["schema"]["properties"]["scores"]["properties"]
        )
        scores = {n: (10 if n == "safety" else level) for n in names}
        return Answer.json(
            {"scores": scores, "overall": level, "verdict": "pass", "reason": f"level {level}"}
        )

    return answer


def test_calibration_set_is_rescored_on_a_rubric_change_and_a_worse_rubric_is_flagged(
    initialized, fake_chat, tmp_path
):
    engine = initialized
    client = JudgeClient(JudgeConfig(base_url=fake_chat.base_url, model="fake-judge"), engine)
    fake_chat.responder = _grader(lazy_marker="Be generous.")
    rubrics = load_rubrics()
    first = run_calibration_set(engine, client, judge_model="fake-judge", rubrics=rubrics)
    assert first is not None and first.judged == 9 and first.unscored == 0
    # unchanged rubrics: nothing to re-score
    assert run_calibration_set(engine, client, judge_model="fake-judge", rubrics=rubrics) is None
    # a rubric text change (same version number) re-scores that scenario only, and its drop is flagged
    for path in RUBRIC_DIR.glob("*.toml"):
        text = path.read_text()
        if path.name == "ui_ux_design.toml":
            text = text.replace('role = """\n', 'role = """\nBe generous.\n')
        (tmp_path / path.name).write_text(text)
    changed = load_rubrics(tmp_path)
    second = run_calibration_set(engine, client, judge_model="fake-judge", rubrics=changed)
    assert second is not None and second.judged == 3
    points = {(p.scenario, p.rubric_digest): p for p in calibration_drift(engine)}
    before = points[("text_to_image.ui_ux_design", rubrics["text_to_image.ui_ux_design"].digest)]
    after = points[("text_to_image.ui_ux_design", changed["text_to_image.ui_ux_design"].digest)]
    assert before.rate == 1.0 and not before.flagged
    assert after.rate == pytest.approx(1 / 3) and after.flagged and "fell" in after.note
    assert after.mean_overall_change == pytest.approx(10 / 3)  # ideal 9 -> 9, medium 6 -> 9, bad 2 -> 9
    assert not any(p.flagged for p in points.values() if p.scenario != "text_to_image.ui_ux_design")


@pytest.fixture
def cli(settings, monkeypatch, fake_chat):
    """Invoke `arena ...` against the test database and the fake judge."""
    for name, value in {
        "ARENA_DATABASE_URL": settings.database_url,
        "ARENA_MEDIA_DIR": str(settings.media_dir),
        "ARENA_MODELS_FILE": str(settings.models_file),
        "ARENA_JUDGE_BASE_URL": fake_chat.base_url,
        "ARENA_JUDGE_MODEL": "fake-judge",
        "ARENA_JUDGE_API_KEY_ENV": "",
        "ARENA_OVERALL_ANCHOR": "model-0",
        "ARENA_SLICE_ANCHOR": "model-0",
        "ARENA_BOOTSTRAP_ROUNDS": "50",
    }.items():
        monkeypatch.setenv(name, value)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args), catch_exceptions=False)


def _flat(path: Path, index: int) -> str:
    Image.new("RGB", (64, 64), tuple(int(c) for c in COLOURS[index])).save(path)
    return path.name


def _labels(tmp_path: Path) -> Path:
    rows = []
    for k, (a, b) in enumerate([(0, 1), (3, 2), (1, 3), (2, 0), (3, 0), (1, 2)]):
        rows.append(
            {
                "id": f"held-{k}",
                "prompt": f"A flat colour field number {k}",
                "image_a": _flat(tmp_path / f"a{k}.png", a),
                "image_b": _flat(tmp_path / f"b{k}.png", b),
                "label": "a" if a > b else "b",
            }
        )
    path = tmp_path / "held.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_judge_check_passes_a_good_judge_and_fails_a_position_biased_one(cli, fake_chat, tmp_path):
    labels = _labels(tmp_path)
    fake_chat.responder = lambda call: Answer.json(
        {
            "preferred": "left" if model_of(call.image_urls[0]) > model_of(call.image_urls[1]) else "right",
            "reason": "r",
        }
    )
    good = cli("judge", "check", str(labels), "--json")
    assert good.exit_code == 0, good.output
    data = json.loads(good.stdout)
    assert (
        data["passed"] and data["agreement_rate"] == 1.0 and data["scored"]["sym_kappa"] == pytest.approx(1.0)
    )
    fake_chat.responder = always_left
    bad = cli("judge", "check", str(labels))
    assert bad.exit_code == 1 and "FAIL" in bad.stdout and "position-bias rate 100.0%" in bad.stdout


def test_judge_check_refuses_a_bad_labels_file_with_its_line(cli, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"prompt": "x", "image_a": "nope.png", "image_b": "nope.png", "label": "a"}\n')
    result = cli("judge", "check", str(path))
    assert result.exit_code == 2 and f"{path}:1: cannot read image" in result.output
    path.write_text('{"prompt": "x", "label": "left"}\n')
    result = cli("judge", "check", str(path))
    assert result.exit_code == 2 and "label must be" in result.output
    assert "Traceback" not in result.output


def test_judge_run_report_and_operator_page(world, settings, cli, fake_chat):
    from arena.leaderboard.snapshots import take_snapshot
    from tests.conftest import serve
    from tests.support.judge_world import seed_votes

    assert cli("judge", "report").exit_code == 2  # no run yet: one line, no traceback
    assert cli("judge", "run", "--board", "sideways").exit_code == 2
    settings.overall_anchor = settings.slice_anchor = "model-0"
    settings.bootstrap_rounds = 50
    seed_votes(world)
    take_snapshot(world, settings, modality="text_to_image", refilter=False)
    fake_chat.responder = lambda call: (
        _grader()(call) if call.schema_name == "single_score" else accurate(80)(call)
    )
    result = cli("judge", "run", "--sample", "24")
    assert result.exit_code == 0, result.output
    assert "calibration set re-scored" in result.stdout and "24 matchups judged" in result.stdout
    assert "position-bias rate" in result.stdout and "Kendall" in result.stdout
    # both kappas by name, decisive agreement, and the human-human ceiling (3 kept voters per matchup: B, B, A)
    assert "Cohen's kappa" in result.stdout and "kappa with A/B-symmetrised marginals" in result.stdout
    assert "decisive (neither judge nor majority a tie)" in result.stdout
    assert "human-human agreement ceiling (two voters on the same matchup): 33.3%" in result.stdout
    text = cli("judge", "report").stdout
    assert "human-human agreement ceiling" in text and "cohen=" in text and "sym=" in text
    report = json.loads(cli("judge", "report", "--json").stdout)
    assert report["counts"]["scored"] == 24 and report["calibration"]

    from arena.app import create_app

    with serve(create_app(settings, engine=world)) as url, httpx.Client(base_url=url) as http:
        assert http.get("/api/v1/admin/judge/report").status_code == 401
        page = http.get("/admin/judge")
        assert page.status_code == 200 and 'action="/admin/login"' in page.text  # sign-in first
        auth = {"Authorization": "Bearer test-operator-token"}
        data = http.get("/api/v1/admin/judge/report", headers=auth).json()
        assert data["run"]["id"] == report["run"]["id"]
        assert http.get("/api/v1/admin/judge/report?run=999", headers=auth).status_code == 404
        first = data["disagreements"][0]
        image = http.get(f"/admin/judge/image/{first['output_a_id']}", headers=auth)
        assert image.status_code == 200 and image.content[:3] == b"\xff\xd8\xff"
        assert http.get(f"/admin/judge/image/{first['output_a_id']}").status_code == 401
        http.post("/admin/login", data={"token": "test-operator-token"}, headers={"Origin": url})
        page = http.get("/admin/judge")
        assert page.status_code == 200 and 'id="agreement"' in page.text and 'id="disagreements"' in page.text
        assert f"/admin/judge/image/{first['output_a_id']}" in page.text and 'id="calibration"' in page.text
        assert "Cohen's kappa [95%]" in page.text and "Kappa, A/B-symmetrised marginals [95%]" in page.text
        assert 'id="human-ceiling"' in page.text and "<strong>33.3%</strong>" in page.text
    assert np.isfinite(data["agreement"]["overall"]["rate"])


def test_report_says_when_no_matchup_has_two_voters(world, settings, cli, fake_chat):
    from arena.app import create_app
    from tests.conftest import serve
    from tests.support.judge_world import seed_votes

    seed_votes(world, votes_per_pair=(1, 0))  # one kept vote per matchup; the second voter's vote is filtered
    fake_chat.responder = lambda call: (
        _grader()(call) if call.schema_name == "single_score" else always_left(call)
    )
    assert cli("judge", "run", "--sample", "6").exit_code == 0
    text = cli("judge", "report").stdout
    assert "human-human agreement ceiling: no matchup has two voters yet" in text
    assert "position-bias rate (verdict flips with the order): 100.0% [61.0%, 100.0%] of 6" in text
    with serve(create_app(settings, engine=world)) as url, httpx.Client(base_url=url) as http:
        http.post("/admin/login", data={"token": "test-operator-token"}, headers={"Origin": url})
        page = http.get("/admin/judge").text
    assert "Human-human agreement: no matchup has two voters yet" in page
    assert "<strong>100.0%</strong> [61.0%, 100.0%] of 6 scored matchups" in page


def test_a_judge_that_always_answers_left_gets_figures_not_a_traceback(world, settings, cli, fake_chat):
    """Every verdict is a position-inconsistent tie, so the judge board ranks every model equal and its rank
    correlation with the human board is undefined: run and report say so and print every other figure."""
    from arena.leaderboard.snapshots import take_snapshot
    from tests.support.judge_world import seed_votes

    settings.overall_anchor = settings.slice_anchor = "model-0"
    settings.bootstrap_rounds = 50
    seed_votes(world)
    take_snapshot(world, settings, modality="text_to_image", refilter=False)
    fake_chat.responder = lambda call: (
        _grader()(call) if call.schema_name == "single_score" else always_left(call)
    )
    ran = cli("judge", "run", "--sample", "12")
    assert ran.exit_code == 0, ran.output
    for text in (ran.stdout, cli("judge", "report").stdout):
        assert "rank correlation undefined over" in text and "Traceback" not in text
        assert "position-bias rate (verdict flips with the order): 100.0%" in text
        assert "agreement by slice" in text or "matchups judged" in text
    assert json.loads(cli("judge", "report", "--json").stdout)["correlation"]["kendall"] is None
