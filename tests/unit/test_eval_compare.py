"""`arena eval compare`: per case and per metric changes, regressions first; label pairing."""

import pytest

from arena.db.eval_tables import EvalResult, EvalScore
from arena.evals.compare import compare, pair_labels


def item(label, case, verdict, **scores):
    result = EvalResult(
        run_id="r", case_id=case, run_label=label, sample=0, model_slug="m", status="ok", verdict=verdict
    )
    rows = []
    for key, value in scores.items():
        if isinstance(value, bool):
            rows.append(
                EvalScore(result_id=0, key=key, grader=key, kind="gate", value=float(value), passed=value)
            )
        else:
            rows.append(
                EvalScore(
                    result_id=0, key=key, grader="rubric", kind="graded", value=value, passed=value >= 4
                )
            )
    return result, rows


def test_regressions_come_first_then_improvements():
    a = [
        item("m", "c1", "pass", ocr=True, **{"rubric:x": 5.0}),
        item("m", "c2", "fail", ocr=False, **{"rubric:x": 2.0}),
        item("m", "c3", "pass", ocr=True, **{"rubric:x": 4.0}),
    ]
    b = [
        item("m", "c1", "fail", ocr=False, **{"rubric:x": 5.0}),
        item("m", "c2", "pass", ocr=True, **{"rubric:x": 4.0}),
        item("m", "c3", "pass", ocr=True, **{"rubric:x": 3.0}),
    ]
    out = compare(a, b)
    changes = out["changes"]
    assert out["regressions"] == 3 and out["improvements"] == 3
    assert [(c["case_id"], c["key"]) for c in changes[:3]] == [
        ("c1", "verdict"),
        ("c1", "ocr"),
        ("c3", "rubric:x"),
    ]
    assert all(c["delta"] < 0 for c in changes[:3]) and all(c["delta"] > 0 for c in changes[3:])
    assert changes[1]["a"] == "pass" and changes[1]["b"] == "fail"
    assert out["unchanged"] == 2  # c1's rubric:x and c3's ocr


def test_label_pairing_for_model_updates_and_sweep_points():
    assert pair_labels(["m[q=1]", "m[q=2]"], ["m[q=1]", "m[q=2]"], None, None) == [
        ("m[q=1]", "m[q=1]"),
        ("m[q=2]", "m[q=2]"),
    ]
    assert pair_labels(["old"], ["new"], None, None) == [("old", "new")]
    assert pair_labels(["m[q=1]", "m[q=2]"], ["m[q=1]", "m[q=2]"], "m[q=1]", "m[q=2]") == [
        ("m[q=1]", "m[q=2]")
    ]
    with pytest.raises(ValueError, match="--label-a"):
        pair_labels(["a", "b"], ["c", "d"], None, None)


def test_items_only_in_one_run_are_listed():
    out = compare([item("m", "c1", "pass", ocr=True)], [item("m", "c2", "pass", ocr=True)])
    assert out["only_in_a"] == ["c1#0"] and out["only_in_b"] == ["c2#0"] and out["changes"] == []


def test_measurements_are_compared_in_their_own_direction():
    # Measured scores are listed too (issue 27: typo rate 0.0 vs 0.3 read "0 regressions"); lower_is_better flips.
    a_result, a_scores = item("m", "c1", "pass", ocr=True)
    b_result, b_scores = item("m", "c1", "pass", ocr=True)
    a_scores.append(EvalScore(result_id=0, key="outside_ssim_low", grader="p", kind="info", value=0.99))
    b_scores.append(EvalScore(result_id=0, key="outside_ssim_low", grader="p", kind="info", value=0.95))
    cer = {"lower_is_better": True}
    a_scores.append(EvalScore(result_id=0, key="ocr_cer", grader="ocr", kind="info", value=0.0, details=cer))
    b_scores.append(EvalScore(result_id=0, key="ocr_cer", grader="ocr", kind="info", value=0.3, details=cer))
    out = compare([(a_result, a_scores)], [(b_result, b_scores)])
    deltas = {c["key"]: c["delta"] for c in out["changes"]}
    assert out["regressions"] == 2
    assert deltas["ocr_cer"] == pytest.approx(-0.3) and deltas["outside_ssim_low"] == pytest.approx(-0.04)
