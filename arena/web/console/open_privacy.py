"""The console's deletion path for open prompts: a confirmation page, the form post, and the JSON route, all
operator-only. Deletion erases the prompt text and reference upload; the battle and its vote stay."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlmodel import Session

from arena.db.tables import OpenBattle
from arena.media.store import MediaStore
from arena.ops.operators import Identity
from arena.prompts.open_privacy import delete_open_prompt
from arena.web.console.base import console_page
from arena.web.context import context_of
from arena.web.deps import BattleId, ContextDep, SettingsDep
from arena.web.operator_auth import OperatorDep, check_form_post

router = APIRouter(tags=["open prompts (operators)"])


def _delete(request: Request, battle_id: str, actor: str) -> dict[str, Any]:
    ctx = context_of(request.app)
    with Session(ctx.engine) as session:
        try:
            done = delete_open_prompt(
                session, battle_id, actor=actor, media=MediaStore(ctx.settings.media_dir), now=ctx.clock()
            )
        except KeyError:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no open battle '{battle_id}'") from None
    return {"battle": battle_id, "deleted": True, "already_deleted": done.already_deleted}


@router.get("/admin/open/prompts/{battle_id}/delete", response_class=HTMLResponse, include_in_schema=False)
def delete_confirm(request: Request, battle_id: BattleId, ctx: ContextDep) -> HTMLResponse:
    """The confirmation step before a deletion (a plain form: it works without JavaScript)."""

    def build(_who: Identity) -> dict[str, Any]:
        with Session(ctx.engine) as session:
            battle = session.get(OpenBattle, battle_id)
            if battle is None:
                raise HTTPException(status.HTTP_404_NOT_FOUND, f"no open battle '{battle_id}'")
            return {
                "battle": {
                    "id": battle.id,
                    "modality": battle.modality,
                    "created_at": battle.created_at,
                    "consent": battle.consent,
                    "has_reference": battle.reference_media_id is not None,
                    "deleted_at": battle.deleted_at,
                    "text": battle.prompt_text,
                }
            }

    return console_page(request, "admin_open_delete.html", "votes", build)


@router.post("/admin/open/prompts/{battle_id}/delete", include_in_schema=False)
def delete_form(
    request: Request,
    battle_id: BattleId,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    confirm: Annotated[str, Form()] = "",
) -> RedirectResponse:
    """Delete after the confirmation step (without `confirm=yes` the browser is sent to it, nothing changes)."""
    actor = check_form_post(request, settings, csrf)
    if confirm != "yes":
        return RedirectResponse(
            f"/admin/open/prompts/{quote(battle_id)}/delete", status_code=status.HTTP_303_SEE_OTHER
        )
    _delete(request, battle_id, actor)
    done = quote(f"Open prompt of battle {battle_id} deleted.")
    return RedirectResponse(f"/admin/votes?done={done}", status_code=status.HTTP_303_SEE_OTHER)


@router.post("/api/v1/admin/open/prompts/{battle_id}/delete")
def delete_json(request: Request, battle_id: BattleId, actor: OperatorDep) -> dict[str, Any]:
    """Erase one open battle's prompt text and reference upload (404 when unknown; repeat calls say
    `already_deleted`). The vote stays, so the open board does not change."""
    return _delete(request, battle_id, actor)
