"""The head-to-head page (/compare?a=&b=): two models' record against each other in the published votes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from arena.leaderboard import LeaderboardReader, board_keys
from arena.leaderboard.boards import load_models
from arena.leaderboard.compare import head_to_head
from arena.prompts.showcase import retired_prompt_count
from arena.web.context import context_of
from arena.web.deps import TaxonomyDep
from arena.web.formatting import FMT
from arena.web.leaderboard.common import ReaderDep, cached_page, page_not_found
from arena.web.leaderboard.rows import percent
from prompts_taxonomy import Taxonomy

router = APIRouter(tags=["leaderboard"])

SlugQuery = Annotated[str, Query(max_length=128, description="Model slug.")]


@router.get("/compare", response_class=HTMLResponse, include_in_schema=False)
def compare_page(
    request: Request, reader: ReaderDep, taxonomy: TaxonomyDep, a: SlugQuery = "", b: SlugQuery = ""
) -> HTMLResponse:
    """Win rate with its interval and vote count, per use case and capability, the expected win probability
    from the ratings, and matchups each model won."""
    return cached_page(request, reader, lambda: _render(request, reader, taxonomy, a, b))


def _render(request: Request, reader: LeaderboardReader, taxonomy: Taxonomy, a: str, b: str) -> HTMLResponse:
    with reader.engine.connect() as conn:
        models = load_models(conn)
        for slug in (a, b):
            if slug and slug not in models:
                return page_not_found(request, f"unknown model '{slug}'")
        h2h, error = None, ""
        if a and b and a == b:
            error = "Choose two different models to compare."
        elif a and b and models[a].modality != models[b].modality:
            error = "These two models are of different modalities and never meet: choose two of the same one."
        elif a and b:
            overall = reader.snapshots.boards(conn, models[a].modality, board_keys(taxonomy)).get("overall")
            if overall is not None:
                h2h = head_to_head(conn, overall, a, b)
    modality = models[a].modality if a else (models[b].modality if b else None)
    choices = sorted(
        (m for m in models.values() if modality is None or m.modality == modality),
        key=lambda m: m.display_name.lower(),
    )
    # Grouped by modality (taxonomy order): two models of different modalities never meet, so the picker
    # says which group each belongs to and compare.js keeps the second choice in the first one's group.
    groups = [
        (m.slug, m.name, [c for c in choices if c.modality == m.slug])
        for m in taxonomy.modalities
        if any(c.modality == m.slug for c in choices)
    ]
    context = {
        "a": models.get(a),
        "b": models.get(b),
        "h": h2h,
        "choices": choices,
        "groups": groups,
        "retired_prompts": retired_prompt_count(reader.engine, modality) if modality else 0,
        "error": error,
        "fmt": FMT,
        "pct": percent,
        "label": lambda axis, value: taxonomy.label(axis, value).name if taxonomy.has(axis, value) else value,
    }
    templates = context_of(request.app).templates
    return templates.TemplateResponse(request, "compare.html", context, status_code=400 if error else 200)
