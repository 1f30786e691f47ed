"""The shipped FAKE judge (`arena judge fake-server`) over real HTTP: `judge check` and `eval run` go through
it end to end with figures and no key, every answer is labelled FAKE JUDGE, and its pairwise choice does not
depend on the order (position-bias rate 0)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.judge.fake_server import FAKE_MODEL, start
from tests.integration.test_eval_run import write_suite
from tests.integration.test_judge_cli_web import _labels


@pytest.fixture
def fake_judge(monkeypatch, settings):
    server = start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    for name, value in {
        "ARENA_DATABASE_URL": settings.database_url,
        "ARENA_MODELS_FILE": str(settings.models_file),
        "ARENA_JUDGE_BASE_URL": url,
        "ARENA_JUDGE_MODEL": FAKE_MODEL,
        "ARENA_JUDGE_API_KEY_ENV": "",
    }.items():
        monkeypatch.setenv(name, value)
    yield url
    server.shutdown()
    server.server_close()


def test_judge_check_runs_on_the_fake_judge_with_figures(fake_judge, tmp_path):
    result = CliRunner().invoke(app, ["judge", "check", str(_labels(tmp_path)), "--json"])
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    assert data["items"] == 6 and data["unscored"] == 0
    assert data["position_bias_rate"] == 0.0  # the same image is preferred in both orders


def test_eval_run_grades_every_metric_on_the_fake_judge(fake_judge, tmp_path, monkeypatch):
    from tests.integration.test_eval_run import ROOT

    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    out = tmp_path / "run"
    args = ["eval", "run", str(write_suite(tmp_path)), "--out", str(out), "--models", "sandbox-retouch"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    judged = [s for line in lines for s in line["scores"] if s["key"].startswith("rubric:")]
    assert judged and all(s["value"] is not None and s["reason"].startswith("FAKE JUDGE") for s in judged)
