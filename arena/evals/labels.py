"""Human feedback beside the automatic scores: quick rubric labels and failure tags per output, calibration
anchors (good / medium / bad items with reference labels) that labellers and the judge re-score, and the drift
report: agreement of each re-scoring with the anchor's reference labels over time."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from arena import audit
from arena.db.eval_tables import CalibrationAnchor, EvalLabel, EvalResult

GRADES = ("good", "medium", "bad")
AGREE_WITHIN = 1.0  # a 0-5 label agrees with the reference when within one point; pass / fail must match


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


def agreement(reference: dict[str, Any], labels: dict[str, Any]) -> float | None:
    """Share of the reference's metrics that `labels` matches (0-5 within one point; booleans exactly)."""
    hits = total = 0
    for key, want in reference.items():
        if key not in labels or labels[key] is None:
            continue
        total += 1
        got = labels[key]
        if isinstance(want, bool) or isinstance(got, bool):
            hits += bool(want) == bool(got)
        else:
            hits += abs(float(want) - float(got)) <= AGREE_WITHIN
    return hits / total if total else None


def drift_report(engine: Engine) -> dict[str, Any]:
    """Per anchor and per (source, month): mean agreement with the reference labels and the count."""
    with Session(engine) as s:
        anchors = s.exec(select(CalibrationAnchor)).all()
        labels = s.exec(select(EvalLabel).where(EvalLabel.anchor_id.is_not(None))).all()  # type: ignore[union-attr]
    by_anchor = {a.id: a for a in anchors}
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    rows = []
    for label in labels:
        anchor = by_anchor.get(label.anchor_id)
        if anchor is None:
            continue
        score = agreement(anchor.reference_labels, label.labels)
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


async def judge_anchors(engine: Engine, judge: Any) -> list[dict[str, Any]]:
    """The judge re-scores every anchor of a workflow with a rubric; each result is stored as a label with
    source "judge" (answers come from the judge cache while rubric version and model are unchanged)."""
    import json
    from pathlib import Path
    from types import SimpleNamespace

    from arena.evals.graders.rubric import rubric

    from arena.db.eval_tables import EvalRun
    from arena.evals.scores import Sample
    from arena.evals.workflow_rubrics import available

    with Session(engine) as s:
        anchors = s.exec(select(CalibrationAnchor)).all()
        pairs = [(a, s.get(EvalResult, a.result_id)) for a in anchors]
        runs = {r.run_id: s.get(EvalRun, r.run_id) for _, r in pairs if r is not None}
    out = []
    for anchor, result in pairs:
        if result is None or anchor.workflow not in available():
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
        view = SimpleNamespace(
            task=case.get("task", "generation"),
            steps=tuple(case.get("steps", ())),
            prompt=case.get("prompt", ""),
            criteria=case.get("criteria", ""),
            expected=case.get("expected", ""),
        )
        scores = await rubric(judge=judge, workflow=anchor.workflow)(Sample(view, output, refs, None))
        labels = {}
        for score in scores:
            key = score.key.removeprefix("rubric:")
            if score.unscored:
                continue
            labels[key] = score.passed if score.kind == "gate" else score.value
        tags = sorted({t for sc in scores for t in sc.failure_tags if t != "judge_unscored"})
        add_label(engine, anchor.result_id or 0, f"judge:{judge.config.model}", labels, tags, source="judge")
        out.append(
            {"anchor": anchor.name, "labels": labels, "agreement": agreement(anchor.reference_labels, labels)}
        )
    return out
