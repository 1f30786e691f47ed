"""A grader that was not run (the judge with `--no-judge`): every check it would have made is recorded as
unscored with the reason, so an item it would have graded is `unscored`, never `pass`, and the reports say so."""

from __future__ import annotations

from typing import Any

from arena.evals.graders import get_grader
from arena.evals.scores import Grader, Sample, Score
from arena.evals.suite_types import GraderSpec

SKIPPED_TAG = "grader_skipped"


def skipped_grader(spec: GraderSpec, workflow: str, why: str) -> Grader:
    """A grader that scores nothing: each of `spec`'s checks unscored, reason `skipped: <why>`."""
    keys = get_grader(spec.name).score_keys(spec.options, workflow)

    def grade(_sample: Sample) -> list[Score]:
        details: dict[str, Any] = {"skipped": True}
        return [
            Score(key, spec.name, kind, None, f"skipped: {why}", None, (SKIPPED_TAG,), True, details)
            for key, kind in keys
        ]

    return grade
