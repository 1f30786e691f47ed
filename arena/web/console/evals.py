"""/evals pages (operators only: eval outputs name their models): the runs, one run's report, one item in
detail with the human labelling form, and the calibration drift report. Images are served from the run folder
by result id, never by a path from the request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request, status
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from sqlmodel import Session, select

from arena.db.eval_tables import CalibrationAnchor, EvalLabel, EvalResult, EvalRun
from arena.evals.labels import add_label, human_label_values
from arena.evals.report import read_cases, report_rows
from arena.evals.store import load_run
from arena.evals.workflow_rubrics import available, load_rubric
from arena.judge.anchors import make_anchor
from arena.judge.drift import anchor_drift
from arena.web.console.base import console_context, render
from arena.web.context import context_of
from arena.web.deps import ContextDep, SettingsDep
from arena.web.operator_auth import check_form_post, csrf_token, page_gate

router = APIRouter(tags=["evals"], include_in_schema=False)


def _page(request: Request, name: str, context: dict[str, Any], code: int = 200) -> HTMLResponse:
    """An eval page inside the console layout (its nav) when an operator is signed in."""
    who = getattr(request.state, "console_who", None)
    extra = console_context(request, who, "evals") if who is not None else {}
    return render(request, name, {**extra, **context}, status_code=code)


def _gate(request: Request, settings: Any) -> tuple[HTMLResponse | None, str | None]:
    gate, who = page_gate(request, settings)
    if gate is not None or who is None:
        code = status.HTTP_403_FORBIDDEN if gate and gate.get("disabled") else status.HTTP_401_UNAUTHORIZED
        return _page(request, "admin.html", {**(gate or {}), "section": "evals"}, code), None
    request.state.console_who = who
    return None, who.name


def _run_or_404(request: Request, run_id: str) -> tuple[EvalRun, list]:
    loaded = load_run(context_of(request.app).engine, run_id)
    if loaded is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such eval run")
    return loaded


@router.get("/evals", response_class=HTMLResponse)
def runs_page(request: Request, ctx: ContextDep, settings: SettingsDep) -> HTMLResponse:
    """Every eval run, newest first, with its pass rates."""
    blocked, _ = _gate(request, settings)
    if blocked:
        return blocked
    with Session(ctx.engine) as s:
        runs = s.exec(select(EvalRun).order_by(EvalRun.started_at.desc()).limit(200)).all()  # type: ignore[attr-defined]
    return _page(request, "evals_list.html", {"runs": runs})


@router.get("/evals/calibration", response_class=HTMLResponse)
def calibration_page(request: Request, ctx: ContextDep, settings: SettingsDep) -> HTMLResponse:
    """Calibration anchors and the drift of labellers' and the judge's agreement with them over time."""
    blocked, _ = _gate(request, settings)
    if blocked:
        return blocked
    engine = ctx.engine
    with Session(engine) as s:
        anchors = s.exec(
            select(CalibrationAnchor).order_by(CalibrationAnchor.workflow, CalibrationAnchor.name)
        ).all()
    return _page(request, "eval_calibration.html", {"anchors": anchors, "drift": anchor_drift(engine)})


@router.get("/evals/{run_id}", response_class=HTMLResponse)
def run_page(request: Request, run_id: str, settings: SettingsDep) -> HTMLResponse:
    """One run's report: summary, then every item with inputs, output and scores; filters by verdict and tag."""
    blocked, _ = _gate(request, settings)
    if blocked:
        return blocked
    run, items = _run_or_404(request, run_id)
    rows = report_rows(items, read_cases(Path(run.out_dir)))
    for row in rows:
        rid = row["result"].id
        row["output_src"] = f"/evals/{run_id}/items/{rid}/output" if row["result"].artifact_path else None
        count = len(row["case"].get("inputs", []))
        row["input_srcs"] = [f"/evals/{run_id}/items/{rid}/input/{i}" for i in range(count)]
        row["detail_url"] = f"/evals/{run_id}/items/{rid}"
    return _page(request, "eval_run.html", {"run": run, "rows": rows, "standalone": False})


def _item(request: Request, run_id: str, result_id: int) -> tuple[EvalRun, EvalResult, list, dict[str, Any]]:
    run, items = _run_or_404(request, run_id)
    for result, scores in items:
        if result.id == result_id:
            case = read_cases(Path(run.out_dir)).get("cases", {}).get(result.case_id, {})
            return run, result, scores, case
    raise HTTPException(status.HTTP_404_NOT_FOUND, "no such item in this run")


def _file(run: EvalRun, relative: str) -> Response:
    root = Path(run.out_dir).resolve()
    path = (root / relative).resolve()
    if not relative or root not in path.parents or not path.is_file():
        raise HTTPException(status.HTTP_404_NOT_FOUND, "file not found")
    return FileResponse(path, headers={"Cache-Control": "private, max-age=3600"})


@router.get("/evals/{run_id}/items/{result_id}/output")
def output_file(request: Request, run_id: str, result_id: int, settings: SettingsDep) -> Response:
    """The item's generated image."""
    blocked, _ = _gate(request, settings)
    if blocked:
        return blocked
    run, result, _, _ = _item(request, run_id, result_id)
    return _file(run, result.artifact_path)


