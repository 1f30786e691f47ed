"""The console's votes section: kept / filtered votes per filter over time (a chart fed by the JSON route),
flagged sessions and addresses with their evidence, re-running the filters and queueing a snapshot."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Query, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlmodel import Session

from arena.ops import audit
from arena.ops.operators import Identity
from arena.voting.clearing import ClearError, clear_group
from arena.voting.filters.batch import run_batch_filters
from arena.voting.review import daily_counts, flagged_groups
from arena.web.console.base import console_page
from arena.web.console.jobs import queue_from_request
from arena.web.context import context_of
from arena.web.deps import ContextDep, SettingsDep
from arena.web.operator_auth import OperatorDep, OperatorReadDep, app_secret, check_form_post

router = APIRouter(tags=["votes (operators)"])


def refilter(request: Request, actor: str) -> dict[str, int]:
    """Re-run the batch anomaly filters over every raw vote and audit it; filtered counts per filter."""
    ctx = context_of(request.app)
    engine = ctx.engine
    counts = dict(run_batch_filters(engine, now=ctx.clock()))
    with Session(engine) as session:
        audit.record(session, actor=actor, action="votes.refilter", after=counts)
        session.commit()
    ctx.pool.invalidate()
    return counts


@router.get("/admin/votes", response_class=HTMLResponse, include_in_schema=False)
def votes_page(request: Request, ctx: ContextDep) -> HTMLResponse:
    """Counts per filter over time, flagged groups with evidence, and the two actions."""
    engine = ctx.engine

    def build(_who: Identity) -> dict[str, Any]:
        return {
            "series": daily_counts(engine, now=ctx.clock()),
            "flagged": flagged_groups(engine, app_secret(request)),
        }

    return console_page(request, "admin_votes.html", "votes", build)


@router.post("/admin/votes/refilter", include_in_schema=False)
def refilter_form(request: Request, settings: SettingsDep, csrf: Annotated[str, Form()] = "") -> Any:
    """Re-run the filters now (votes are never changed, only their batch verdicts)."""
    actor = check_form_post(request, settings, csrf)
    counts = refilter(request, actor)
    done = quote(
        "Filters re-run: " + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "nothing flagged")
    )
    return RedirectResponse(f"/admin/votes?done={done}", status_code=status.HTTP_303_SEE_OTHER)


@router.post("/admin/votes/clear", include_in_schema=False)
def clear_form(
    request: Request,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    who: Annotated[str, Form()] = "",
    reason: Annotated[str, Form()] = "",
) -> Any:
    """Clear a flagged group as a false positive (with a reason): its votes count again, nothing is deleted."""
    actor = check_form_post(request, settings, csrf)
    ctx = context_of(request.app)
    try:
        n = clear_group(ctx.engine, app_secret(request), who, reason, actor=actor, now=ctx.clock())
    except ClearError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from None
    ctx.pool.invalidate()
    done = quote(f"{who}: {n} vote(s) cleared by you; they count from the next snapshot.")
    return RedirectResponse(f"/admin/votes?done={done}", status_code=status.HTTP_303_SEE_OTHER)


@router.post("/admin/votes/snapshot", include_in_schema=False)
def snapshot_form(request: Request, settings: SettingsDep, csrf: Annotated[str, Form()] = "") -> Any:
    """Queue a rating snapshot (the scheduler runs it) and follow it on the jobs page."""
    actor = check_form_post(request, settings, csrf)
    run_id = queue_from_request(request, "rating_snapshot", actor)
    return RedirectResponse(f"/admin?queued={run_id}#run-{run_id}", status_code=status.HTTP_303_SEE_OTHER)


@router.get("/api/v1/admin/votes/summary")
def votes_summary(
    ctx: ContextDep, _who: OperatorReadDep, days: Annotated[int, Query(ge=1, le=366)] = 30
) -> dict[str, Any]:
    """Per day: votes, kept votes and votes filtered by each filter."""
    return daily_counts(ctx.engine, now=ctx.clock(), days=days)


@router.get("/api/v1/admin/votes/flagged")
def votes_flagged(
    request: Request, ctx: ContextDep, _who: OperatorReadDep, limit: Annotated[int, Query(ge=1, le=500)] = 50
) -> list[dict[str, Any]]:
    """Flagged voter sessions and addresses (pseudonyms) with the evidence and example votes."""
    return flagged_groups(ctx.engine, app_secret(request), limit=limit)


@router.post("/api/v1/admin/votes/refilter")
def refilter_json(request: Request, actor: OperatorDep) -> dict[str, Any]:
    """Re-run the batch anomaly filters; filtered votes per filter."""
    return {"filtered": refilter(request, actor)}
