"""Calibration anchors: eval results an operator marks good / medium / bad with reference labels, the second
kind of calibration item beside the rendered set (`arena.judge.calibset`). Labellers and the judge re-score
them (`arena.evals.labels`); agreement with the reference is tracked over time (`arena.judge.drift`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.db.eval_tables import CalibrationAnchor, EvalResult, EvalRun
from arena.ops import audit

__all__ = ["AGREE_WITHIN", "GRADES", "AnchorItem", "anchor_items", "make_anchor", "reference_agreement"]

GRADES = ("good", "medium", "bad")
AGREE_WITHIN = 1.0  # a 0-5 label agrees with the reference when within one point; pass / fail must match


@dataclass(frozen=True)
class AnchorItem:
    """An anchor with what a re-scoring needs: its case as the run wrote it, the output and its inputs."""

    anchor: CalibrationAnchor
    case: dict[str, Any]
    output: bytes | None
    references: tuple[bytes, ...]


def make_anchor(
    engine: Engine,
    result_id: int,
    name: str,
    grade: str,
    reference: dict[str, Any],
    workflow: str,
    *,
    actor: str | None = None,
) -> int:
    """Mark a result as a calibration anchor with its reference labels (audited under `actor` when given)."""
    if grade not in GRADES:
        raise ValueError(f"grade must be one of {', '.join(GRADES)}")
    with Session(engine) as s:
        if s.get(EvalResult, result_id) is None:
            raise LookupError(f"no eval result {result_id}")
        row = CalibrationAnchor(
            workflow=workflow, name=name[:128], grade=grade, result_id=result_id, reference_labels=reference
        )
        s.add(row)
        if actor is not None:
            audit.record(
                s,
                actor=actor,
                action="evals.anchor",
                target=f"result {result_id}",
                after={"name": row.name, "grade": grade, "reference_labels": reference},
            )
        s.commit()
        assert row.id is not None
        return row.id


def reference_agreement(reference: dict[str, Any], labels: dict[str, Any]) -> float | None:
    """Share of the reference's metrics that `labels` matches (0-5 within one point; booleans and words such as
    an artifacts label exactly)."""
    hits = total = 0
    for key, want in reference.items():
        if key not in labels or labels[key] is None:
            continue
        total += 1
        got = labels[key]
        if isinstance(want, bool) or isinstance(got, bool):
            hits += bool(want) == bool(got)
        elif isinstance(want, str) or isinstance(got, str):
            hits += want == got
        else:
            hits += abs(float(want) - float(got)) <= AGREE_WITHIN
    return hits / total if total else None


def anchor_items(engine: Engine, workflows: set[str]) -> list[AnchorItem]:
    """Every anchor of `workflows` whose result still exists, read back from its run folder."""
    with Session(engine) as s:
        anchors = s.exec(select(CalibrationAnchor)).all()
        pairs = [(a, s.get(EvalResult, a.result_id)) for a in anchors]
        runs = {r.run_id: s.get(EvalRun, r.run_id) for _, r in pairs if r is not None}
    out = []
    for anchor, result in pairs:
        if result is None or anchor.workflow not in workflows:
            continue
        run = runs[result.run_id]
        folder = Path(run.out_dir) if run else Path()
        cases_file = folder / "cases.json"
        case = (
            json.loads(cases_file.read_text())["cases"].get(result.case_id, {})
            if cases_file.is_file()
            else {}
        )
        artifact = folder / result.artifact_path if result.artifact_path else None
        output = artifact.read_bytes() if artifact and artifact.is_file() else None
        refs = tuple(
            (folder / rel).read_bytes() for rel in case.get("inputs", []) if (folder / rel).is_file()
        )
        out.append(AnchorItem(anchor, case, output, refs))
    return out
