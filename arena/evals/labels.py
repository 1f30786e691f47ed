"""Human feedback beside the automatic scores: quick rubric labels and failure tags per output, and the judge's
re-scoring of the calibration anchors with the eval rubric grader. The anchors, their agreement rule and the
drift report are the judge's calibration (`arena.judge.anchors`, `arena.judge.drift`); these labels feed it."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.db.eval_tables import CalibrationAnchor, EvalLabel, EvalResult
from arena.evals.graders.llm_judge import rubric
from arena.evals.scores import Sample
from arena.evals.workflow_rubrics import WorkflowRubric, available
from arena.judge.anchors import anchor_items, reference_agreement
from arena.ops import audit


def add_label(
    engine: Engine,
    result_id: int,
    labeller: str,
    labels: dict[str, Any],
    tags: list[str],
    note: str = "",
    source: str = "human",
    *,
    audited: bool = False,
) -> int:
    """Store one labelling of a result (linked to its anchor when the result is one); returns the label id.
    `audited`: a person's labelling from the console, recorded in the audit log under `labeller` (the signed-in
    operator) in the same transaction."""
    with Session(engine) as s:
        if s.get(EvalResult, result_id) is None:
            raise LookupError(f"no eval result {result_id}")
        anchor = s.exec(select(CalibrationAnchor).where(CalibrationAnchor.result_id == result_id)).first()
        row = EvalLabel(
            result_id=result_id,
            anchor_id=anchor.id if anchor else None,
            labeller=labeller[:128],
            source=source,
            labels=labels,
            failure_tags=tags,
            note=note[:2000],
        )
        s.add(row)
        if audited:
            s.flush()
            audit.record(
                s,
                actor=labeller,
                action="evals.label",
                target=f"result {result_id}",
                after={"labels": labels, "failure_tags": tags, "note": note[:2000]},
                label_id=row.id,
                anchor_id=row.anchor_id,
            )
        s.commit()
        assert row.id is not None
        return row.id


def human_label_values(rubric: WorkflowRubric, form: Mapping[str, str]) -> dict[str, Any]:
    """The rubric's quick human labels read from form fields `h_<key>` (empty ones skipped): yes / no as a
    boolean, a scale as a whole number in its range, a choice as the chosen word. ValueError names a bad one."""
    values: dict[str, Any] = {}
    for label in rubric.human_labels:
        raw = str(form.get(f"h_{label.key}", "")).strip()
        if not raw:
            continue
        if label.kind == "yes_no":
            if raw not in ("yes", "no"):
                raise ValueError(f"{label.key}: choose yes or no")
            values[label.key] = raw == "yes"
        elif label.kind == "scale":
            if raw not in {str(n) for n in range(label.low, label.high + 1)}:
                raise ValueError(f"{label.key}: a whole number from {label.low} to {label.high}")
            values[label.key] = int(raw)
        else:
            if raw not in label.choices:
                raise ValueError(f"{label.key}: one of {', '.join(label.choices)}")
            values[label.key] = raw
    return values


async def judge_anchors(engine: Engine, judge: Any) -> list[dict[str, Any]]:
    """The judge re-scores every anchor of a workflow with a rubric; each result is stored as a label with
    source "judge" (answers come from the judge cache while rubric version and model are unchanged)."""
    out = []
    for item in anchor_items(engine, set(available())):
        anchor, case = item.anchor, item.case
        view = SimpleNamespace(
            task=case.get("task", "generation"),
            steps=tuple(case.get("steps", ())),
            prompt=case.get("prompt", ""),
            criteria=case.get("criteria", ""),
            expected=case.get("expected", ""),
        )
        grader = rubric(judge=judge, workflow=anchor.workflow)
        scores = await grader(Sample(view, item.output, item.references, None))
        labels = {}
        for score in scores:
            key = score.key.removeprefix("rubric:")
            if score.unscored:
                continue
            labels[key] = score.passed if score.kind == "gate" else score.value
        tags = sorted({t for sc in scores for t in sc.failure_tags if t != "judge_unscored"})
        add_label(engine, anchor.result_id or 0, f"judge:{judge.config.model}", labels, tags, source="judge")
        out.append(
            {
                "anchor": anchor.name,
                "labels": labels,
                "agreement": reference_agreement(anchor.reference_labels, labels),
            }
        )
    return out
