"""HTML pages rendered with Jinja2."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.pool import coverage
from arena.web.deps import SessionDep, TaxonomyDep

router = APIRouter(tags=["pages"])


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def arena_page(request: Request, session: SessionDep, taxonomy: TaxonomyDep) -> HTMLResponse:
    """The arena page. Until models have outputs it shows the prompt pool the matchups will draw from."""
    cells = coverage(session, taxonomy)
    totals: dict[str, int] = {}
    for cell in cells:
        totals[cell.modality] = totals.get(cell.modality, 0) + cell.active
    return request.app.state.templates.TemplateResponse(
        request,
        "index.html",
        {
            "taxonomy": taxonomy,
            "totals": totals,
            "cells": [c for c in cells if c.modality == "text_to_image"],
        },
    )
