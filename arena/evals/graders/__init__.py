"""Graders by name: small factories that take their options and return a function from a sample to scores.

basic, ocr_exact_text and preservation run offline in-process; rubric asks the LLM judge (async).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from arena.evals.graders.basic import basic
from arena.evals.graders.ocr import ocr_exact_text
from arena.evals.graders.preservation import preservation

FACTORIES: dict[str, Callable[..., Any]] = {
    "basic": basic,
    "ocr_exact_text": ocr_exact_text,
    "preservation": preservation,
}


def check_options(name: str, options: dict[str, Any]) -> tuple[str, str] | None:
    """(option, reason) for the first option `name` does not take or of the wrong type; None when fine."""
    if name == "rubric":
        from arena.evals.graders.rubric import check_rubric_options

        return check_rubric_options(options)
    params = {k: v for k, v in inspect.signature(FACTORIES[name]).parameters.items() if k != "workflow"}
    if name == "ocr_exact_text":
        from arena.evals.textmatch import MODES

        if options.get("match", "exact") not in MODES:
            return "match", f"option 'match' must be one of {', '.join(MODES)}"
        if not isinstance(options.get("extra_text", True), bool):
            return "extra_text", "option 'extra_text' must be true or false"
    for key, value in options.items():
        if key not in params:
            return key, f"grader '{name}' has no option '{key}' (options: {', '.join(params)})"
        default = params[key].default
        if isinstance(default, bool) and not isinstance(value, bool):
            return key, f"option '{key}' must be true or false"
        numeric = isinstance(default, int | float) and not isinstance(default, bool)
        if numeric and (isinstance(value, bool) or not isinstance(value, int | float)):
            return key, f"option '{key}' must be a number"
    return None


def build_grader(name: str, options: dict[str, Any], **context: Any) -> Any:
    """The grader `name` with `options`; `context` carries the judge client and workflow for the rubric grader."""
    if name == "rubric":
        from arena.evals.graders.rubric import rubric

        return rubric(
            judge=context["judge"],
            workflow=context["workflow"],
            samples=context.get("judge_samples", 1),
            **options,
        )
    if name == "ocr_exact_text":  # the workflow sets the default match rule
        return ocr_exact_text(**options, workflow=context.get("workflow") or "generic")
    return FACTORIES[name](**options)
