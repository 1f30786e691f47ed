"""Grading one item: every grader of the suite on one sample, concurrently (async graders awaited together,
sync ones each in a worker thread), the scores in the suite's grader order whatever order they finish in."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from arena.evals.scores import Sample, Score

__all__ = ["grade_item"]


async def _one(spec: Any, grader: Any, sample: Sample) -> list[Score]:
    try:
        if inspect.iscoroutinefunction(grader):
            return list(await grader(sample))
        return list(await asyncio.to_thread(grader, sample))
    except Exception as exc:  # a grader crash fails its gate instead of killing the run
        reason = f"grader error: {type(exc).__name__}: {exc}"
        return [Score.gate(spec.name, spec.name, False, reason, "grader_error")]


async def grade_item(
    graders: list[tuple[Any, Any]], sample: Sample, *, concurrent: bool = True
) -> list[Score]:
    """The scores of (spec, grader) pairs on `sample`; `concurrent=False` runs them one after another (the
    harness before graders overlapped; kept for bench/bench_eval_graders.py)."""
    if concurrent:
        groups = await asyncio.gather(*(_one(spec, grader, sample) for spec, grader in graders))
    else:
        groups = [await _one(spec, grader, sample) for spec, grader in graders]
    return [score for group in groups for score in group]
