"""Operator routes of the open-prompt mode: switch the whole mode off or on, take a model out of open battles
(or back in), and read today's reserved spend against the caps. Every change is audited."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException
from pydantic import BaseModel, ConfigDict, StrictBool
from sqlalchemy import select

from arena.db.tables import Model
from arena.open_prompts import switches
from arena.open_prompts.service import day_of
from arena.ops.audit import record_now
from arena.web.deps import ContextDep
from arena.web.operator_auth import OperatorDep, OperatorReadDep

router = APIRouter(tags=["open-prompt battles (operators)"])


class ModeChange(BaseModel):
    """Switch open-prompt battles on or off for every voter."""

    model_config = ConfigDict(extra="forbid")
    enabled: StrictBool


class ModelOpenChange(BaseModel):
    """Put a model in or take it out of open-prompt battles (the curated arena is unaffected)."""

    model_config = ConfigDict(extra="forbid")
    included: StrictBool


@router.get("/api/v1/admin/open")
def open_overview(ctx: ContextDep, _who: OperatorReadDep) -> dict[str, Any]:
    """The mode's state: the setting, the operator's switch, the models taking part and today's spend."""
    mode = ctx.open_mode
    assert mode is not None
    now = ctx.clock()
    with ctx.engine.connect() as conn:
        switched_on = switches.mode_enabled(conn)
        rows = conn.execute(
            select(Model.slug, Model.modality, Model.open_excluded, Model.price_per_image_usd, Model.active)
        ).all()
    spent = mode.battles.ledger.spent(day_of(now))
    return {
        "setting": ctx.settings.open_prompts,
        "switched_on": switched_on,
        "enabled": ctx.settings.open_prompts and switched_on,
        "day": day_of(now),
        "caps": {
            "overall_usd": ctx.settings.open_daily_cap_usd,
            "per_model_usd": ctx.settings.open_model_daily_cap_usd,
        },
        "spent_usd": {"overall": round(spent.get("*", 0.0), 6)},
        "models": [
            {
                "slug": r.slug,
                "modality": r.modality,
                "included": not r.open_excluded,
                "priced": r.price_per_image_usd is not None,
                "active": r.active,
                "spent_usd": round(spent.get(r.slug, 0.0), 6),
            }
            for r in rows
        ],
    }


@router.post("/api/v1/admin/open/mode")
def set_mode(ctx: ContextDep, actor: OperatorDep, change: Annotated[ModeChange, Body()]) -> dict[str, Any]:
    """Switch the whole mode off (the tab says so, starts are refused) or back on."""
    switches.set_mode(ctx.engine, change.enabled, actor, ctx.clock())
    record_now(ctx.engine, actor=actor, action="open.mode", target="mode", enabled=change.enabled)
    return {"switched_on": change.enabled}


@router.post("/api/v1/admin/open/models/{slug}")
def set_model(
    slug: str, ctx: ContextDep, actor: OperatorDep, change: Annotated[ModelOpenChange, Body()]
) -> dict[str, Any]:
    """Take one model out of open battles or put it back."""
    if not switches.set_model(ctx.engine, slug, change.included):
        raise HTTPException(404, f"no model '{slug}'")
    record_now(ctx.engine, actor=actor, action="open.model", target=slug, included=change.included)
    return {"slug": slug, "included": change.included}
