"""A run's summary per model run (and sweep point): verdict counts, each gate's pass rate against the suite's
`min_pass_rate`, each graded metric's mean; and the exit code a CI job reads.

A check that could not be scored (a skipped grader, an unscored judge answer) is not passed: it counts in a
gate's total but not in its passes. A pass rate below its minimum is a breach (exit 1) when it would stay below
even if every unscored check had passed; otherwise the run is incomplete (exit 3), as it is whenever a grader
was skipped: an offline run never reads as a pass.

A case marked `xfail` (verdict xfail, xpass, or unscored) is left out of the gates and metric means: its
failure does not fail the run. The mark is not strict: a marked case that passes is counted as xpass and
listed in `xpassed` (printed XPASS) so the stale mark can be removed, but the exit code does not change."""

from __future__ import annotations

from typing import Any

from arena.db.eval_tables import EvalResult, EvalScore
from arena.evals.graders import grader_of

EXIT_OK = 0
EXIT_BELOW_THRESHOLD = 1
EXIT_BAD_INPUT = 2
EXIT_INCOMPLETE = 3


def summarize(
    items: list[tuple[EvalResult, list[EvalScore]]],
    min_rates: dict[str, float],
    skipped: dict[str, str] | None = None,
    xfail: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The summary dict stored on the run and printed by the CLI; `skipped` names graders that did not run,
    `xfail` maps the ids of cases marked expected-to-fail to the reason."""
    runs: dict[str, dict[str, Any]] = {}
    marked = xfail or {}
    xpassed: list[str] = []
    for result, scores in items:
        run = runs.setdefault(
            result.run_label,
            {
                "model": result.model_slug,
                "params": result.params,
                "items": 0,
                "verdicts": {"pass": 0, "fail": 0, "unscored": 0},  # + xfail, xpass when any
                "gates": {},
                "metrics": {},
                "measures": {},
            },
        )
        run["items"] += 1
        run["verdicts"][result.verdict or "unscored"] = (
            run["verdicts"].get(result.verdict or "unscored", 0) + 1
        )
        if result.verdict == "xpass":
            xpassed.append(
                f"{result.run_label}: {result.case_id}#{result.sample} passed (xfail: {marked.get(result.case_id, '')})"
            )
        if result.case_id in marked or result.verdict in ("xfail", "xpass"):
            continue
        for score in scores:
            if score.kind in ("gate", "graded"):  # a graded metric "passes" when it meets its threshold
                gate = run["gates"].setdefault(score.key, {"passed": 0, "total": 0, "unscored": 0})
                gate["total"] += 1
                gate["passed"] += int(score.passed is True)
                gate["unscored"] += int(score.passed is None)
            if score.kind == "info" and score.value is not None:  # e.g. ocr_cer, the judge's text score
                measure = run["measures"].setdefault(score.key, {"sum": 0.0, "n": 0})
                measure["sum"] += score.value
                measure["n"] += 1
            if score.kind == "graded":
                metric = run["metrics"].setdefault(score.key, {"sum": 0.0, "n": 0, "unscored": 0})
                if score.value is None:
                    metric["unscored"] += 1
                else:
                    metric["sum"] += score.value
                    metric["n"] += 1
    breaches, incomplete = [], []
    for label, run in runs.items():
        run["pass_rate"] = run["verdicts"]["pass"] / run["items"] if run["items"] else 0.0
        for key, gate in run["gates"].items():
            gate["rate"] = gate["passed"] / gate["total"] if gate["total"] else 0.0
            gate["min_pass_rate"] = min_rates.get(grader_of(key), 1.0)
            gate["ok"] = gate["rate"] >= gate["min_pass_rate"] - 1e-12
            if not gate["ok"]:
                at_best = (gate["passed"] + gate["unscored"]) / gate["total"]
                line = f"{label}: {key} pass rate {gate['rate']:.2f} < {gate['min_pass_rate']:.2f}"
                if at_best < gate["min_pass_rate"] - 1e-12:
                    breaches.append(line)
                else:
                    incomplete.append(f"{line} ({gate['unscored']} of {gate['total']} not scored)")
        for metric in [*run["metrics"].values(), *run["measures"].values()]:
            metric["mean"] = metric["sum"] / metric["n"] if metric["n"] else None
            del metric["sum"]
    skipped_list = [f"{name}: {why}" for name, why in sorted((skipped or {}).items())]
    return {
        "runs": runs,
        "breaches": breaches,
        "incomplete": incomplete,
        "skipped_graders": skipped_list,
        "xpassed": xpassed,
    }


def exit_code(summary: dict[str, Any]) -> int:
    """1 when a pass rate is below its minimum on what was scored; else 3 when a grader was skipped or unscored
    checks leave a rate below its minimum; else 0."""
    if summary["breaches"]:
        return EXIT_BELOW_THRESHOLD
    if summary.get("incomplete") or summary.get("skipped_graders"):
        return EXIT_INCOMPLETE
    return EXIT_OK
