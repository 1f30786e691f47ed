"""The console's prompts section: search the pool, a prompt's outputs side by side with its vote figures,
retire / restore with a reason, and JSON-lines batch uploads (same validation as `arena prompts import`).

Pages read with any role; the forms need the operator role, the session's CSRF token and a same-origin
request; the JSON routes under /api/v1/admin/prompts take a bearer token.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Body, File, Form, HTTPException, Query, Request, UploadFile, status
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlmodel import Session

from arena.db.tables import Output
from arena.ops.operators import Identity
from arena.prompts import admin as prompt_admin
from arena.prompts.pool import ImportFailed, current_batch, import_prompt_lines
from arena.web.console.base import console_page
from arena.web.context import context_of
from arena.web.deps import ContextDep, SettingsDep
from arena.web.media import NO_STORE
from arena.web.operator_auth import OperatorDep, OperatorReadDep, check_form_post

router = APIRouter(tags=["prompts (operators)"])
MAX_UPLOAD_BYTES = 2 * 1024 * 1024
# The request bodies that carry an upload of MAX_UPLOAD_BYTES, for the body guard (arena.web.guards): the form
# adds its multipart framing; the JSON body holds the lines as one JSON string, where escaping at most triples
# valid text (a 4-byte character becomes a 12-byte surrogate-pair escape; quotes and newlines double).
BODY_LIMITS = {
    "/admin/prompts/import": MAX_UPLOAD_BYTES + 64 * 1024,
    "/api/v1/admin/prompts/import": 3 * MAX_UPLOAD_BYTES + 64 * 1024,
}
PAGE = 50
SEARCH_KEYS = ("q", "modality", "use_case", "capability", "style", "status", "batch")


def _search(request: Request, params: dict[str, str], page: int) -> tuple[list[Any], int]:
    with Session(context_of(request.app).engine) as session:
        return prompt_admin.search_prompts(
            session,
            text=params.get("q", ""),
            modality=params.get("modality", ""),
            use_case=params.get("use_case", ""),
            capability=params.get("capability", ""),
            style=params.get("style", ""),
            status=params.get("status", ""),
            batch=params.get("batch", ""),
            limit=PAGE,
            offset=(page - 1) * PAGE,
        )


def import_text(request: Request, text: str, batch: str, actor: str) -> list[str]:
    """Import a JSON-lines batch all-or-nothing (ImportFailed lists every bad line); the imported ids."""
    ctx = context_of(request.app)
    settings = ctx.settings
    if batch and not (len(batch) == 7 and batch[4] == "-" and batch.replace("-", "").isdigit()):
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, "batch must be a month as YYYY-MM")
    with Session(ctx.engine) as session:
        report = import_prompt_lines(
            session,
            text.splitlines(),
            taxonomy=ctx.taxonomy,
            base_dir=None,
            media_dir=settings.media_dir,
            threshold=settings.near_duplicate_threshold,
            max_chars=settings.max_prompt_chars,
            batch=batch or None,
            actor=actor,
            source="console upload",
        )
    ctx.pool.invalidate()
    return report.added


def _prompts_page(
    request: Request, extra: dict[str, Any] | None = None, status_code: int = 200
) -> HTMLResponse:
    ctx = context_of(request.app)
    params = {k: (request.query_params.get(k) or "")[:200] for k in SEARCH_KEYS}
    raw_page = request.query_params.get("page", "1")
    page = max(1, int(raw_page)) if raw_page.isdigit() and len(raw_page) < 7 else 1

    def build(_who: Identity) -> dict[str, Any]:
        rows, total = _search(request, params, page)
        with Session(ctx.engine) as session:
            batches = prompt_admin.batches(session)
        return {
            "params": params,
            "rows": rows,
            "total": total,
            "page": page,
            "pages": max(1, -(-total // PAGE)),
            "taxonomy": ctx.taxonomy,
            "batches": batches,
            "this_month": current_batch(ctx.clock()),
            **(extra or {}),
        }

    response = console_page(request, "admin_prompts.html", "prompts", build)
    if status_code != 200 and response.status_code == 200:
        response.status_code = status_code
    return response


@router.get("/admin/prompts", response_class=HTMLResponse, include_in_schema=False)
def prompts_page(request: Request) -> HTMLResponse:
    """Search the pool by text, tags, status and batch; upload a batch."""
    return _prompts_page(request)


@router.post("/admin/prompts/import", include_in_schema=False)
async def prompts_upload(
    request: Request,
    settings: SettingsDep,
    file: Annotated[UploadFile | None, File()] = None,
    csrf: Annotated[str, Form()] = "",
    batch: Annotated[str, Form()] = "",
) -> Response:
    """Import an uploaded JSON-lines file, or show every bad line (nothing imported)."""
    actor = check_form_post(request, settings, csrf)
    if file is None:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, "choose a JSON-lines file to upload")
    data = await file.read(MAX_UPLOAD_BYTES + 1)
    if len(data) > MAX_UPLOAD_BYTES:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, "the file is larger than 2 MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _prompts_page(request, {"upload_errors": [(0, "the file is not UTF-8 text")]}, 422)
    name = (file.filename or "upload")[:100]
    try:
        added = import_text(request, text, batch.strip(), actor)
    except ImportFailed as exc:
        errors = [(e.line, e.message) for e in exc.errors]
        return _prompts_page(request, {"upload_errors": errors, "upload_name": name}, 422)
    done = quote(f"Imported {len(added)} prompt(s) from {name}.")
    return RedirectResponse(f"/admin/prompts?done={done}", status_code=status.HTTP_303_SEE_OTHER)


@router.get("/admin/prompts/{prompt_id}", response_class=HTMLResponse, include_in_schema=False)
def prompt_page(request: Request, ctx: ContextDep, prompt_id: str) -> HTMLResponse:
    """One prompt: its outputs side by side, vote statistics, discrimination figures, retire / restore."""

    def build(_who: Identity) -> dict[str, Any]:
        detail = prompt_admin.prompt_detail(ctx.engine, ctx.settings, prompt_id)
        if detail is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no prompt '{prompt_id}'")
        return detail

    return console_page(request, "admin_prompt.html", "prompts", build)


@router.post("/admin/prompts/{prompt_id}/{action}", include_in_schema=False)
def prompt_status_form(
    request: Request,
    prompt_id: str,
    action: str,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    reason: Annotated[str, Form()] = "",
) -> RedirectResponse:
    """Retire or restore one prompt from its page."""
    actor = check_form_post(request, settings, csrf)
    if action not in ("retire", "restore"):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "unknown action")
    _set_status(request, prompt_id, action == "retire", reason, actor)
    done = quote(f"Prompt {prompt_id} {'retired' if action == 'retire' else 'restored'}.")
    return RedirectResponse(f"/admin/prompts/{quote(prompt_id)}?done={done}", status_code=303)


def _set_status(request: Request, prompt_id: str, retire: bool, reason: str, actor: str) -> Any:
    ctx = context_of(request.app)
    try:
        return prompt_admin.set_status(
            ctx.engine,
            prompt_id,
            retire=retire,
            reason=reason,
            actor=actor,
            now=ctx.clock(),
            pool=ctx.pool,
        )
    except prompt_admin.PromptActionError as exc:
        code = 404 if str(exc).startswith("no prompt") else 409 if "already" in str(exc) else 422
        raise HTTPException(code, str(exc)) from None


@router.get("/admin/outputs/{output_id}/image", include_in_schema=False)
def output_image(ctx: ContextDep, output_id: int, _who: OperatorReadDep) -> Response:
    """An output's served image for operators (voters only ever see per-matchup URLs)."""
    with Session(ctx.engine) as session:
        output = session.get(Output, output_id)
    path = ctx.media.served_path(output.media_id) if output and output.media_id else None
    if path is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such image")
    from arena.media.store import SERVED_MEDIA_TYPE

    return Response(content=path.read_bytes(), media_type=SERVED_MEDIA_TYPE, headers=NO_STORE)


