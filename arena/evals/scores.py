"""A score: what one grader says about one output (after inspect_ai's `Score`: value, explanation, metadata).

`kind` is "gate" (pass / fail: `passed` set, `value` 1 or 0), "graded" (a 0-5 rubric metric: `value`), or
"info" (a measurement shown in reports that no verdict uses). `unscored` means the grader could not score (a
judge answer that broke its schema); a gate that cannot be checked fails, it is never skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Kind = Literal["gate", "graded", "info"]


@dataclass(frozen=True)
class Score:
    """key, value, reason and failure tags of one check (see the module docstring for `kind`)."""

    key: str
    grader: str
    kind: Kind
    value: float | None
    reason: str = ""
    passed: bool | None = None
    failure_tags: tuple[str, ...] = ()
    unscored: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def gate(cls, key: str, grader: str, passed: bool, reason: str, *tags: str, **details: Any) -> Score:
        """A pass / fail check; a failure carries its failure tags."""
        return cls(
            key,
            grader,
            "gate",
            1.0 if passed else 0.0,
            reason,
            passed,
            () if passed else tags,
            False,
            details,
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the run folder's scores.jsonl lines)."""
        data = asdict(self)
        data["failure_tags"] = list(self.failure_tags)
        return data


@dataclass(frozen=True)
class Sample:
    """What a grader sees: the case, the output bytes (None when generation failed) and the inputs."""

    case: Any
    output: bytes | None
    references: tuple[bytes, ...]
    mask: bytes | None
    error: str = ""


Grader = Callable[[Sample], list[Score]]
