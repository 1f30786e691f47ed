"""What a validated suite file is: its cases, model runs (sweep points expanded), graders with their gate pass
rates, and the error listing every problem of an invalid one (`arena.evals.suite` reads and checks the file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORKFLOWS = ("ui_mockup", "marketing_flyer", "virtual_tryon", "logo_editing", "generic")
TASKS = {"generation": "text_to_image", "editing": "image_editing"}


class SuiteError(ValueError):
    """An invalid suite: `problems` holds one `FILE:LINE: reason` string each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Case:
    """One thing to make and grade. `steps` (editing) applies several instructions in order."""

    id: str
    task: str
    prompt: str
    criteria: str = ""
    steps: tuple[str, ...] = ()
    required_text: tuple[str, ...] = ()
    references: tuple[Path, ...] = ()
    mask: Path | None = None
    edit_region: tuple[float, float, float, float] | None = None
    tags: tuple[str, ...] = ()
    expected: str = ""
    images: dict[str, tuple[Path, ...]] = field(default_factory=dict)  # run label or slug ("" any) -> samples
    prompt_id: str = ""  # the arena prompt whose imported outputs an external model is graded on
    text_match: str = ""  # exact | case_insensitive | contains; "" = the grader's or the workflow's rule
    extra_text: bool | None = None  # None = the grader's or the workflow's rule
    xfail: str = ""  # why the case is expected to fail; "" = not marked (see arena.evals.summary)
    ground_truth: Path | None = None  # the correct result (from the design source), shown to the judge

    @property
    def modality(self) -> str:
        """The arena modality this case's task maps to."""
        return TASKS[self.task]


@dataclass(frozen=True)
class ModelRun:
    """A registry model with parameter overrides; a sweep expands into one run per grid point."""

    label: str
    model: str
    params: dict[str, Any] = field(default_factory=dict)
    point: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GraderSpec:
    """A grader by name with its options; `min_pass_rate` is the gate pass rate the exit code checks."""

    name: str
    options: dict[str, Any]
    min_pass_rate: float = 1.0


@dataclass(frozen=True)
class Suite:
    """A validated suite file."""

    path: Path
    name: str
    workflow: str
    description: str
    samples: int
    seed: int
    cases: tuple[Case, ...]
    runs: tuple[ModelRun, ...]
    graders: tuple[GraderSpec, ...]
    sha256: str
    # `[suite] models_from = { tag, modality }`: registry models run beside `runs` when the command line names none
    models_from: dict[str, str] = field(default_factory=dict)
