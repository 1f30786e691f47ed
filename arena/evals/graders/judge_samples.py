"""k-sample judging: the same rubric question asked K times, combined into one answer.

A graded (0-5) or informative score takes the median of the scored samples (an even count takes the mean of
the two middle values). A pass / fail question takes the majority of the scored samples; pass needs a strict
majority, so an even split (a tie) is a fail. Samples left unscored (schema broken, refused, API failure) are
left out; when none is scored the metric stays unscored with the last reason. The reason and failure tags shown
are those of the first sample that agrees with the combined answer (the one nearest the median for scores).
"""

from __future__ import annotations

import statistics
from typing import Any

from arena.judge import JudgeResult


def combine(results: list[JudgeResult], gate: bool) -> tuple[dict[str, Any] | None, str, dict[str, Any]]:
    """(combined answer data or None, reason when None, details: the per-sample values and counts)."""
    scored = [r.data for r in results if r.scored and r.data is not None]
    details: dict[str, Any] = {"judge_samples": len(results), "samples_scored": len(scored)}
    if not scored:
        return None, results[-1].reason if results else "no judge sample", details
    if len(results) == 1:
        return scored[0], "", details
    if gate:
        votes = [bool(d["passed"]) for d in scored]
        passed = 2 * sum(votes) > len(votes)
        details["sample_votes"] = votes
        chosen = next(d for d in scored if bool(d["passed"]) == passed) if passed in votes else scored[0]
        return {**chosen, "passed": passed}, "", details
    values = [float(d["score"]) for d in scored]
    middle = float(statistics.median(values))
    details["sample_scores"] = values
    chosen = min(scored, key=lambda d: abs(float(d["score"]) - middle))
    return {**chosen, "score": middle}, "", details
