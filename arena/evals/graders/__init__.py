"""The grader registry: one `RegisteredGrader` per grader, the built-in ones in `BUILTIN` and any installed
package's under the `arena.graders` entry-point group. Suites, the runner, summaries and verdicts read it.

basic, ocr_exact_text and preservation run offline in-process; rubric asks the LLM judge (async).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from arena.evals.graders.basic import basic
from arena.evals.graders.llm_judge import check_rubric_options, rubric, rubric_checks
from arena.evals.graders.ocr import check_ocr_options, ocr_exact_text
from arena.evals.graders.preservation import preservation
from arena.evals.graders.registration import RegisteredGrader
from arena.evals.scores import Grader

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "GraderPluginError",
    "RegisteredGrader",
    "build_grader",
    "check_options",
    "get_grader",
    "grader_of",
    "register",
    "registered",
]

ENTRY_POINT_GROUP = "arena.graders"

BUILTIN: tuple[RegisteredGrader, ...] = (
    RegisteredGrader(
        "basic", basic, "the output exists, decodes, has the expected size and aspect, and is not blank"
    ),
    RegisteredGrader(
        "ocr_exact_text",
        ocr_exact_text,
        "every required line of text is read back by offline OCR under the case's match rule",
        context=("workflow",),  # the workflow sets the default match rule
        validate=check_ocr_options,
        caps={
            "logo_editing": ("rubric:character_and_style_integrity", "rubric:edit_intent_correctness"),
        },
    ),
    RegisteredGrader(
        "preservation",
        preservation,
        "an edit leaves the pixels outside its region unchanged",
        caps={
            "logo_editing": ("rubric:non_target_invariance",),
            "virtual_tryon": ("rubric:body_shape_preservation",),
        },
    ),
    RegisteredGrader(
        "rubric",
        rubric,
        "the LLM judge's answer to each metric of the workflow's rubric (gates and 0-5 scales)",
        context=("judge", "workflow", "judge_samples", "judge_concurrency"),
        validate=check_rubric_options,
        checks=rubric_checks,
    ),
)

_registry: dict[str, RegisteredGrader] = {}


class GraderPluginError(RuntimeError):
    """An `arena.graders` entry point that cannot be used; the message is one line naming it and why."""


def register(entry: RegisteredGrader) -> None:
    """Add a grader to the registry (ValueError when its name is taken)."""
    table = registered()
    if entry.name in table:
        raise ValueError(f"grader '{entry.name}' is already registered")
    table[entry.name] = entry


def registered() -> dict[str, RegisteredGrader]:
    """Every grader by name: the built-in ones, then those of installed plugins (loaded on first use)."""
    if not _registry:
        table = {g.name: g for g in BUILTIN}
        for point in entry_points(group=ENTRY_POINT_GROUP):
            table[point.name] = _load_plugin(point, table)
        _registry.update(table)
    return _registry


def _load_plugin(point: Any, table: dict[str, RegisteredGrader]) -> RegisteredGrader:
    where = f"grader plugin '{point.name}' ({point.value})"
    try:
        entry = point.load()
    except Exception as exc:  # whatever the plugin's import raises, said in one line
        first = (str(exc).strip().splitlines() or [""])[0]
        raise GraderPluginError(f"{where} could not be loaded: {type(exc).__name__}: {first}") from exc
    if not isinstance(entry, RegisteredGrader):
        raise GraderPluginError(f"{where} is a {type(entry).__name__}, not a RegisteredGrader")
    if entry.name != point.name:
        raise GraderPluginError(f"{where} registers grader '{entry.name}'; the names must match")
    if entry.name in table:
        raise GraderPluginError(f"{where}: grader '{entry.name}' is already registered")
    return entry


def get_grader(name: str) -> RegisteredGrader:
    """The registered grader `name` (KeyError when there is none)."""
    return registered()[name]


def grader_of(key: str) -> str:
    """The name of the grader that produces score `key` (the key itself when no grader claims it)."""
    return next((g.name for g in registered().values() if g.owns(key)), key)


def check_options(name: str, options: dict[str, Any]) -> tuple[str, str] | None:
    """(option, reason) for the first option `name` does not take or of the wrong type; None when fine."""
    return get_grader(name).check_options(options)


def build_grader(name: str, options: dict[str, Any], **context: Any) -> Grader:
    """The grader `name` with `options`; `context` (judge, workflow, judge_samples, judge_concurrency) is passed
    where it is taken."""
    return get_grader(name).build(options, context)
