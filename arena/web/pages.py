"""HTML pages rendered with Jinja2."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlmodel import func, select

from arena.db.tables import Model, Output, Prompt
from arena.media.variants import SIZE_CLASSES
from arena.prompts.pool import coverage
from arena.web.context import context_of
from arena.web.deps import ContextDep, SessionDep, TaxonomyDep

router = APIRouter(tags=["pages"])


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def arena_page(
    request: Request, ctx: ContextDep, session: SessionDep, taxonomy: TaxonomyDep, mode: str = "pair"
) -> HTMLResponse:
    """The arena page. Until models have outputs it shows the prompt pool the matchups will draw from. With
    ARENA_KWISE, `mode=rank` is the "Rank four" page (K-wise battles) instead."""
    if mode == "rank" and ctx.settings.kwise:
        return ctx.templates.TemplateResponse(
            request,
            "rank.html",
            {"kwise": True, "mode": "rank", "image_sizes": " ".join(map(str, SIZE_CLASSES))},
        )
    cells = coverage(session, taxonomy)
    totals: dict[str, int] = {}
    for cell in cells:
        totals[cell.modality] = totals.get(cell.modality, 0) + cell.active
    return ctx.templates.TemplateResponse(
        request,
        "index.html",
        {
            "taxonomy": taxonomy,
            "totals": totals,
            "cells": [c for c in cells if c.modality == "text_to_image"],
            "preparing": demo_preparing(request, session),
            "image_sizes": " ".join(map(str, SIZE_CLASSES)),
            "kwise": ctx.settings.kwise,
            "mode": "pair",
            "open_mode": _open_mode(request),
        },
    )


def _open_mode(request: Request) -> dict[str, Any] | None:
    """The "Your prompt" tab's limits and privacy figures when open-prompt battles are on, else None."""
    ctx = context_of(request.app)
    if ctx.open_mode is None or not ctx.open_mode.battles.enabled():
        return None
    s = ctx.settings
    return {
        "max_chars": s.open_prompt_max_chars,
        "max_bytes": s.open_reference_max_bytes,
        "max_mb": round(s.open_reference_max_bytes / 1_000_000, 1),
        "retention_days": s.open_retention_days,
        "per_session": s.open_session_per_hour,
        "timeout": int(s.open_timeout_seconds),
        "moderation_endpoint": bool(s.open_moderation_base_url),
    }


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> RedirectResponse:
    """Clients that ask for /favicon.ico without reading the page's icon link get the SVG icon."""
    return RedirectResponse("/static/favicon.svg", status_code=301)


def demo_preparing(request: Request, session: SessionDep) -> dict[str, Any] | None:
    """While `arena demo --serve` prepares the demo behind the server: its stage and images made so far."""
    progress = context_of(request.app).live.demo_progress
    if progress is None or progress.ready:
        return None
    made = session.exec(select(func.count()).select_from(Output).where(Output.status == "ok")).one()
    total = 0
    for modality in ("text_to_image", "image_editing"):
        prompts = session.exec(
            select(func.count())
            .select_from(Prompt)
            .where(Prompt.modality == modality, Prompt.status == "active")
        ).one()
        models = session.exec(
            select(func.count()).select_from(Model).where(Model.modality == modality, Model.active == True)  # noqa: E712
        ).one()
        total += prompts * models
    return {"stage": progress.stage, "made": made, "total": total}
