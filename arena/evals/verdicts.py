"""Verdict rules: gates must pass, graded metrics must meet their thresholds, and nothing is averaged.

Per workflow, a judge metric and an offline check that measure the same property are combined by taking the
lower reading ("when in doubt, the lower score"): a failed gate reads as 0 on the linked 0-5 metric, so the
metric's mean in a report can never hide the failure. Which metrics a gate caps is the `caps` of its registered
grader (`arena.evals.graders`).
"""

from __future__ import annotations

from dataclasses import replace

from arena.evals.graders import registered
from arena.evals.scores import Score


def apply_consistency(scores: list[Score], workflow: str) -> list[Score]:
    """`scores` with each linked graded metric lowered to 0 when one of its gates failed."""
    rules = lower_of(workflow)
    failed = {s.key for s in scores if s.kind == "gate" and s.passed is False}
    out = []
    for score in scores:
        gates = [g for g in rules.get(score.key, ()) if g in failed]
        if gates and score.value is not None and score.value > 0:
            threshold = score.details.get("threshold")
            score = replace(
                score,
                value=0.0,
                passed=False if threshold is not None else score.passed,
                reason=f"{score.reason} [lowered from {score.value:g} to 0: the {', '.join(gates)} check failed]",
                details={**score.details, "judge_value": score.value, "lowered_by": gates},
            )
        out.append(score)
    return out


def lower_of(workflow: str) -> dict[str, tuple[str, ...]]:
    """Graded metric -> the gates whose failure caps it at 0 in `workflow`, from the registered graders."""
    rules: dict[str, tuple[str, ...]] = {}
    for grader in registered().values():
        for metric in grader.caps.get(workflow, ()):
            rules[metric] = (*rules.get(metric, ()), grader.name)
    return rules


def verdict(scores: list[Score]) -> tuple[str, list[str]]:
    """("pass" | "fail" | "unscored", failure tags). Fail: any gate failed or any graded metric is below its
    threshold. Unscored: nothing failed but some check could not be scored. Pass: everything else."""
    failing = [s for s in scores if s.kind in ("gate", "graded") and s.passed is False]
    tags = sorted(
        {t for s in failing for t in s.failure_tags} | ({"unscored"} if _unscored(scores) else set())
    )
    if failing:
        return "fail", tags
    if _unscored(scores):
        return "unscored", tags
    return "pass", tags


def expected_failure(outcome: str, tags: list[str], xfail: str) -> tuple[str, list[str]]:
    """The verdict of a case marked `xfail` (reason non-empty): a fail is "xfail", a pass "xpass" (the mark is
    stale), an unscored item stays "unscored". Unmarked cases keep their verdict."""
    if not xfail:
        return outcome, tags
    return {"fail": "xfail", "pass": "xpass"}.get(outcome, outcome), tags


def _unscored(scores: list[Score]) -> bool:
    return any(s.unscored for s in scores if s.kind in ("gate", "graded"))
