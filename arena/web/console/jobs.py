"""The console's jobs page and sign-in (the token form, and the demo's one-time links): job status, queued runs
with live progress, generation backfill progress and failures by model (with a retry button), latency statistics.

Actions only queue runs (`arena.ops.job_runs.request_run`); the process holding the scheduler lease executes
them, so a web worker never runs a job itself. Sign-in and roles: `arena.web.operator_auth`.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Body, Form, HTTPException, Request, status
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from arena.generation.progress import backfill_status
from arena.leaderboard.latency import latency_stats
from arena.ops import job_runs as jobruns
from arena.ops.job_queue import QueueError, RunBusy, queue_run, timing_slugs
from arena.ops.operators import Identity
from arena.web.console.base import console_page, render
from arena.web.context import context_of
from arena.web.deps import ContextDep, RowId, SettingsDep
from arena.web.operator_auth import (
    OperatorDep,
    OperatorReadDep,
    check_form_post,
    enabled,
    page_gate,
    same_origin,
    sign_in,
    sign_in_once,
    sign_out,
)

router = APIRouter(tags=["admin"])
LINK_REFUSED = (
    "This sign-in link was already used or has expired: each link works once, within an hour. "
    "Restart the demo for a new link, or sign in with an operator token."
)


def queue_from_request(
    request: Request, job: str, actor: str, model: str | None = None, retry: bool = False
) -> int:
    """Queue a run; QueueError becomes its HTTP status (404 unknown job, 422 unknown model)."""
    ctx = context_of(request.app)
    engine, now = ctx.engine, ctx.clock()
    try:
        return queue_run(engine, now, job, actor, model=model, retry=retry)
    except QueueError as exc:
        raise HTTPException(exc.status, str(exc)) from None


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


@router.get("/admin", response_class=HTMLResponse, include_in_schema=False)
def admin_page(request: Request, ctx: ContextDep) -> HTMLResponse:
    """The jobs page of the console, or its sign-in form."""
    engine = ctx.engine

    def build(_who: Identity) -> dict[str, Any]:
        now = ctx.clock()
        stats = latency_stats(engine, now)
        return {
            "duration": _duration,
            "lease": jobruns.lease_status(engine, now),
            "jobs": jobruns.job_overview(engine),
            "runs": jobruns.recent_runs(engine, limit=20),
            "models": timing_slugs(engine),
            "latency": [stats[slug] for slug in sorted(stats)],
            "backfill": backfill_status(engine),
            "queued": request.query_params.get("queued"),
        }

    return console_page(request, "admin.html", "jobs", build)


@router.post("/admin/login", include_in_schema=False)
def admin_login(request: Request, settings: SettingsDep, token: Annotated[str, Form()] = "") -> Any:
    """Exchange an operator token for a console session."""
    if not enabled(request, settings):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "operator routes are disabled")
    if not same_origin(request):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "cross-site request refused")
    response = RedirectResponse("/admin", status_code=status.HTTP_303_SEE_OTHER)
    if sign_in(request, response, settings, token) is None:
        context = {"signin": True, "section": "jobs", "error": "That is not a valid operator token."}
        return render(request, "admin.html", context, status_code=401)
    return response


@router.get("/admin/sign-in", include_in_schema=False)
def admin_sign_in_link(request: Request, settings: SettingsDep, once: str = "") -> Any:
    """A one-time sign-in link (demo mode; printed at start-up): a console session and on to /admin. A used,
    expired or unknown link gets the sign-in form with the reason (401); no link, the sign-in form."""
    if not once:
        gate, who = page_gate(request, settings)
        if who is not None or gate is None:
            return RedirectResponse("/admin", status_code=status.HTTP_303_SEE_OTHER)
        code = status.HTTP_403_FORBIDDEN if gate.get("disabled") else status.HTTP_200_OK
        return render(request, "admin.html", {**gate, "section": "jobs"}, status_code=code)
    if not enabled(request, settings):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "operator routes are disabled")
    response = RedirectResponse("/admin", status_code=status.HTTP_303_SEE_OTHER)
    if sign_in_once(request, response, settings, once) is None:
        context = {"signin": True, "section": "jobs", "error": LINK_REFUSED}
        return render(request, "admin.html", context, status_code=status.HTTP_401_UNAUTHORIZED)
    return response


@router.post("/admin/logout", include_in_schema=False)
def admin_logout(request: Request, settings: SettingsDep, csrf: Annotated[str, Form()] = "") -> Any:
    """End the session server-side (its cookie stops working at once) and remove the cookie."""
    check_form_post(request, settings, csrf, role="viewer")
    response = RedirectResponse("/admin", status_code=status.HTTP_303_SEE_OTHER)
    sign_out(request, settings, response)
    return response


@router.post("/admin/jobs/{job}/run", include_in_schema=False)
def admin_run_job(
    request: Request,
    job: str,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    model: Annotated[str, Form()] = "",
    retry_failed: Annotated[str, Form()] = "",
) -> RedirectResponse:
    """Queue a run of `job` (a timing run for one model or all; a backfill retry for one model) and go back."""
    actor = check_form_post(request, settings, csrf)
    ctx = context_of(request.app)
    try:
        run_id = queue_run(ctx.engine, ctx.clock(), job, actor, model=model or None, retry=bool(retry_failed))
    except RunBusy as busy:  # the open run is shown instead of a second one
        done = quote(str(busy))
        return RedirectResponse(
            f"/admin?done={done}#run-{busy.run.id}", status_code=status.HTTP_303_SEE_OTHER
        )
    except QueueError as exc:
        raise HTTPException(exc.status, str(exc)) from None
    return RedirectResponse(f"/admin?queued={run_id}#run-{run_id}", status_code=status.HTTP_303_SEE_OTHER)


@router.get("/api/v1/admin/jobs")
def jobs_json(ctx: ContextDep, _operator: OperatorReadDep) -> dict[str, Any]:
    """Each job's last run, duration, outcome and next run; the scheduler lease; the latest runs; backfill."""
    engine = ctx.engine
    lease = jobruns.lease_status(engine, ctx.clock())
    return {
        "scheduler": None
        if lease is None
        else {"holder": lease.holder, "expires_at": lease.expires_at.isoformat(), "alive": lease.alive},
        "jobs": [j.to_dict() for j in jobruns.job_overview(engine)],
        "runs": [r.to_dict() for r in jobruns.recent_runs(engine, limit=20)],
        "backfill": [b.to_dict() for b in backfill_status(engine)],
    }


@router.post("/api/v1/admin/jobs/{job}/runs", status_code=status.HTTP_202_ACCEPTED)
def queue_job_json(
    request: Request,
    job: str,
    actor: OperatorDep,
    model: Annotated[str | None, Body(embed=True)] = None,
    retry_failed: Annotated[bool, Body(embed=True)] = False,
) -> JSONResponse:
    """Queue a run of `job` (bearer token, operator role); `model` for a timing run or a backfill retry."""
    run_id = queue_from_request(request, job, actor, model, retry_failed)
    return JSONResponse(
        {"id": run_id, "job": job, "outcome": "queued", "url": f"/api/v1/admin/runs/{run_id}"},
        status_code=status.HTTP_202_ACCEPTED,
    )


@router.get("/api/v1/admin/runs/{run_id}")
def run_json(ctx: ContextDep, run_id: RowId, _operator: OperatorReadDep) -> dict[str, Any]:
    """One run: outcome, message and progress (done / total, each model's result)."""
    run = jobruns.get_run(ctx.engine, run_id)
    if run is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such run")
    return run.to_dict()
