"""The console's models section: status and figures per model, activate / deactivate, endpoint kind and cohort,
and the models-file reload with a diff preview (the same sync as `arena init`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Body, Form, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, Field, StrictBool

from arena.generation import admin as model_admin
from arena.generation.registry import ModelEntry, RegistryError, load_registry
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
        context: dict[str, Any] = {
            "models": model_admin.model_overview(engine, ctx.pool),
            "models_file": str(ctx.settings.models_file),
            "entry_fields": entry_fields(),
            "file_active": _file_active(ctx.settings.models_file),
        }
        if request.query_params.get("preview"):
            try:
                context["preview"] = model_admin.reload_preview(engine, ctx.settings.models_file)
            except RegistryError as exc:
                context["preview_error"] = str(exc)
        return context

    return console_page(request, "admin_models.html", "models", build)


def entry_fields() -> list[tuple[str, bool, str]]:
    """The `[[models]]` fields as (name, required, default) for the page's "how to add a model" note."""
    out = []
    for name, info in ModelEntry.model_fields.items():
        required = info.is_required()
        default = "" if required else repr(info.get_default(call_default_factory=True))
        out.append(
            (name, required, default.replace("'", '"').replace("True", "true").replace("False", "false"))
        )
    return out


def _file_active(path: Path) -> dict[str, bool]:
    """What the models file says of each listed model's `active` (empty when the file is missing or invalid)."""
    try:
        return {e.slug: e.active for e in load_registry(path)}
    except RegistryError:
        return {}


@router.get("/admin/models/{slug}/deactivate", response_class=HTMLResponse, include_in_schema=False)
def deactivate_confirm(request: Request, slug: str, ctx: ContextDep) -> HTMLResponse:
    """The confirmation step before a deactivation (a plain form: it works without JavaScript)."""

    def build(_who: Identity) -> dict[str, Any]:
        model = next((m for m in model_admin.model_overview(ctx.engine) if m["slug"] == slug), None)
        if model is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no model '{slug}'")
        return {"model": model, "models_file": str(ctx.settings.models_file)}

    return console_page(request, "admin_model_deactivate.html", "models", build)


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
    confirm: Annotated[str, Form()] = "",
) -> RedirectResponse:
    """Change one model's active flag, endpoint kind or cohort; a deactivation needs the confirmation step
    (without `confirm=yes` the browser is sent to it and nothing changes)."""
    actor = check_form_post(request, settings, csrf)
    if field == "active" and value == "false" and confirm != "yes":
        return RedirectResponse(
            f"/admin/models/{quote(slug)}/deactivate", status_code=status.HTTP_303_SEE_OTHER
        )
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
