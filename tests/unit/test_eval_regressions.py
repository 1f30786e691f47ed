"""The regression rule of `eval compare --fail-on-regression`: the sign-flip p-value against scipy's permutation
test, known answers, tolerances, measured scores, gate flips, outages, and a null simulation (no true change)."""

import numpy as np
import pytest
from scipy import stats

from arena.db.eval_tables import EvalResult, EvalScore
from arena.evals.compare import compare
from arena.evals.regressions import check, markdown, sign_flip_p


def item(case, sample=0, status="ok", error="", **scores):
    result = EvalResult(
        run_id="r", case_id=case, run_label="m", sample=sample, model_slug="m", status=status, error=error
    )
    rows = []
    for key, value in scores.items():
        kind, details = "graded", {}
        if isinstance(value, bool):
            rows.append(
                EvalScore(result_id=0, key=key, grader=key, kind="gate", value=float(value), passed=value)
            )
            continue
        if key == "ocr_cer":
            kind, details = "info", {"lower_is_better": True}
        if isinstance(value, str):  # "unscored" / "skipped"
            details = {"skipped": True} if value == "skipped" else {}
            rows.append(
                EvalScore(result_id=0, key=key, grader="rubric", kind=kind, value=None, details=details)
            )
            continue
        rows.append(EvalScore(result_id=0, key=key, grader="g", kind=kind, value=value, details=details))
    return result, rows


def run_check(a, b, **kw):
    return check(a, b, [("m", "m")], **kw)


@pytest.mark.parametrize(
    "diffs",
    [[-1, -2, 0.5, -1, -1, 0, -3], [1, -1, 1, -1, 0.5, -0.5], [-0.2] * 6 + [0.1] * 3, list(range(-12, 8))],
)
def test_sign_flip_p_matches_scipys_permutation_test(diffs):
    expected = stats.permutation_test(
        (np.asarray(diffs, float),),
        np.mean,
        permutation_type="samples",
        alternative="less",
        n_resamples=np.inf if len(diffs) <= 16 else 20_000,
        random_state=0,
    ).pvalue
    assert sign_flip_p(diffs) == pytest.approx(expected, abs=0.01 if len(diffs) > 16 else 1e-9)


def test_known_answers_of_the_exact_test():
    assert sign_flip_p([-1.0] * 8) == 1 / 256
    assert sign_flip_p([-1.0] * 4) == 1 / 16  # 4 pairs can never reach p < 0.05
    assert sign_flip_p([0.0] * 5) == 1.0


def test_a_measured_score_regresses_typo_rate_0_vs_0_3():
    # The case: 8 flyers, ocr_cer 0.0 at typo rate 0 and about 0.3 at typo rate 0.3; the gate fails both.
    a = [item(f"c{i}", ocr_exact_text=False, ocr_cer=0.05) for i in range(8)]
    b = [item(f"c{i}", ocr_exact_text=False, ocr_cer=0.3 + i / 100) for i in range(8)]
    out = run_check(a, b)
    [regressed] = out["regressed"]
    assert regressed["key"] == "ocr_cer" and regressed["p_value"] == 1 / 256
    assert out["metrics"][1]["key"] == "ocr_exact_text" and not out["metrics"][1]["regressed"]
    changes = compare(a, b)
    assert changes["regressions"] == 8 and {c["key"] for c in changes["changes"]} == {"ocr_cer"}
    assert "**Regressed**: 1 metric(s)" in markdown(changes, out)


def test_tolerance_and_the_test_both_must_agree_for_graded_scores():
    a = [item(f"c{i}", **{"rubric:layout": 4.0}) for i in range(8)]
    b = [item(f"c{i}", **{"rubric:layout": 3.5}) for i in range(8)]
    assert run_check(a, b)["regressed"]
    assert not run_check(a, b, tolerances={"rubric:layout": 0.5})["regressed"]
    assert not run_check(a, b, tolerances={"graded": 0.5})["regressed"]  # by kind
    few = run_check(a[:4], b[:4])
    assert not few["regressed"] and few["metrics"][0]["p_value"] == 1 / 16  # noise cannot fail on 4 samples
    mixed = [item(f"c{i}", **{"rubric:layout": 3.0 if i < 2 else 5.0}) for i in range(8)]  # 2 worse, 6 better
    assert not run_check(a, mixed)["regressed"]


def test_gates_regress_on_pass_to_fail_flips_beyond_the_tolerance():
    a = [item(f"c{i}", basic=True) for i in range(10)]
    b = [item(f"c{i}", basic=i != 3) for i in range(10)]
    assert run_check(a, b)["regressed"][0]["flips"] == 1
    assert not run_check(a, b, tolerances={"basic": 0.1})["regressed"]
    assert not run_check(a, b, tolerances={"gate": 0.1})["regressed"]


def test_outages_are_left_out_and_listed_not_counted_as_regressions():
    a = [item(f"c{i}", basic=True, **{"rubric:layout": 4.0}) for i in range(6)]
    b = [item("c0", status="failed", error="timeout: no answer in 120 s", basic=False)]
    b += [item("c1", basic=True, **{"rubric:layout": "unscored"})]
    b += [item(f"c{i}", basic=True, **{"rubric:layout": 4.0}) for i in range(2, 6)]
    out = run_check(a, b)
    assert not out["regressed"] and len(out["outages"]) == 2
    assert "provider outage in B" in out["outages"][0] and "unscored in B" in out["outages"][1]
    refused = [item("c0", status="failed", error="content_refused: no", basic=False), *b[1:]]
    assert run_check(a, refused)["regressed"][0]["key"] == "basic"  # a refusal is the model's, not an outage
    both = [item("c0", **{"rubric:layout": "skipped"})]
    skipped = run_check(both, both)
    assert skipped["outages"] == [] and skipped["not_compared"] == [
        "m -> m rubric:layout: skipped in both runs"
    ]


def test_no_true_change_fails_rarely():
    # Known truth: A and B draw 0-5 judge scores from the same distribution (10 cases, one sample each run).
    rng = np.random.default_rng(7)
    runs, hits = 200, 0
    for _ in range(runs):
        a = [item(f"c{i}", **{"rubric:x": float(rng.integers(2, 6))}) for i in range(10)]
        b = [item(f"c{i}", **{"rubric:x": float(rng.integers(2, 6))}) for i in range(10)]
        hits += bool(run_check(a, b)["regressed"])
    assert hits / runs <= 0.08  # the one-sided test at alpha 0.05 (sampling error allowed)
    shifted = 0
    for _ in range(50):  # a true drop of one point on every item is always caught
        a = [item(f"c{i}", **{"rubric:x": float(rng.integers(3, 6))}) for i in range(10)]
        b = [item(r.case_id, r.sample, **{"rubric:x": sc[0].value - 1}) for r, sc in a]
        shifted += bool(run_check(a, b)["regressed"])
    assert shifted == 50
