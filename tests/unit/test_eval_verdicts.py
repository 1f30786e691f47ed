"""Verdict rules: gates are never averaged away; graded metrics meet thresholds; the lower reading wins."""

from arena.evals.scores import Score
from arena.evals.verdicts import apply_consistency, verdict


def graded(key, value, threshold=4.0, unscored=False):
    passed = None if unscored else value >= threshold
    return Score(key, "rubric", "graded", None if unscored else value, "r", passed, () if passed else ("low",),
                 unscored, {"threshold": threshold})  # fmt: skip


def test_a_failed_gate_with_perfect_graded_scores_fails():
    scores = [Score.gate("ocr_exact_text", "ocr", False, "missing", "wrong_text")] + [
        graded(f"rubric:m{i}", 5.0) for i in range(3)
    ]
    outcome, tags = verdict(scores)
    assert outcome == "fail" and tags == ["wrong_text"]


def test_all_gates_and_thresholds_met_passes_and_one_low_metric_fails():
    ok = [Score.gate("basic", "basic", True, "fine"), graded("rubric:a", 4.0), graded("rubric:b", 5.0)]
    assert verdict(ok) == ("pass", [])
    assert verdict([*ok, graded("rubric:c", 3.0)])[0] == "fail"


def test_an_unscored_metric_is_not_a_pass_but_a_failure_still_wins():
    scores = [Score.gate("basic", "basic", True, "fine"), graded("rubric:a", 0, unscored=True)]
    assert verdict(scores) == ("unscored", ["unscored"])
    assert (
        verdict([*scores, Score.gate("preservation", "p", False, "x", "changed_outside_region")])[0] == "fail"
    )


def test_info_scores_never_decide():
    assert verdict([Score("outside_ssim_low", "p", "info", 0.1), Score.gate("basic", "b", True, "")]) == (
        "pass",
        [],
    )


def test_logo_workflow_takes_the_lower_reading_when_the_pixel_check_fails():
    scores = [
        Score.gate("preservation", "p", False, "spill", "changed_outside_region"),
        graded("rubric:non_target_invariance", 5.0),
    ]
    lowered = apply_consistency(scores, "logo_editing")
    metric = lowered[1]
    assert metric.value == 0.0 and metric.passed is False and metric.details["judge_value"] == 5.0
    assert "preservation" in metric.reason
    # Other workflows and passing gates leave the judge's score alone.
    assert apply_consistency(scores, "marketing_flyer")[1].value == 5.0
    passing = [Score.gate("preservation", "p", True, "ok"), graded("rubric:non_target_invariance", 5.0)]
    assert apply_consistency(passing, "logo_editing")[1].value == 5.0
