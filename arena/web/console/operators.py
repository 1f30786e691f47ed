"""The console's operators section (admins only to change; any role reads): add an operator (the token is
shown once), revoke one (their sessions end at once)."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Body, Form, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlmodel import Session

from arena.ops import operators
from arena.ops.operators import Identity
from arena.web.console.base import console_page
from arena.web.context import context_of
from arena.web.deps import SettingsDep
from arena.web.operator_auth import AdminDep, OperatorReadDep, check_form_post

router = APIRouter(tags=["operators"])


def _listing(request: Request) -> list[dict[str, Any]]:
    with Session(context_of(request.app).engine) as session:
        return [
            {
                "name": o.name,
                "role": o.role,
                "created_at": o.created_at,
                "created_by": o.created_by,
                "revoked_at": o.revoked_at,
            }
            for o in operators.list_operators(session)
        ]


def _add(request: Request, name: str, role: str, actor: str) -> str:
    try:
        with Session(context_of(request.app).engine) as session:
            return operators.add_operator(session, name.strip(), role, actor=actor)
    except operators.OperatorError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT if "exists" in str(exc) else 422, str(exc)) from None


def _revoke(request: Request, name: str, actor: str) -> None:
    ctx = context_of(request.app)
    try:
        with Session(ctx.engine) as session:
            operators.revoke_operator(session, name, actor=actor, now=ctx.clock())
    except operators.OperatorError as exc:
        raise HTTPException(404 if str(exc).startswith("no operator") else 409, str(exc)) from None


@router.get("/admin/operators", response_class=HTMLResponse, include_in_schema=False)
def operators_page(request: Request) -> HTMLResponse:
    """Every operator; admins get the add and revoke forms."""
    return console_page(
        request, "admin_operators.html", "operators", lambda _who: {"operators": _listing(request)}
    )


@router.post("/admin/operators", include_in_schema=False)
def add_form(
    request: Request,
    settings: SettingsDep,
    csrf: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    role: Annotated[str, Form()] = "operator",
) -> HTMLResponse:
    """Add an operator and show their token this once (never stored, never shown again)."""
    actor = check_form_post(request, settings, csrf, role="admin")
    token = _add(request, name, role, actor)

    def build(_who: Identity) -> dict[str, Any]:
        return {"operators": _listing(request), "new_token": token, "new_name": name.strip()}

    return console_page(request, "admin_operators.html", "operators", build)


@router.post("/admin/operators/{name}/revoke", include_in_schema=False)
def revoke_form(request: Request, name: str, settings: SettingsDep, csrf: Annotated[str, Form()] = "") -> Any:
    """Revoke an operator's token and sessions."""
    actor = check_form_post(request, settings, csrf, role="admin")
    _revoke(request, name, actor)
    return RedirectResponse(f"/admin/operators?done={quote(f'{name} revoked.')}", status_code=303)


@router.get("/api/v1/admin/operators")
def operators_json(request: Request, _who: OperatorReadDep) -> list[dict[str, Any]]:
    """Every operator: name, role, who created them and when, revoked or not (never a token or hash)."""
    return _listing(request)


@router.post("/api/v1/admin/operators", status_code=status.HTTP_201_CREATED)
def add_json(
    request: Request,
    actor: AdminDep,
    name: Annotated[
        str, Body(embed=True, pattern=operators.NAME.pattern, description="1-64 of a-z 0-9 . _ -")
    ],
    role: Annotated[Literal["viewer", "operator", "admin"], Body(embed=True)] = "operator",
) -> dict[str, str]:
    """Add an operator (admin role); the response carries their token, the only time it is shown."""
    return {"name": name, "role": role, "token": _add(request, name, role, actor)}


@router.post("/api/v1/admin/operators/{name}/revoke")
def revoke_json(request: Request, name: str, actor: AdminDep) -> dict[str, str]:
    """Revoke an operator (admin role): their token and sessions stop working at once."""
    _revoke(request, name, actor)
    return {"name": name, "status": "revoked"}
