"""`arena eval pairwise` against a fake judge over real HTTP: a judge that always answers "left" gives ties
everywhere and position consistency 0; a judge that prefers one model in both orders gives it win rate 1 with a
Wilson interval; three model runs get a Bradley-Terry fit in the preferred order; two eval runs compare the same
model run; repeated questions come from the judge cache; bad labels exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db import make_engine, upgrade_database
from tests.fakes.chat_server import Answer, ChatCall
from tests.support.eval_pairs import colour_of, stored_eval

RANK = {"red": 0, "green": 1, "blue": 2}


@pytest.fixture
def judge_env(monkeypatch, database_url, fake_chat):
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_JUDGE_BASE_URL", fake_chat.base_url)
    monkeypatch.setenv("ARENA_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("ARENA_JUDGE_API_KEY_ENV", "")
    engine = make_engine(database_url)
    upgrade_database(engine)
    yield engine
    engine.dispose()


def prefers_by_rank(call: ChatCall) -> Answer:
    """Prefer the better-ranked colour wherever it is shown, except on case c0, where the order is reversed."""
    left, right = (colour_of(url) for url in call.image_urls[-2:])
    reverse = any("poster c0" in t for t in call.texts)
    left_better = (RANK[left] < RANK[right]) != reverse
    return Answer.json({"preferred": "left" if left_better else "right", "reason": "fake"})


def pairwise(*args: str) -> dict:
    result = CliRunner().invoke(app, ["eval", "pairwise", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_always_left_judge_ties_everything(judge_env, fake_chat, tmp_path: Path):
    stored_eval(judge_env, "r1", tmp_path / "r1", {"ember": "red", "flint": "blue"}, cases=5)
    fake_chat.default = Answer.json({"preferred": "left", "reason": "the left one"})
    report = pairwise("r1")
    (row,) = report["pairs_by_label"]
    assert (row["a"], row["b"], row["n"]) == ("ember", "flint", 5)
    assert (row["wins"], row["losses"], row["ties"]) == (0, 0, 5)
    assert row["win_rate"] == 0.5 and row["position_consistency"] == 0.0
    assert report["position_consistency"] == 0.0
    assert len(fake_chat.calls) == 10  # both orders of every pair
    assert all(p["answer_a_left"] == "left" and p["answer_b_left"] == "left" for p in report["pairs"])
    written = json.loads((tmp_path / "r1" / "pairwise.json").read_text())
    assert written["pairs_by_label"] == report["pairs_by_label"]
    assert "| ember | flint | 5 | 0 | 0 | 5 | 50% |" in (tmp_path / "r1" / "pairwise.md").read_text()
    pairwise("r1")  # asked again: every answer comes from the judge cache
    assert len(fake_chat.calls) == 10


def test_preferred_model_wins_with_an_interval(judge_env, fake_chat, tmp_path: Path):
    stored_eval(judge_env, "r1", tmp_path / "r1", {"ember": "blue", "flint": "red"}, cases=8)
    fake_chat.responder = lambda call: Answer.json(
        {
            "preferred": "left" if colour_of(call.image_urls[-2]) == "red" else "right",
            "reason": "red is better",
        }
    )
    (row,) = pairwise("r1", "--a", "flint", "--b", "ember")["pairs_by_label"]
    assert (row["a"], row["wins"], row["losses"], row["ties"]) == ("flint", 8, 0, 0)
    assert row["win_rate"] == 1.0 and row["position_consistency"] == 1.0
    low, high = row["wilson_95"]
    assert high == 1.0 and 0.6 < low < 0.7  # Wilson, n = 8, all wins: 0.676
    assert row["case_bootstrap_95"] == [1.0, 1.0]


def test_three_models_get_a_bradley_terry_fit(judge_env, fake_chat, tmp_path: Path):
    stored_eval(judge_env, "r1", tmp_path / "r1", {"a": "blue", "b": "green", "c": "red"}, cases=6)
    fake_chat.responder = prefers_by_rank
    report = pairwise("r1")
    rows = {(r["a"], r["b"]): r for r in report["pairs_by_label"]}
    assert set(rows) == {("a", "b"), ("a", "c"), ("b", "c")}
    assert all((r["losses"], r["wins"], r["ties"]) == (5, 1, 0) for r in rows.values())  # c0 reverses
    bt = report["bradley_terry"]
    assert bt["error"] is None
    assert [r["label"] for r in bt["rows"]] == ["c", "b", "a"]
    assert all(r["ci_low"] < r["rating"] < r["ci_high"] for r in bt["rows"] if r["label"] != bt["anchor"])


def test_same_model_run_across_two_eval_runs(judge_env, fake_chat, tmp_path: Path):
    stored_eval(judge_env, "before", tmp_path / "before", {"ember": "blue"}, cases=3)
    stored_eval(judge_env, "after", tmp_path / "after", {"ember": "red"}, cases=3)
    fake_chat.responder = prefers_by_rank
    out = tmp_path / "cmp"
    (row,) = pairwise(str(tmp_path / "before"), "after", "--out", str(out))["pairs_by_label"]
    assert (row["a"], row["b"]) == ("before:ember", "after:ember")
    assert (row["wins"], row["losses"]) == (1, 2)  # c0 reversed: "before" wins it
    assert (out / "pairwise.md").is_file()


def test_bad_input_exits_2(judge_env, fake_chat, tmp_path: Path):
    stored_eval(judge_env, "r1", tmp_path / "r1", {"ember": "red"}, cases=2)
    cli = CliRunner()
    one = cli.invoke(app, ["eval", "pairwise", "r1"])
    assert one.exit_code == 2 and "one model run" in one.output
    unknown = cli.invoke(app, ["eval", "pairwise", "r1", "--a", "ember", "--b", "nope"])
    assert unknown.exit_code == 2 and "no model run 'nope'" in unknown.output
    missing = cli.invoke(app, ["eval", "pairwise", "ghost"])
    assert missing.exit_code == 2 and "no eval run 'ghost'" in missing.output
    assert fake_chat.calls == []
