"""Operator routes for the monthly retirement reports: the JSON API and the approval page /admin/retirement.

Reads take the bearer token or the admin sign-in cookie; the JSON apply / reject routes take the bearer token,
the page's buttons the cookie plus its CSRF token (`arena.web.operator_auth`). Applying drops the matchmaker's
pool cache, so retired prompts stop being served at once.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from arena.ops import job_runs as jobruns
from arena.ops.operators import Identity
from arena.prompts.retirement import (
    ReportError,
    apply_report,
    get_report,
    list_reports,
    reject_report,
    report_header,
    under_minimum_warning,
)
from arena.web.console.base import console_page
from arena.web.deps import ContextDep, RowId, SettingsDep
from arena.web.operator_auth import OperatorDep, OperatorReadDep, check_form_post

router = APIRouter(tags=["retirement"])


def _actor(base: str, name: str | None) -> str:
    """Who approved: the operator, with the note they gave when there is one."""
    name = (name or "").strip()[:80]
    return f"{base} ({name})" if name else base


def _error(exc: ReportError) -> HTTPException:
    code = (
        status.HTTP_404_NOT_FOUND if str(exc).startswith("no retirement report") else status.HTTP_409_CONFLICT
    )
    return HTTPException(code, str(exc))


@router.get("/api/v1/retirement/reports")
def reports_json(ctx: ContextDep, _operator: OperatorReadDep) -> list[dict[str, Any]]:
    """The latest retirement reports, newest first: id, status, who approved, summary counts."""
    return list_reports(ctx.engine)


@router.get("/api/v1/retirement/reports/{report_id}")
def report_json(ctx: ContextDep, report_id: RowId, _operator: OperatorReadDep) -> dict[str, Any]:
    """One report in full: flagged prompts with their statistics and reasons, coverage after retirement."""
    try:
        row = get_report(ctx.engine, report_id)
    except ReportError as exc:
        raise _error(exc) from None
    return report_header(row) | {"report": row.report}


@router.post("/api/v1/retirement/reports/{report_id}/apply")
def apply_json(
    ctx: ContextDep,
    report_id: RowId,
    operator: OperatorDep,
    name: Annotated[str | None, Body(embed=True, description="Who approves (audit log).")] = None,
    confirm_under_minimum: Annotated[
        bool,
        Body(embed=True, description="Apply even though it leaves taxonomy cells under the prompt minimum."),
    ] = False,
) -> dict[str, Any]:
    """Retire the report's flagged prompts now (a draft only; a second apply is refused with 409). A draft that
    leaves cells under the minimum is refused with 409 naming them unless `confirm_under_minimum` is true."""
    try:
        warning = None if confirm_under_minimum else under_minimum_warning(get_report(ctx.engine, report_id))
        if warning:
            raise HTTPException(
                status.HTTP_409_CONFLICT, f"{warning}; send confirm_under_minimum=true to apply anyway"
            )
        retired = apply_report(
            ctx.engine,
            report_id,
            _actor(operator, name),
            now=ctx.clock(),
            pool=ctx.pool,
        )
    except ReportError as exc:
        raise _error(exc) from None
    return {"id": report_id, "status": "applied", "retired": retired}


@router.post("/api/v1/retirement/reports/{report_id}/reject")
def reject_json(
    ctx: ContextDep,
    report_id: RowId,
    operator: OperatorDep,
    name: Annotated[str | None, Body(embed=True, description="Who rejects (audit log).")] = None,
    reason: Annotated[str, Body(embed=True, description="Why (audit log).")] = "",
) -> dict[str, Any]:
    """Reject a draft report: no prompt changes."""
    try:
        reject_report(
            ctx.engine,
            report_id,
            _actor(operator, name),
            reason=reason[:500],
            now=ctx.clock(),
        )
    except ReportError as exc:
        raise _error(exc) from None
    return {"id": report_id, "status": "rejected"}


@router.get("/admin/retirement", response_class=HTMLResponse, include_in_schema=False)
def retirement_page(request: Request, ctx: ContextDep) -> HTMLResponse:
    """The latest retirement report with approve / reject buttons (operators), or the sign-in form."""
    engine = ctx.engine

    def build(_who: Identity) -> dict[str, Any]:
        reports = list_reports(engine, limit=12)
        wanted = request.query_params.get("id")
        chosen = int(wanted) if wanted and wanted.isdigit() else (reports[0]["id"] if reports else None)
        try:
            row = get_report(engine, chosen) if chosen is not None else None
        except ReportError:
            row = None
        return {
            "reports": reports,
            "header": report_header(row) if row else None,
            "report": row.report if row else None,
            "open_run": jobruns.open_run(engine, "prompt_retirement", {}),
        }

    return console_page(request, "admin_retirement.html", "retirement", build)


@router.post("/admin/retirement/{report_id}/{decision}", include_in_schema=False)
def retirement_decide(
    request: Request,
    ctx: ContextDep,
    report_id: RowId,
    decision: str,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    reason: Annotated[str, Form()] = "",
    confirm_under: Annotated[str, Form()] = "",
) -> Response:
    """Apply or reject a draft from the page, then show the page again with the outcome. Approving a report
    that leaves cells under the minimum first shows those cells and asks again (`confirm_under=yes`)."""
    actor = _actor(check_form_post(request, settings, csrf), name)
    if decision not in ("apply", "reject"):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "unknown decision")
    engine, now = ctx.engine, ctx.clock()
    if decision == "apply" and confirm_under != "yes":
        try:
            row = get_report(engine, report_id)
        except ReportError as exc:
            raise _error(exc) from None
        if row.status == "draft" and row.report.get("under_minimum"):
            header, report = report_header(row), row.report
            return console_page(
                request,
                "admin_retirement_confirm.html",
                "retirement",
                lambda _who: {"header": header, "report": report, "name": name},
            )
    try:
        if decision == "apply":
            apply_report(engine, report_id, actor, now=now, pool=ctx.pool)
        else:
            reject_report(engine, report_id, actor, reason=reason[:500], now=now)
    except ReportError as exc:
        raise _error(exc) from None
    return RedirectResponse(f"/admin/retirement?id={report_id}", status_code=status.HTTP_303_SEE_OTHER)
