"""Calibration drift, for both kinds of calibration item: the judge's agreement with the rendered set's reference
grades for each rubric text it scored (in the order the texts were first scored, flagged when a rubric change
lowered it), and labellers' and the judge's agreement with the anchors' reference labels per month."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.db.eval_tables import CalibrationAnchor, EvalLabel
from arena.db.tables import JudgeCalibrationScore
from arena.judge.anchors import reference_agreement
from ratings.proportions import wilson_interval

__all__ = ["DriftPoint", "anchor_drift", "calibration_drift"]


@dataclass(frozen=True)
class DriftPoint:
    """Agreement with the reference labels of one scenario under one rubric text and judge model."""

    scenario: str
    judge_model: str
    rubric_version: str
    rubric_digest: str
    first_scored: datetime
    items: int
    scored: int
    agree: int
    rate: float | None
    low: float | None
    high: float | None
    mean_overall_change: float | None  # vs the previous rubric text, per item, on the 0-10 scale
    flagged: bool
    note: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe."""
        out = dict(self.__dict__)
        out["first_scored"] = self.first_scored.isoformat()
        return out


def calibration_drift(engine: Engine) -> list[DriftPoint]:
    """One point per (scenario, judge model, rubric digest), oldest first; latest scores of each digest."""
    with engine.connect() as conn:
        rows = conn.execute(select(JudgeCalibrationScore).order_by(JudgeCalibrationScore.id)).all()
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in rows:
        key = (r.scenario, r.judge_model, r.rubric_digest)
        g = groups.setdefault(key, {"version": r.rubric_version, "first": r.created_at, "items": {}})
        g["items"][r.item_id] = r  # a re-score of the same text replaces the earlier one
    points: list[DriftPoint] = []
    previous: dict[tuple[str, str], tuple[float | None, dict[str, Any]]] = {}
    for key, g in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[1]["first"])):
        scenario, model, digest = key
        items = g["items"]
        scored = [r for r in items.values() if r.grade is not None]
        agree = sum(r.grade == r.reference_grade for r in scored)
        rate = agree / len(scored) if scored else None
        low, high = wilson_interval(agree, len(scored)) if scored else (None, None)
        prior = previous.get((scenario, model))
        change, flagged, note = None, False, "first rubric text scored"
        if prior is not None:
            prior_rate, prior_items = prior
            diffs = [
                abs(r.overall - prior_items[i].overall)
                for i, r in items.items()
                if r.overall is not None and i in prior_items and prior_items[i].overall is not None
            ]
            change = sum(diffs) / len(diffs) if diffs else None
            if rate is not None and prior_rate is not None and rate < prior_rate:
                flagged = True
                note = f"agreement fell from {prior_rate:.0%} to {rate:.0%} with this rubric change"
            else:
                note = "rubric changed; agreement did not fall"
        if len(scored) < len(items):
            note += f"; {len(items) - len(scored)} item(s) left unscored"
        points.append(
            DriftPoint(
                scenario,
                model,
                g["version"],
                digest,
                g["first"],
                len(items),
                len(scored),
                agree,
                rate,
                low,
                high,
                change,
                flagged,
                note,
            )
        )
        previous[(scenario, model)] = (rate, items)
    return points


def anchor_drift(engine: Engine) -> dict[str, Any]:
    """Per anchor and per (source, month): mean agreement with the reference labels and the count."""
    with Session(engine) as s:
        anchors = s.scalars(select(CalibrationAnchor)).all()
        labels = s.scalars(select(EvalLabel).where(EvalLabel.anchor_id.is_not(None))).all()  # type: ignore[union-attr]
    by_anchor = {a.id: a for a in anchors}
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    rows = []
    for label in labels:
        anchor = by_anchor.get(label.anchor_id)
        if anchor is None:
            continue
        score = reference_agreement(anchor.reference_labels, label.labels)
        if score is None:
            continue
        month = label.created_at.strftime("%Y-%m")
        cells[(label.source, month)].append(score)
        rows.append(
            {
                "anchor": anchor.name,
                "grade": anchor.grade,
                "labeller": label.labeller,
                "source": label.source,
                "month": month,
                "agreement": score,
            }
        )
    series = [
        {"source": src, "month": month, "mean_agreement": sum(v) / len(v), "n": len(v)}
        for (src, month), v in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    ]
    return {"anchors": len(anchors), "series": series, "labels": rows}
