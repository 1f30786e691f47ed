"""The console's models section: status and figures per model, activate / deactivate, endpoint kind and cohort,
and the models-file reload with a diff preview (the same sync as `arena init`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Body, Form, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, Field, StrictBool

from arena.generation import admin as model_admin
from arena.generation.registry import RegistryError
from arena.ops.operators import Identity
from arena.web.console.base import console_page
from arena.web.context import context_of
from arena.web.deps import ContextDep, SettingsDep
from arena.web.operator_auth import OperatorDep, OperatorReadDep, check_form_post

router = APIRouter(tags=["models (operators)"])
VALUES = {"true": True, "false": False}


def _set(request: Request, slug: str, field: str, raw: Any, actor: str) -> None:
    ctx = context_of(request.app)
    value = VALUES.get(raw, raw) if field == "active" and isinstance(raw, str) else raw
    try:
        model_admin.set_model(ctx.engine, slug, field, value, actor=actor, pool=ctx.pool)
    except model_admin.ModelActionError as exc:
        code = 404 if str(exc).startswith("no model") else 409 if "already" in str(exc) else 422
        raise HTTPException(code, str(exc)) from None


def _preview(request: Request) -> dict[str, Any]:
    ctx = context_of(request.app)
    try:
        return model_admin.reload_preview(ctx.engine, ctx.settings.models_file)
    except RegistryError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from None


@router.get("/admin/models", response_class=HTMLResponse, include_in_schema=False)
def models_page(request: Request, ctx: ContextDep) -> HTMLResponse:
    """Every model with its figures and controls; `?preview=1` shows what a reload of the file would change."""
    engine = ctx.engine

    def build(_who: Identity) -> dict[str, Any]:
        context: dict[str, Any] = {"models": model_admin.model_overview(engine, ctx.pool)}
        if request.query_params.get("preview"):
            try:
                context["preview"] = model_admin.reload_preview(engine, ctx.settings.models_file)
            except RegistryError as exc:
                context["preview_error"] = str(exc)
        return context

    return console_page(request, "admin_models.html", "models", build)


@router.post("/admin/models/reload", include_in_schema=False)
def reload_form(
    request: Request, ctx: ContextDep, settings: SettingsDep, csrf: Annotated[str, Form()] = ""
) -> RedirectResponse:
    """Apply the models file (after its preview)."""
    actor = check_form_post(request, settings, csrf)
    _preview(request)  # an invalid file is refused before anything changes
    result = model_admin.reload_apply(ctx.engine, settings.models_file, actor=actor,
                                      pool=ctx.pool)  # fmt: skip
    done = quote("Models file reloaded: " + ", ".join(f"{k} {v}" for k, v in result["counts"].items()))
    return RedirectResponse(f"/admin/models?done={done}", status_code=status.HTTP_303_SEE_OTHER)


@router.post("/admin/models/{slug}/set", include_in_schema=False)
def set_form(
    request: Request,
    slug: str,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    field: Annotated[str, Form()] = "",
    value: Annotated[str, Form()] = "",
) -> RedirectResponse:
    """Change one model's active flag, endpoint kind or cohort."""
    actor = check_form_post(request, settings, csrf)
    _set(request, slug, field, value, actor)
    done = quote(f"{slug}: {field} set to {value}.")
    return RedirectResponse(f"/admin/models?done={done}", status_code=status.HTTP_303_SEE_OTHER)


@router.get("/api/v1/admin/models")
def models_json(ctx: ContextDep, _who: OperatorReadDep) -> list[dict[str, Any]]:
    """Every model: status, cohort, endpoint kind, outputs ok / failed, votes, timing samples, shares."""
    return model_admin.model_overview(ctx.engine, ctx.pool)


@router.get("/api/v1/admin/models/reload")
def reload_preview_json(request: Request, _who: OperatorReadDep) -> dict[str, Any]:
    """What reloading the models file would change (nothing is written)."""
    return _preview(request)


@router.post("/api/v1/admin/models/reload")
def reload_json(request: Request, ctx: ContextDep, actor: OperatorDep) -> dict[str, Any]:
    """Reload the models file; the counts and the diff applied."""
    _preview(request)
    return model_admin.reload_apply(
        ctx.engine,
        ctx.settings.models_file,
        actor=actor,
        pool=ctx.pool,
    )


class SetActive(BaseModel):
    """Activate or deactivate a model."""

    field: Literal["active"]
    value: StrictBool


class SetKind(BaseModel):
    """Mark a model as a standard or a modified (distilled, quantized, ...) endpoint."""

    field: Literal["endpoint_kind"]
    value: Literal["standard", "modified"]


class SetCohort(BaseModel):
    """Move a model between the current and the legacy cohort."""

    field: Literal["cohort"]
    value: Literal["current", "legacy"]


ModelChange = Annotated[SetActive | SetKind | SetCohort, Field(discriminator="field")]


@router.post("/api/v1/admin/models/{slug}")
def set_json(
    request: Request, slug: str, actor: OperatorDep, change: Annotated[ModelChange, Body()]
) -> dict[str, Any]:
    """Change one model's active flag, endpoint kind or cohort (409 when it already has that value)."""
    _set(request, slug, change.field, change.value, actor)
    return {"slug": slug, change.field: change.value}