@router.get("/evals/{run_id}/items/{result_id}/input/{index}")
def input_file(request: Request, run_id: str, result_id: int, index: int, settings: SettingsDep) -> Response:
    """The item's n-th input (reference) image."""
    blocked, _ = _gate(request, settings)
    if blocked:
        return blocked
    run, _, _, case = _item(request, run_id, result_id)
    inputs = case.get("inputs", [])
    if not 0 <= index < len(inputs):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such input")
    return _file(run, inputs[index])


@router.get("/evals/{run_id}/items/{result_id}", response_class=HTMLResponse)
def item_page(
    request: Request, ctx: ContextDep, run_id: str, result_id: int, settings: SettingsDep
) -> HTMLResponse:
    """One item: prompt, inputs, output, every score, the human labels so far and the labelling form."""
    blocked, who = _gate(request, settings)
    if blocked:
        return blocked
    run, result, scores, case = _item(request, run_id, result_id)
    workflow = run.workflow if run.workflow in available() else None
    rubric = load_rubric(workflow) if workflow else None
    with Session(ctx.engine) as s:
        given = s.exec(
            select(EvalLabel).where(EvalLabel.result_id == result_id).order_by(EvalLabel.created_at)
        ).all()
        anchor = s.exec(select(CalibrationAnchor).where(CalibrationAnchor.result_id == result_id)).first()
    context = {
        "run": run,
        "result": result,
        "scores": scores,
        "case": case,
        "rubric": rubric,
        "labels": given,
        "anchor": anchor,
        "operator": who,
        "csrf": csrf_token(request, settings),
        "saved": request.query_params.get("saved"),
        "inputs": [
            f"/evals/{run_id}/items/{result_id}/input/{i}" for i in range(len(case.get("inputs", [])))
        ],
    }
    return _page(request, "eval_item.html", context)


@router.post("/evals/{run_id}/items/{result_id}/labels")
async def post_labels(
    request: Request,
    ctx: ContextDep,
    run_id: str,
    result_id: int,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    note: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    """Store a person's quick labels (each rubric metric 0-5 or pass / fail, the rubric's human labels such as UI
    clarity 1-5, `usable` yes / no) and tags, under
    the signed-in operator (never a name typed into the form), with an audit entry."""
    labeller = check_form_post(request, settings, csrf)
    run, _, _, _ = _item(request, run_id, result_id)
    form = await request.form()
    rubric = load_rubric(run.workflow) if run.workflow in available() else None
    values: dict[str, Any] = {}
    for metric in rubric.metrics if rubric else ():
        raw = str(form.get(f"m_{metric.key}", "")).strip()
        if not raw:
            continue
        if metric.kind == "gate":
            if raw not in ("pass", "fail"):
                raise HTTPException(status.HTTP_400_BAD_REQUEST, f"{metric.key}: choose pass or fail")
            values[metric.key] = raw == "pass"
        else:
            if raw not in {str(n) for n in range(6)}:
                raise HTTPException(status.HTTP_400_BAD_REQUEST, f"{metric.key}: a score from 0 to 5")
            values[metric.key] = int(raw)
    if rubric is not None:
        try:
            values.update(human_label_values(rubric, {k: str(v) for k, v in form.items()}))
        except ValueError as exc:
            raise HTTPException(status.HTTP_400_BAD_REQUEST, str(exc)) from exc
    usable = str(form.get("usable", ""))
    if usable in ("yes", "no"):
        values["usable"] = usable == "yes"
    tags = [str(t) for t in form.getlist("tags")]
    allowed = set(rubric.failure_tags) if rubric else set()
    if any(t not in allowed for t in tags):
        raise HTTPException(status.HTTP_400_BAD_REQUEST, "unknown failure tag")
    if not values and not tags:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, "nothing to save: give at least one label or tag")
    add_label(ctx.engine, result_id, labeller, values, tags, note, audited=True)
    return RedirectResponse(
        f"/evals/{run_id}/items/{result_id}?saved=1", status_code=status.HTTP_303_SEE_OTHER
    )


@router.post("/evals/{run_id}/items/{result_id}/anchor")
def post_anchor(
    request: Request,
    ctx: ContextDep,
    run_id: str,
    result_id: int,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    grade: Annotated[str, Form()] = "",
    label_id: Annotated[int, Form()] = 0,
) -> Response:
    """Make this item a calibration anchor (good / medium / bad) whose reference labels are one stored labelling."""
    actor = check_form_post(request, settings, csrf)
    run, _, _, _ = _item(request, run_id, result_id)
    with Session(ctx.engine) as s:
        chosen = s.get(EvalLabel, label_id)
    if chosen is None or chosen.result_id != result_id:
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST, "choose one of this item's labellings as the reference"
        )
    try:
        name = f"{run_id}/{result_id}"
        make_anchor(ctx.engine, result_id, name, grade, chosen.labels, run.workflow, actor=actor)
    except ValueError as exc:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(exc)) from exc
    except Exception as exc:  # the unique anchor name: already an anchor
        raise HTTPException(status.HTTP_409_CONFLICT, "this item is already an anchor") from exc
    return RedirectResponse(
        f"/evals/{run_id}/items/{result_id}?saved=anchor", status_code=status.HTTP_303_SEE_OTHER
    )


def as_json(value: Any) -> str:
    """Compact JSON for templates."""
    return json.dumps(value, sort_keys=True, default=str)
