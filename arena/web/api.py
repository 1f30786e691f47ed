"""JSON API under /api/v1: health, taxonomy, prompt-pool coverage, and operator routes."""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel

from arena.db.migrate import current_revision
from arena.prompts.pool import coverage
from arena.voting.matchmaking import WINDOW, model_share_cap, window_cap, window_shares
from arena.voting.matchup_cache import SHARE_WINDOW
from arena.voting.service import served_pairs
from arena.web.deps import ContextDep, SessionDep, TaxonomyDep
from arena.web.operator_auth import OperatorReadDep

router = APIRouter(prefix="/api/v1", tags=["api"])


class Health(BaseModel):
    """Liveness and the schema revision."""

    status: str
    schema_revision: str | None


class LabelOut(BaseModel):
    """A taxonomy label as published."""

    slug: str
    name: str
    description: str
    hint: str
    examples: list[str]


class CellOut(BaseModel):
    """Prompt counts in one (use case x capability) cell."""

    use_case: str
    capability: str
    active: int
    retired: int


@router.get("/health", response_model=Health)
def health(session: SessionDep) -> Health:
    """Whether the app and its database answer."""
    return Health(status="ok", schema_revision=current_revision(session.get_bind()))


@router.get("/taxonomy", response_model=dict[str, list[LabelOut]])
def taxonomy_labels(taxonomy: TaxonomyDep) -> dict[str, list[LabelOut]]:
    """Every label of the taxonomy by axis: modality, use_case, capability, style."""
    return {
        axis: [
            LabelOut(
                slug=lb.slug,
                name=lb.name,
                description=lb.description,
                hint=lb.hint,
                examples=list(lb.examples),
            )
            for lb in labels
        ]
        for axis, labels in taxonomy.axes().items()
    }


@router.get("/prompts/coverage", response_model=list[CellOut])
def prompt_coverage(
    session: SessionDep,
    taxonomy: TaxonomyDep,
    modality: Annotated[str, Query(description="text_to_image or image_editing")] = "text_to_image",
) -> list[CellOut]:
    """Active and retired prompts per (use case x capability) cell of one modality."""
    if not taxonomy.has("modality", modality):
        raise HTTPException(404, f"unknown modality '{modality}'")
    return [
        CellOut(use_case=c.use_case, capability=c.capability, active=c.active, retired=c.retired)
        for c in coverage(session, taxonomy, modality)
    ]


@router.get("/admin/sampling")
def sampling_audit(
    ctx: ContextDep,
    _actor: OperatorReadDep,
    taxonomy: TaxonomyDep,
    modality: str = "text_to_image",
) -> dict[str, Any]:
    """Per-model share of recent matchups (fairness audit), the cap, and what matchmaking knows of each model."""
    if not taxonomy.has("modality", modality):
        raise HTTPException(404, f"unknown modality '{modality}'")
    pool = ctx.pool.load(modality)
    settings = ctx.settings
    with ctx.engine.connect() as conn:
        recent = served_pairs(conn, modality, SHARE_WINDOW)
    live = window_shares(Counter(recent[: WINDOW - 1]))  # what the share cap reads on the next serve
    max_share = model_share_cap(pool.n_models, settings.model_share_factor)
    return {
        "modality": modality,
        "window": SHARE_WINDOW,
        "share_window": WINDOW - 1,
        "model_share_factor": settings.model_share_factor,
        "max_share": round(max_share, 4),
        "new_model_half_width": settings.new_model_half_width,
        "pairs": _pair_audit(recent, pool.plan, pool.n_models),
        "models": [
            {
                "model": slug,
                "share": round(pool.shares.get(slug, 0.0), 4),
                "window_share": round(live.get(slug, 0.0), 4),
                "capped": live.get(slug, 0.0) > max_share,
                "rating": pool.standings[slug].rating if slug in pool.standings else None,
                "half_width": pool.standings[slug].half_width if slug in pool.standings else None,
                "planned_share": round(sum(v for pair, v in pool.plan.items() if slug in pair), 4),
                "prompts_with_output": sum(
                    1 for outs in pool.outputs.values() if any(o.model_slug == slug for o in outs)
                ),
            }
            for slug in sorted(pool.models)
        ],
    }


def _pair_audit(recent: list[tuple[str, str]], plan: dict, n_models: int) -> dict[str, Any]:
    """Realised pair shares of the last WINDOW and SHARE_WINDOW matchups (`recent`, newest first) next to the
    planned shares, and the window cap each pair is held to (arena.voting.matchmaking's variety rules)."""
    n_pairs = n_models * (n_models - 1) // 2
    last = Counter(recent[:WINDOW])
    longer = Counter(recent)
    pairs = sorted(set(plan) | set(longer))
    return {
        "window": WINDOW,
        "window_cap": window_cap(n_pairs),
        "uniform_share": round(1 / n_pairs, 4) if n_pairs else None,
        "served_in_window": min(len(recent), WINDOW),
        "served_in_long_window": len(recent),
        "rows": [
            {
                "pair": list(pair),
                "planned_share": round(plan.get(pair, 0.0), 4),
                "realised_share": round(last[pair] / max(1, min(len(recent), WINDOW)), 4),
                "realised_share_long": round(longer[pair] / max(1, len(recent)), 4),
                "in_window": last[pair],
            }
            for pair in pairs
        ],
    }
