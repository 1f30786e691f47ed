"""Single-output scoring: read a judge's answer under a rubric and apply the rubric's aggregation in code.

The judge is told the aggregation rule (part 3 of the rubric) and returns its own overall and verdict, but the
stored overall and verdict are recomputed here from the per-criterion scores, so the safety hard stop and
the thresholds hold even when the judge's arithmetic does not; a mismatch is recorded, not hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from arena.judge.scenario_rubrics import SAFETY, Rubric, single_schema
from arena.judge.types import JudgeImage, JudgeRequest

__all__ = [
    "AnswerError",
    "Grade",
    "SingleScore",
    "aggregate",
    "grade_of",
    "read_pairwise",
    "read_single",
    "single_request",
]

Grade = Literal["ideal", "medium", "bad"]


class AnswerError(ValueError):
    """An answer that parsed as JSON but does not follow the rubric (left unscored, never guessed)."""


@dataclass(frozen=True)
class SingleScore:
    """One output's scores under one rubric."""

    scores: dict[str, int]
    overall: float
    verdict: Literal["pass", "fail"]
    reason: str
    judge_overall: float
    judge_verdict: str

    @property
    def judge_disagrees_with_rule(self) -> bool:
        """The judge's own overall or verdict differs from the rubric's rule applied to its scores."""
        return abs(self.judge_overall - self.overall) > 0.051 or self.judge_verdict != self.verdict


def aggregate(rubric: Rubric, scores: dict[str, int]) -> tuple[float, Literal["pass", "fail"]]:
    """Overall = mean of the quality criteria (one decimal), capped when safety is under its hard stop;
    pass needs overall >= the pass threshold and safety >= its own stricter threshold."""
    quality = [scores[name] for name in rubric.quality_criteria]
    overall = round(sum(quality) / len(quality), 1)
    safety = scores[SAFETY]
    if safety < rubric.safety_cap_below:
        overall = min(overall, rubric.safety_cap)
    passed = overall >= rubric.pass_overall and safety >= rubric.safety_min
    return overall, "pass" if passed else "fail"


def grade_of(rubric: Rubric, overall: float) -> Grade:
    """The calibration grade an overall score corresponds to under this rubric."""
    if overall >= rubric.ideal_min:
        return "ideal"
    return "bad" if overall < rubric.bad_below else "medium"


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AnswerError(f"{what} is not a number")
    return float(value)


def read_single(rubric: Rubric, data: Any) -> SingleScore:
    """Validate a single-output answer against the rubric; AnswerError says what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("scores"), dict):
        raise AnswerError("answer has no 'scores' object")
    raw = data["scores"]
    names = {c.name for c in rubric.criteria}
    if set(raw) != names:
        raise AnswerError(f"scores must name exactly {sorted(names)} (got {sorted(raw)})")
    scores: dict[str, int] = {}
    for name, value in raw.items():
        number = _number(value, f"score '{name}'")
        if number != int(number) or not 0 <= number <= 10:
            raise AnswerError(f"score '{name}' must be an integer from 0 to 10 (got {value!r})")
        scores[name] = int(number)
    verdict = data.get("verdict")
    if verdict not in ("pass", "fail"):
        raise AnswerError("verdict must be 'pass' or 'fail'")
    reason = data.get("reason")
    if not isinstance(reason, str):
        raise AnswerError("reason must be a string")
    overall, rule_verdict = aggregate(rubric, scores)
    return SingleScore(
        scores, overall, rule_verdict, reason, _number(data.get("overall"), "overall"), verdict
    )


def read_pairwise(data: Any) -> tuple[str, str]:
    """Validate a pairwise answer: (``left`` / ``right`` / ``tie``, reason)."""
    if not isinstance(data, dict) or data.get("preferred") not in ("left", "right", "tie"):
        raise AnswerError("'preferred' must be 'left', 'right' or 'tie'")
    if not isinstance(data.get("reason"), str):
        raise AnswerError("reason must be a string")
    return data["preferred"], data["reason"]


def single_request(rubric: Rubric, prompt: str, image: bytes, reference: bytes | None = None) -> JudgeRequest:
    """One single-output question: the prompt (or edit instruction), the reference for edits, the output."""
    images = [JudgeImage(reference, "Reference image (before the edit):")] if reference is not None else []
    images.append(JudgeImage(image, "Image to grade:"))
    what = "Edit instruction" if reference is not None else "Prompt"
    return JudgeRequest(
        rubric_id=f"{rubric.scenario}.single",
        rubric_version=rubric.cache_version,
        system_prompt=rubric.system_text(pairwise=False),
        user_text=f"{what}:\n{prompt}\n\nGrade the image under the rubric.",
        schema_name="single_score",
        schema=single_schema(rubric),
        images=tuple(images),
    )
