"""`arena judge check`: the CI gate. A held-out labelled set (JSON lines: a prompt, two images, the people's
label) is judged in both orders; the gate fails when agreement or the kappa with A/B-symmetrised marginals (see
`ratings.agreement.Agreement`; which image a file calls "a" is the file author's choice, so the gate must not
depend on it) falls below its threshold. Cohen's kappa is reported beside it.

    {"id": "sign-01", "modality": "text_to_image", "use_case": "marketing_advertising",
     "prompt": "A bakery sign that reads \\"OPEN\\"", "image_a": "a.png", "image_b": "b.png", "label": "a"}

`label` is `a`, `b` or `tie`; image paths are relative to the file and stay inside its folder; editing items add
`"reference": "ref.png"`. `model_a`, `model_b`, `votes` and `how` may be present (`arena judge labels export`
and the shipped golden set write them) and are only for people: the judge is never shown them.
An item the judge leaves unscored counts as a disagreement in the agreement rate (a gate must not pass by
failing to answer) and is left out of kappa.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.judge.pairwise import Judge, closing, judge_pair
from arena.judge.scenario_rubrics import Rubric, RubricError, rubric_for
from arena.media.images import ImageRejected
from arena.media.store import normalize_image
from arena.runtime.inside import OutsideFolder, inside
from ratings.agreement import Agreement, measure_agreement
from ratings.proportions import wilson_interval

__all__ = ["CheckResult", "LabelledItem", "LabelsError", "check_labelled", "read_labels"]

LABELS = {"a": 0, "b": 1, "tie": 2}
FIELDS = {"id", "modality", "use_case", "prompt", "image_a", "image_b", "label", "reference"}
INFO_FIELDS = {"model_a", "model_b", "votes", "how"}  # for people reading the file; the judge never sees them


class LabelsError(ValueError):
    """A labelled file that cannot be used: `FILE:LINE: reason`."""


@dataclass(frozen=True)
class LabelledItem:
    """One held-out pair with the people's label."""

    id: str
    rubric: Rubric
    prompt: str
    image_a: bytes
    image_b: bytes
    reference: bytes | None
    label: int


def _image(base: Path, value: Any, where: str) -> bytes:
    if not isinstance(value, str) or not value:
        raise LabelsError(f"{where}: an image path is required")
    try:
        path = inside(base, value)
    except OutsideFolder as exc:
        raise LabelsError(f"{where}: image {exc}") from None
    try:
        return normalize_image(path.read_bytes())  # identical normalization for every image, as served
    except OSError:
        raise LabelsError(f"{where}: cannot read image '{value}'") from None
    except ImageRejected as exc:
        raise LabelsError(f"{where}: '{value}' is not a usable image ({exc})") from None


def read_labels(path: Path, rubrics: dict[str, Rubric]) -> list[LabelledItem]:
    """Parse and check the whole file; the first bad line stops it with its location."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise LabelsError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise LabelsError(f"{path}: not UTF-8 text") from None
    items: list[LabelledItem] = []
    for number, line in enumerate(lines, 1):
        where = f"{path}:{number}"
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelsError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise LabelsError(f"{where}: each line must be a JSON object")
        unknown = set(data) - FIELDS - INFO_FIELDS
        if unknown:
            raise LabelsError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        if data.get("label") not in LABELS:
            raise LabelsError(f"{where}: label must be 'a', 'b' or 'tie'")
        if not isinstance(data.get("prompt"), str) or not data["prompt"].strip():
            raise LabelsError(f"{where}: prompt is required")
        try:
            rubric = rubric_for(rubrics, data.get("modality", "text_to_image"), data.get("use_case"))
        except RubricError as exc:
            raise LabelsError(f"{where}: {exc}") from None
        reference = _image(path.parent, data["reference"], where) if data.get("reference") else None
        items.append(
            LabelledItem(
                str(data.get("id", number)),
                rubric,
                data["prompt"],
                _image(path.parent, data.get("image_a"), where),
                _image(path.parent, data.get("image_b"), where),
                reference,
                LABELS[data["label"]],
            )
        )
    if not items:
        raise LabelsError(f"{path}: no labelled items")
    return items


@dataclass(frozen=True)
class CheckResult:
    """The gate's figures and decision."""

    items: int
    unscored: int
    agreement_rate: float  # unscored items count as disagreements
    agreement_low: float
    agreement_high: float
    scored: Agreement
    position_bias_rate: float
    position_bias_low: float
    position_bias_high: float
    min_agreement: float
    min_kappa: float
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """True when every threshold is met."""
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe."""
        out = {
            k: (None if isinstance(v, float) and not np.isfinite(v) else v)
            for k, v in self.__dict__.items()
            if k != "scored"
        }
        out["scored"] = self.scored.to_dict()
        out["failures"] = list(self.failures)
        out["passed"] = self.passed
        return out


def check_labelled(
    judge: Judge, items: list[LabelledItem], *, min_agreement: float, min_kappa: float, concurrency: int = 4
) -> CheckResult:
    """Judge every item in both orders and compare with the labels and thresholds."""

    async def all_items() -> list[Any]:
        gate = asyncio.Semaphore(max(1, concurrency))

        async def one(item: LabelledItem) -> Any:
            async with gate:
                return await judge_pair(
                    judge, item.rubric, item.prompt, item.image_a, item.image_b, item.reference
                )

        return await asyncio.gather(*(one(i) for i in items))

    judged = asyncio.run(closing(judge, all_items()))
    scored = [(i, j) for i, j in zip(items, judged, strict=True) if j.verdict is not None]
    judge_codes = np.array([j.verdict.outcome for _, j in scored], dtype=np.int64)
    labels = np.array([i.label for i, _ in scored], dtype=np.int64)
    agreement = measure_agreement(judge_codes, labels)
    agree = int((judge_codes == labels).sum())
    low, high = wilson_interval(agree, len(items))
    rate = agree / len(items)
    flips = np.array([j.verdict.position_flip for _, j in scored], dtype=bool)
    failures = []
    if rate < min_agreement:
        failures.append(f"agreement {rate:.1%} is below the threshold {min_agreement:.1%}")
    kappa = agreement.sym_kappa
    if not scored or not np.isfinite(kappa) or kappa < min_kappa:
        shown = "undefined" if not scored or not np.isfinite(kappa) else f"{kappa:.3f}"
        failures.append(f"kappa (A/B-symmetrised) {shown} is below the threshold {min_kappa:.3f}")
    return CheckResult(
        len(items),
        len(items) - len(scored),
        rate,
        low,
        high,
        agreement,
        float(flips.mean()) if flips.size else float("nan"),
        *wilson_interval(int(flips.sum()), int(flips.size)),
        min_agreement,
        min_kappa,
        tuple(failures),
    )
