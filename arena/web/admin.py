"""The operator admin page and its actions: job status, queued runs with live progress, latency statistics.

Actions only queue runs (`arena.jobruns.request_run`); the process holding the scheduler lease executes
them, so a web worker never runs a job itself. The page signs in with the operator token (see
`arena.web.operator_auth`); the JSON routes under /api/v1/admin also take the bearer token.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, HTTPException, Request, status
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from sqlalchemy import Engine, select

from arena import jobruns
from arena.db.tables import Model
from arena.latency import latency_stats
from arena.web.deps import OperatorDep, RowId, SettingsDep
from arena.web.operator_auth import (
    OperatorReadDep,
    check_form_post,
    csrf_token,
    page_gate,
    same_origin,
    sign_in,
    sign_out,
)

router = APIRouter(tags=["admin"])


def timing_slugs(engine: Engine) -> list[str]:
    """Active text-to-image models: what a timing run may be asked to time."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(Model.slug)
                .where(Model.active == True, Model.modality == "text_to_image")  # noqa: E712
                .order_by(Model.slug)
            ).scalars()
        )


def _queue(request: Request, job: str, model: str | None, actor: str) -> int:
    """Validate and queue one run; HTTPException 404 / 422 on an unknown job or model."""
    if job not in jobruns.JOBS:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown job '{job}'")
    engine = request.app.state.engine
    params: dict[str, Any] = {}
    if job == "timing_run" and model:
        if model not in timing_slugs(engine):
            raise HTTPException(422, f"'{model}' is not an active text-to-image model")
        params["model"] = model
    return jobruns.request_run(engine, job, request.app.state.clock(), actor=actor, params=params)


def _when(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _page(request: Request, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    return request.app.state.templates.TemplateResponse(
        request,
        "admin.html",
        {"when": _when, "duration": _duration, **context},
        status_code=status_code,
        headers={"Cache-Control": "no-store"},
    )


@router.get("/admin", response_class=HTMLResponse, include_in_schema=False)
def admin_page(request: Request, settings: SettingsDep) -> HTMLResponse:
    """The admin page, or its sign-in form."""
    gate, nonce = page_gate(request, settings)
    if gate is not None or nonce is None:
        return _page(request, gate or {}, status.HTTP_403_FORBIDDEN if gate and gate.get("disabled") else 200)
    engine = request.app.state.engine
    now = request.app.state.clock()
    stats = latency_stats(engine, now)
    return _page(
        request,
        {
            "csrf": csrf_token(request, nonce),
            "lease": jobruns.lease_status(engine, now),
            "jobs": jobruns.job_overview(engine),
            "runs": jobruns.recent_runs(engine, limit=20),
            "models": timing_slugs(engine),
            "latency": [stats[slug] for slug in sorted(stats)],
            "queued": request.query_params.get("queued"),
        },
    )


@router.post("/admin/login", include_in_schema=False)
def admin_login(request: Request, settings: SettingsDep, token: Annotated[str, Form()] = "") -> Any:
    """Exchange the operator token for the sign-in cookie."""
    if not settings.operator_token:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, "operator routes are disabled: set ARENA_OPERATOR_TOKEN"
        )
    if not same_origin(request):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "cross-site request refused")
    response = RedirectResponse("/admin", status_code=status.HTTP_303_SEE_OTHER)
    if not sign_in(request, response, settings, token):
        return _page(request, {"signin": True, "error": "That is not the operator token."}, 401)
    return response


@router.post("/admin/logout", include_in_schema=False)
def admin_logout(request: Request, settings: SettingsDep, csrf: Annotated[str, Form()] = "") -> Any:
    """Remove the sign-in cookie."""
    check_form_post(request, settings, csrf)
    response = RedirectResponse("/admin", status_code=status.HTTP_303_SEE_OTHER)
    sign_out(response)
    return response


@router.post("/admin/jobs/{job}/run", include_in_schema=False)
def admin_run_job(
    request: Request,
    job: str,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    model: Annotated[str, Form()] = "",
) -> RedirectResponse:
    """Queue a run of `job` (a timing run for one model or all) and go back to the page to watch it."""
    actor = check_form_post(request, settings, csrf)
    run_id = _queue(request, job, model or None, actor)
    return RedirectResponse(f"/admin?queued={run_id}#run-{run_id}", status_code=status.HTTP_303_SEE_OTHER)


@router.get("/api/v1/admin/jobs")
def jobs_json(request: Request, _operator: OperatorReadDep) -> dict[str, Any]:
    """Each job's last run, duration, outcome and next run; the scheduler lease; the latest runs."""
    engine = request.app.state.engine
    lease = jobruns.lease_status(engine, request.app.state.clock())
    return {
        "scheduler": None
        if lease is None
        else {"holder": lease.holder, "expires_at": lease.expires_at.isoformat(), "alive": lease.alive},
        "jobs": [j.to_dict() for j in jobruns.job_overview(engine)],
        "runs": [r.to_dict() for r in jobruns.recent_runs(engine, limit=20)],
    }


@router.post("/api/v1/admin/jobs/{job}/runs", status_code=status.HTTP_202_ACCEPTED)
def queue_job_json(
    request: Request,
    job: str,
    actor: OperatorDep,
    model: Annotated[str | None, Body(embed=True)] = None,
) -> JSONResponse:
    """Queue a run of `job` (bearer token only); for `timing_run`, optionally one model's slug."""
    run_id = _queue(request, job, model, actor)
    return JSONResponse(
        {"id": run_id, "job": job, "outcome": "queued", "url": f"/api/v1/admin/runs/{run_id}"},
        status_code=status.HTTP_202_ACCEPTED,
    )


@router.get("/api/v1/admin/runs/{run_id}")
def run_json(request: Request, run_id: RowId, _operator: OperatorReadDep) -> dict[str, Any]:
    """One run: outcome, message and progress (done / total, each model's result)."""
    run = jobruns.get_run(request.app.state.engine, run_id)
    if run is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such run")
    return run.to_dict()
