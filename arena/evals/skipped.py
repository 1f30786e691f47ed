"""A grader that was not run (the judge with `--no-judge`): every check it would have made is recorded as
unscored with the reason, so an item it would have graded is `unscored`, never `pass`, and the reports say so."""

from __future__ import annotations

from typing import Any

from arena.evals.scores import Grader, Sample, Score
from arena.evals.suite import GraderSpec

SKIPPED_TAG = "grader_skipped"


def skipped_keys(spec: GraderSpec, workflow: str) -> list[tuple[str, str]]:
    """(score key, kind) of every check `spec` makes: one per rubric metric, else the grader's own gate."""
    if spec.name != "rubric":
        return [(spec.name, "gate")]
    from arena.evals.rubric import load_rubric

    rubric = load_rubric(spec.options.get("rubric") or workflow)
    chosen = spec.options.get("metrics") or [m.key for m in rubric.metrics]
    kinds = {m.key: m.kind for m in rubric.metrics}
    return [(f"rubric:{k}", kinds[k] if kinds[k] in ("gate", "info") else "graded") for k in chosen]


def skipped_grader(spec: GraderSpec, workflow: str, why: str) -> Grader:
    """A grader that scores nothing: each of `spec`'s checks unscored, reason `skipped: <why>`."""
    keys = skipped_keys(spec, workflow)

    def grade(_sample: Sample) -> list[Score]:
        details: dict[str, Any] = {"skipped": True}
        return [
            Score(key, spec.name, kind, None, f"skipped: {why}", None, (SKIPPED_TAG,), True, details)  # type: ignore[arg-type]
            for key, kind in keys
        ]

    return grade
