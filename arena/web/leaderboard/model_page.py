"""The model page (/models/{slug}) and the public reference images of the editing prompts it shows."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import select

from arena.db.tables import Prompt, ReferenceImage
from arena.evals.arena_grades import accuracy_texts
from arena.leaderboard import LeaderboardReader
from arena.media.store import SERVED_MEDIA_TYPE, normalize_image
from arena.prompts.showcase import retired_prompt_count
from arena.web.context import context_of
from arena.web.deps import ContextDep, TaxonomyDep
from arena.web.formatting import FMT
from arena.web.leaderboard.charts import cell_heatmap, model_charts
from arena.web.leaderboard.common import ReaderDep, cached_page, page_not_found
from arena.web.leaderboard.history import history_chart
from arena.web.leaderboard.rows import difference_text, percent, settle_short, settle_text
from prompts_taxonomy import Taxonomy

router = APIRouter(tags=["leaderboard"])


@router.get("/models/{slug}", response_class=HTMLResponse, include_in_schema=False)
def model_detail_page(slug: str, request: Request, reader: ReaderDep, taxonomy: TaxonomyDep) -> HTMLResponse:
    """Ratings on every board, head-to-head win rates, a use case x capability heat map, generation time,
    price, endpoint kind, cohort and example matchups."""
    return cached_page(request, reader, lambda: _render(slug, request, reader, taxonomy))


def _render(slug: str, request: Request, reader: LeaderboardReader, taxonomy: Taxonomy) -> HTMLResponse:
    detail = reader.model_detail(slug)
    if detail is None:
        return page_not_found(request, f"unknown model '{slug}'")
    snapshot = detail.snapshot
    charts = model_charts(detail)
    history = reader.history(detail.info.modality, "overall").for_models([slug])
    charts["history"] = history_chart(history, detail.names)
    context = {
        "d": detail,
        "fmt": FMT,
        "pct": percent,
        "settle": settle_text,
        "settle_short": settle_short,
        "diff_text": difference_text,
        "taxonomy": taxonomy,
        "modality_name": (
            taxonomy.label("modality", detail.info.modality).name
            if taxonomy.has("modality", detail.info.modality)
            else detail.info.modality
        ),
        "charts": charts,
        "grid": cell_heatmap(detail, taxonomy),
        "simulated": bool(snapshot and snapshot.params.get("include_simulated")),
        "label": lambda axis, value: taxonomy.label(axis, value).name if taxonomy.has(axis, value) else value,
        "text_accuracy": accuracy_texts(reader.engine).get(slug),
        "retired_prompts": retired_prompt_count(reader.engine, detail.info.modality),
        # a text-to-image time is listed once it rests on enough samples (as on the leaderboard)
        "timing_min": reader.min_timing_samples if detail.info.modality == "text_to_image" else 0,
    }
    return context_of(request.app).templates.TemplateResponse(request, "model.html", context)


@router.get("/leaderboard/reference/{prompt_id}", include_in_schema=False)
def prompt_reference(prompt_id: str, ctx: ContextDep) -> Response:
    """The normalized reference image of an editing prompt (curated public images, shown with examples)."""
    with ctx.engine.connect() as conn:
        row = conn.execute(
            select(ReferenceImage.id, ReferenceImage.path)
            .join(Prompt, Prompt.reference_image_id == ReferenceImage.id)
            .where(Prompt.id == prompt_id)
        ).first()
    if row is None:
        raise HTTPException(404, "no such image")
    cache: dict[int, bytes] = ctx.reference_cache
    if row.id not in cache:
        path = ctx.settings.media_dir / row.path
        if not path.is_file():
            raise HTTPException(404, "no such image")
        cache[row.id] = normalize_image(path.read_bytes())
    return Response(
        cache[row.id], media_type=SERVED_MEDIA_TYPE, headers={"Cache-Control": "public, max-age=3600"}
    )
