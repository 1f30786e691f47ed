"""k-sample judging's combination rule against hand-computed answers: median scores, strict-majority passes
(a tie fails), unscored samples left out."""

from __future__ import annotations

from arena.evals.graders.judge_samples import combine
from arena.judge import JudgeResult


def _result(data=None, reason="") -> JudgeResult:
    return JudgeResult(
        status="scored" if data is not None else "unscored",
        data=data,
        reason=reason,
        failure="" if data is not None else "schema",
        attempts=1,
        from_cache=False,
        inputs_hash="h",
        judge_model="m",
        rubric_version="v",
    )


def _score(value: int) -> JudgeResult:
    return _result({"score": value, "reason": f"r{value}", "failure_tags": []})


def _gate(passed: bool) -> JudgeResult:
    return _result({"passed": passed, "reason": str(passed), "failure_tags": [] if passed else ["x"]})


def test_scores_take_the_median_and_an_even_count_the_mean_of_the_middle_two():
    data, _, details = combine([_score(1), _score(5), _score(4)], gate=False)
    assert data["score"] == 4.0 and data["reason"] == "r4" and details["sample_scores"] == [1.0, 5.0, 4.0]
    data, _, _ = combine([_score(1), _score(4)], gate=False)
    assert data["score"] == 2.5


def test_pass_needs_a_strict_majority_and_a_tie_fails():
    assert combine([_gate(True), _gate(False), _gate(True)], gate=True)[0]["passed"] is True
    tie, _, details = combine([_gate(True), _gate(False)], gate=True)
    assert (
        tie["passed"] is False and tie["failure_tags"] == ["x"] and details["sample_votes"] == [True, False]
    )


def test_unscored_samples_are_left_out_and_none_scored_stays_unscored():
    data, _, details = combine([_result(None, "bad"), _score(2), _score(3), _score(5)], gate=False)
    assert data["score"] == 3.0 and details == {
        "judge_samples": 4,
        "samples_scored": 3,
        "sample_scores": [2.0, 3.0, 5.0],
    }
    data, reason, _ = combine([_result(None, "a"), _result(None, "b")], gate=True)
    assert data is None and reason == "b"
