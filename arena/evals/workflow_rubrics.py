"""Versioned rubric texts per workflow (arena/evals/rubrics/*.toml): metrics with anchored 0-5 scales or
pass / fail questions, thresholds and the workflow's failure tags, the quick human labels the console asks
for; and the judge prompt and schema per metric."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

RUBRIC_DIR = Path(__file__).with_name("rubrics")


@dataclass(frozen=True)
class Metric:
    """One rubric metric: a gate (pass / fail question) or a graded 0-5 scale with a pass threshold."""

    key: str
    kind: str
    title: str
    question: str
    scale: tuple[str, ...] = ()
    threshold: float | None = None
    zoom: bool = False  # a text-accuracy question: the judge also gets zoomed views of the output


@dataclass(frozen=True)
class HumanLabel:
    """A quick label a person gives beside the metrics: yes / no, a whole number from `low` to `high`, or one
    of `choices` (the seed's rubric labels, e.g. UI clarity 1-5 or try-on artifacts none / minor / major)."""

    key: str
    question: str
    kind: str  # "yes_no" | "scale" | "choice"
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class WorkflowRubric:
    """A workflow's rubric; `version` keys the judge cache, so any text change needs a new version."""

    workflow: str
    version: str
    role: str
    failure_tags: tuple[str, ...]
    metrics: tuple[Metric, ...]
    human_labels: tuple[HumanLabel, ...] = ()

    def metric(self, key: str) -> Metric:
        """The metric named `key` (KeyError when absent)."""
        for metric in self.metrics:
            if metric.key == key:
                return metric
        raise KeyError(key)


def available() -> list[str]:
    """Workflows that ship a rubric."""
    return sorted(p.stem for p in RUBRIC_DIR.glob("*.toml"))


@cache
def load_rubric(workflow: str) -> WorkflowRubric:
    """The shipped rubric of `workflow` (FileNotFoundError when there is none)."""
    data = tomllib.loads((RUBRIC_DIR / f"{workflow}.toml").read_text())
    metrics = tuple(
        Metric(
            m["key"],
            m["kind"],
            m["title"],
            m["question"],
            tuple(m.get("scale", ())),
            m.get("threshold"),
            bool(m.get("zoom", False)),
        )
        for m in data["metrics"]
    )
    labels = tuple(
        HumanLabel(
            h["key"],
            h["question"],
            h["kind"],
            *(h.get("range", (0, 0))),
            choices=tuple(h.get("choices", ())),
        )
        for h in data.get("human_labels", ())
    )
    return WorkflowRubric(
        workflow, data["version"], data["role"], tuple(data["failure_tags"]), metrics, labels
    )


def system_prompt(rubric: WorkflowRubric, metric: Metric) -> str:
    """The judge's instructions for one metric (one call per metric keeps each judgement focused)."""
    lines = [
        rubric.role,
        "",
        f"Grade exactly one thing: {metric.title}.",
        metric.question,
        "",
    ]
    if metric.kind == "gate":
        lines.append("Answer passed=true only when the requirement is fully met; anything missing fails.")
    else:
        lines.append("Score on this anchored scale:")
        lines.extend(f"- {step}" for step in metric.scale)
    lines += [
        "",
        "Be strict and consistent. When torn between two scores, choose the lower one.",
        "Base every judgement on concrete things visible in the images; do not grade aesthetics unless asked.",
        "Give a one or two sentence reason naming what you saw, and the failure tags that apply (none when it passes).",
        "Reply with the JSON object the schema describes and nothing else.",
    ]
    return "\n".join(lines)


def answer_schema(rubric: WorkflowRubric, metric: Metric) -> dict[str, Any]:
    """The strict JSON schema of one metric's answer."""
    verdict: dict[str, Any] = (
        {"passed": {"type": "boolean"}}
        if metric.kind == "gate"
        else {"score": {"type": "integer", "enum": [0, 1, 2, 3, 4, 5]}}
    )
    return {
        "type": "object",
        "properties": {
            **verdict,
            "reason": {"type": "string"},
            "failure_tags": {"type": "array", "items": {"type": "string", "enum": list(rubric.failure_tags)}},
        },
        "required": [*verdict, "reason", "failure_tags"],
        "additionalProperties": False,
    }