def _prompt_json(p: Any) -> dict[str, Any]:
    return p.model_dump(mode="json")


@router.get("/api/v1/admin/prompts")
def prompts_json(
    request: Request,
    _who: OperatorReadDep,
    q: str = "",
    modality: str = "",
    use_case: str = "",
    capability: str = "",
    style: str = "",
    status_: Annotated[str, Query(alias="status")] = "",
    batch: str = "",
    page: Annotated[int, Query(ge=1, le=2**31 // PAGE)] = 1,
) -> dict[str, Any]:
    """Search the pool: prompts matching every filter, 50 a page, with the total."""
    params = {"q": q, "modality": modality, "use_case": use_case, "capability": capability}
    rows, total = _search(request, params | {"style": style, "status": status_, "batch": batch}, page)
    return {"total": total, "page": page, "prompts": [_prompt_json(p) for p in rows]}


@router.post("/api/v1/admin/prompts/import")
def prompts_import_json(
    request: Request,
    actor: OperatorDep,
    lines: Annotated[
        str, Body(embed=True, max_length=MAX_UPLOAD_BYTES, description="Prompt cards, JSON lines.")
    ],
    batch: Annotated[
        str, Body(embed=True, pattern=r"^(\d{4}-\d{2})?$", description="YYYY-MM or empty.")
    ] = "",
) -> Any:
    """Import JSON lines all-or-nothing; 422 with every refused line (`errors[].loc` ends with the line number)
    when any is refused, and then nothing is imported."""
    try:
        added = import_text(request, lines, batch, actor)
    except ImportFailed as exc:
        errors = [{"loc": ["body", "lines", e.line], "msg": e.message} for e in exc.errors]
        return JSONResponse(
            {
                "detail": f"{len(errors)} line(s) refused; nothing was imported",
                "imported": 0,
                "errors": errors,
            },
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    return {"imported": len(added), "ids": added}


@router.post("/api/v1/admin/prompts/{prompt_id}/{action}")
def prompt_status_json(
    request: Request,
    prompt_id: str,
    action: str,
    actor: OperatorDep,
    reason: Annotated[str, Body(embed=True)],
) -> dict[str, Any]:
    """Retire or restore one prompt (`action` is retire or restore) with a reason."""
    if action not in ("retire", "restore"):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "unknown action")
    prompt = _set_status(request, prompt_id, action == "retire", reason, actor)
    return _prompt_json(prompt)
