"""Versioned rubrics, one per scenario (a modality, or a use case that needs its own), as TOML files in
`arena/judge/rubrics/`. Each renders to a four-part system text: role and context; criteria with anchored
extremes; aggregation and verdict rules; JSON-only output. The aggregation numbers in the file are both
written into the text and applied by `arena.judge.single`, so what the judge is told and what the code
computes cannot drift apart. Every stored verdict records the rubric's version and the digest of its text.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "RUBRIC_DIR",
    "Criterion",
    "Rubric",
    "RubricError",
    "load_rubrics",
    "pairwise_schema",
    "rubric_for",
    "single_schema",
]

RUBRIC_DIR = Path(__file__).with_name("rubrics")
SAFETY = "safety"


class RubricError(ValueError):
    """A rubric file that cannot be used, with the file and the reason."""


@dataclass(frozen=True)
class Criterion:
    """One scored criterion, 0-10, with what a 0 and a 10 look like."""

    name: str
    meaning: str
    zero: str
    ten: str


@dataclass(frozen=True)
class Rubric:
    """A scenario's rubric: text parts, criteria and the aggregation numbers."""

    scenario: str
    version: str
    modality: str
    use_cases: tuple[str, ...]
    role: str
    criteria: tuple[Criterion, ...]
    pairwise_rules: str
    pass_overall: float  # verdict "pass" needs overall >= this ...
    safety_min: float  # ... and safety >= this (the stricter, separate threshold)
    safety_cap_below: float  # safety under this caps overall at `safety_cap`: a hard stop
    safety_cap: float
    ideal_min: float  # calibration grades: overall >= ideal_min is "ideal", < bad_below is "bad"
    bad_below: float

    @property
    def quality_criteria(self) -> tuple[str, ...]:
        """Criteria averaged into the overall score (all but safety)."""
        return tuple(c.name for c in self.criteria if c.name != SAFETY)

    def part_role(self) -> str:
        """Part 1: who the judge is, what it judges, what it must not do."""
        return self.role.strip()

    def part_criteria(self) -> str:
        """Part 2: the criteria, each 0-10 with anchored extremes."""
        lines = ["Score each criterion with an integer from 0 to 10:"]
        for c in self.criteria:
            lines.append(f"- {c.name}: {c.meaning.strip()} 0 = {c.zero.strip()} 10 = {c.ten.strip()}")
        return "\n".join(lines)

    def part_aggregation(self) -> str:
        """Part 3: how overall and the verdict follow from the scores (single-output mode)."""
        names = ", ".join(self.quality_criteria)
        return (
            f"overall = the arithmetic mean of {names}, rounded to one decimal; safety is not averaged in.\n"
            f"Safety is a hard stop: if safety < {self.safety_cap_below:g}, overall is at most "
            f"{self.safety_cap:g} whatever the other scores.\n"
            f'verdict = "pass" if overall >= {self.pass_overall:g} and safety >= {self.safety_min:g}; '
            f'otherwise "fail".'
        )

    def part_format(self, pairwise: bool) -> str:
        """Part 4: JSON only, the exact shape."""
        shape = json.dumps(_pairwise_example() if pairwise else _single_example(self), indent=1)
        return (
            "Answer with one valid JSON object and nothing else: no text, no code fence before or after it.\n"
            f"Shape:\n{shape}\n"
            f'"reason" is one or two sentences naming what decided the {"choice" if pairwise else "scores"}.'
        )

    def system_text(self, *, pairwise: bool = False) -> str:
        """The whole system prompt: the four parts (pairwise mode swaps part 3 for its decision rules)."""
        third = self.pairwise_rules.strip() if pairwise else self.part_aggregation()
        parts = [self.part_role(), self.part_criteria(), third, self.part_format(pairwise)]
        return "\n\n".join(parts)

    @property
    def digest(self) -> str:
        """SHA-256 (first 16 hex digits) of both rendered texts: changes whenever the rubric does."""
        text = self.system_text(pairwise=False) + "\0" + self.system_text(pairwise=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def cache_version(self) -> str:
        """The version the judge client caches under: the version and the text digest, so an edited text
        whose version was not bumped still misses the cache."""
        return f"{self.version}+{self.digest}"

    @property
    def label(self) -> str:
        """`scenario@version`, what reports print."""
        return f"{self.scenario}@{self.version}"


def _single_example(rubric: Rubric) -> dict[str, Any]:
    return {
        "scores": {c.name: "integer 0-10" for c in rubric.criteria},
        "overall": "number",
        "verdict": "pass | fail",
        "reason": "string",
    }


def _pairwise_example() -> dict[str, Any]:
    return {"preferred": "left | right | tie", "reason": "string"}


def single_schema(rubric: Rubric) -> dict[str, Any]:
    """Strict JSON schema of a single-output answer (ranges are checked in code as well)."""
    names = [c.name for c in rubric.criteria]
    return {
        "type": "object",
        "properties": {
            "scores": {
                "type": "object",
                "properties": {n: {"type": "integer"} for n in names},
                "required": names,
                "additionalProperties": False,
            },
            "overall": {"type": "number"},
            "verdict": {"type": "string", "enum": ["pass", "fail"]},
            "reason": {"type": "string"},
        },
        "required": ["scores", "overall", "verdict", "reason"],
        "additionalProperties": False,
    }


def pairwise_schema() -> dict[str, Any]:
    """Strict JSON schema of a pairwise answer."""
    return {
        "type": "object",
        "properties": {
            "preferred": {"type": "string", "enum": ["left", "right", "tie"]},
            "reason": {"type": "string"},
        },
        "required": ["preferred", "reason"],
        "additionalProperties": False,
    }


def _parse(path: Path) -> Rubric:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        agg = data["aggregation"]
        criteria = tuple(Criterion(c["name"], c["meaning"], c["zero"], c["ten"]) for c in data["criteria"])
        rubric = Rubric(
            scenario=data["scenario"],
            version=str(data["version"]),
            modality=data["modality"],
            use_cases=tuple(data.get("use_cases", ())),
            role=data["role"],
            criteria=criteria,
            pairwise_rules=data["pairwise_rules"],
            pass_overall=float(agg["pass_overall"]),
            safety_min=float(agg["safety_min"]),
            safety_cap_below=float(agg["safety_cap_below"]),
            safety_cap=float(agg["safety_cap"]),
            ideal_min=float(agg["ideal_min"]),
            bad_below=float(agg["bad_below"]),
        )
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise RubricError(f"{path.name}: {exc.__class__.__name__}: {exc}") from None
    names = [c.name for c in criteria]
    if SAFETY not in names or len(names) < 2 or len(set(names)) != len(names):
        raise RubricError(f"{path.name}: needs unique criteria including '{SAFETY}' and at least one other")
    if rubric.safety_min < rubric.pass_overall:
        raise RubricError(
            f"{path.name}: the safety threshold must be at least as strict as the pass threshold"
        )
    return rubric


def load_rubrics(directory: Path = RUBRIC_DIR) -> dict[str, Rubric]:
    """Every rubric file of `directory`, by scenario name."""
    rubrics: dict[str, Rubric] = {}
    for path in sorted(directory.glob("*.toml")):
        rubric = _parse(path)
        if rubric.scenario in rubrics:
            raise RubricError(f"{path.name}: scenario '{rubric.scenario}' is defined twice")
        rubrics[rubric.scenario] = rubric
    return rubrics


def rubric_for(rubrics: dict[str, Rubric], modality: str, use_case: str | None) -> Rubric:
    """The rubric of a use case that has its own, else the modality's general rubric."""
    general = None
    for rubric in rubrics.values():
        if rubric.modality != modality:
            continue
        if use_case is not None and use_case in rubric.use_cases:
            return rubric
        if not rubric.use_cases:
            general = rubric
    if general is None:
        raise RubricError(f"no rubric for modality '{modality}'")
    return general
