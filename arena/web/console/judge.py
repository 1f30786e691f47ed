"""Operator routes of the judge calibration: the report page /admin/judge, its JSON, and the served images of
the matchups it lists (for a person to inspect disagreements). All take the operator sign-in cookie or the
bearer token; model names are shown here because these matchups were already voted on."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, status
from fastapi.responses import FileResponse, HTMLResponse
from sqlalchemy import select

from arena.db.tables import JudgeRun, Output
from arena.judge.report import ReportError, build_report
from arena.web.console.base import console_page
from arena.web.context import context_of
from arena.web.deps import ContextDep
from arena.web.operator_auth import OperatorReadDep

router = APIRouter(tags=["judge"])


def _runs(request: Request) -> list[Any]:
    with context_of(request.app).engine.connect() as conn:
        return conn.execute(
            select(
                JudgeRun.id,
                JudgeRun.kind,
                JudgeRun.created_at,
                JudgeRun.judge_model,
                JudgeRun.status,
                JudgeRun.message,
            )
            .order_by(JudgeRun.id.desc())
            .limit(20)
        ).all()


def _report(request: Request, run: int | None) -> dict[str, Any] | None:
    ctx = context_of(request.app)
    settings = ctx.settings
    try:
        return build_report(ctx.engine, run, anchor=settings.overall_anchor)
    except ReportError as exc:
        if run is not None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
        return None


@router.get("/admin/judge", response_class=HTMLResponse, include_in_schema=False)
def judge_page(request: Request, run: int | None = None) -> HTMLResponse:
    """The latest judge run's calibration report (or `?run=ID`) inside the console layout, or the sign-in form."""
    return console_page(
        request,
        "admin_judge.html",
        "judge",
        lambda _who: {"report": _report(request, run), "runs": _runs(request)},
    )


@router.get("/api/v1/admin/judge/report")
def judge_report_json(
    request: Request, _operator: OperatorReadDep, run: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None
) -> dict[str, Any]:
    """The calibration report of a judge run (default: the latest) as JSON."""
    report = _report(request, run)
    if report is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no judge run yet: run `arena judge run` first")
    return report


@router.get("/admin/judge/image/{output_id}", include_in_schema=False)
def judge_image(ctx: ContextDep, output_id: int, _operator: OperatorReadDep) -> FileResponse:
    """The served (normalized) image of an output, for operators inspecting a disagreement."""
    with ctx.engine.connect() as conn:
        media_id = conn.execute(select(Output.media_id).where(Output.id == output_id)).scalar()
    path = None if media_id is None else ctx.media.served_path(media_id)
    if path is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such image")
    return FileResponse(path, media_type="image/jpeg", headers={"Cache-Control": "private, no-store"})
