"""Operator authentication for the console and the operator API: who is asking, with which role.

Credentials: a named operator's token (`arena operators add`) or the bootstrap ARENA_OPERATOR_TOKEN (an admin
named "bootstrap"), sent as `Authorization: Bearer ...` by scripts, or typed once into the sign-in form (in demo
mode, also a one-time sign-in link printed at start-up), which opens a server-side session (`arena.ops.operators`)
named by a signed, HttpOnly, SameSite=Strict cookie. Sessions expire after ARENA_OPERATOR_SESSION_HOURS; sign-out
revokes the session row, so the cookie stops working at once.
Forms that change state carry a CSRF token bound to the session and are refused when the browser says the
request came from another site (Sec-Fetch-Site, else Origin; `Origin: null` is refused). Viewers read,
operators act, admins also manage operators.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Depends, HTTPException, Request, status
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlmodel import Session
from starlette.responses import Response

from arena.ops import operators
from arena.ops.operators import BOOTSTRAP, Identity
from arena.settings import Settings
from arena.web.context import context_of
from arena.web.deps import bootstrap_matches, check_locked_out, count_wrong_token, get_settings

COOKIE = "arena_operator"


def app_secret(request: Request) -> str:
    """The app's secret (ARENA_SECRET_KEY or the generated one), read once per app."""
    return context_of(request.app).secret


def _serializer(request: Request) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(app_secret(request), salt="arena-operator")


def _bootstrap_id(settings: Settings) -> str:
    return hashlib.sha256(("operator:" + settings.operator_token).encode()).hexdigest()[:16]


def enabled(request: Request, settings: Settings) -> bool:
    """Operator routes work once there is a bootstrap token or at least one named operator."""
    if settings.operator_token:
        return True
    with Session(context_of(request.app).engine) as session:
        return operators.any_active(session)


def _disabled() -> HTTPException:
    return HTTPException(
        status.HTTP_403_FORBIDDEN,
        "operator routes are disabled: set ARENA_OPERATOR_TOKEN or add an operator "
        "(`.venv/bin/arena operators add NAME`)",
    )


def authenticate(request: Request, settings: Settings, presented: str) -> Identity | None:
    """The identity holding `presented` (bootstrap or named token); wrong tokens count towards the lock-out."""
    check_locked_out(request)
    if bootstrap_matches(settings, presented):
        return Identity(BOOTSTRAP, "admin")
    with Session(context_of(request.app).engine) as session:
        who = operators.verify_token(session, presented)
    if who is None:
        count_wrong_token(request)
    return who


def bearer_identity(request: Request, settings: Settings) -> Identity | None:
    """The identity of `Authorization: Bearer <token>`, or None when the header is absent or wrong."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        return None
    return authenticate(request, settings, token)


def _cookie(request: Request, settings: Settings) -> tuple[str, Identity] | None:
    """(session id, identity) of a live console session, or None."""
    ctx = context_of(request.app)
    raw = request.cookies.get(COOKIE)
    if not raw:
        return None
    try:
        data = _serializer(request).loads(raw, max_age=int(settings.operator_session_hours * 3600) + 60)
    except BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("s"), str):
        return None
    if data.get("b") is not None and (
        not settings.operator_token or data["b"] != _bootstrap_id(settings)
    ):  # the bootstrap token changed or was removed: its sessions end
        return None
    with Session(ctx.engine) as session:
        who = operators.session_identity(session, data["s"], now=ctx.clock())
    return None if who is None else (data["s"], who)


def cookie_identity(request: Request, settings: Settings) -> Identity | None:
    """The identity of the console session cookie, or None."""
    found = _cookie(request, settings)
    return None if found is None else found[1]


def csrf_token(request: Request, settings: Settings) -> str:
    """The CSRF token the console's forms carry, bound to the current session ('' without one)."""
    found = _cookie(request, settings)
    if found is None:
        return ""
    key = ("arena-admin-csrf:" + app_secret(request)).encode()
    return hmac.new(key, found[0].encode(), hashlib.sha256).hexdigest()


def same_origin(request: Request) -> bool:
    """Whether the browser says this request comes from our own pages (Sec-Fetch-Site, else Origin).

    `Origin: null` (sandboxed frames, some redirects, file: pages) is refused."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = request.headers.get("origin")
    if origin is not None:
        return origin != "null" and urlsplit(origin).netloc == request.headers.get("host", "")
    return True  # an old browser sending neither: the CSRF token and SameSite=Strict still hold


def sign_in(request: Request, response: Response, settings: Settings, token: str) -> Identity | None:
    """Open a session and set its cookie when `token` is valid; None (and no cookie) otherwise."""
    who = authenticate(request, settings, token)
    if who is not None:
        _start_session(request, response, settings, who, via="token")
    return who


def sign_in_once(request: Request, response: Response, settings: Settings, secret: str) -> Identity | None:
    """Open a session and set its cookie for a one-time sign-in link (demo mode only), using the link up; None
    (and no cookie) when it is unknown, used or expired. Wrong links count towards the lock-out like tokens."""
    check_locked_out(request)
    ctx = context_of(request.app)
    who = None
    if settings.demo_mode and secret:
        with Session(ctx.engine) as session:
            who = operators.redeem_link(session, secret, now=ctx.clock())
    if who is None:
        count_wrong_token(request)
        return None
    _start_session(request, response, settings, who, via="link")
    return who


def _start_session(
    request: Request, response: Response, settings: Settings, who: Identity, *, via: str
) -> None:
    """Open a server-side session for `who` and set its signed cookie."""
    ctx = context_of(request.app)
    hours = settings.operator_session_hours
    with Session(ctx.engine) as session:
        raw = operators.open_session(session, who, now=ctx.clock(), ttl=timedelta(hours=hours), via=via)
    payload: dict[str, Any] = {"s": raw}
    if who.name == BOOTSTRAP:
        payload["b"] = _bootstrap_id(settings)
    response.set_cookie(
        COOKIE,
        _serializer(request).dumps(payload),
        max_age=int(hours * 3600),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )


def sign_out(request: Request, settings: Settings, response: Response) -> None:
    """Revoke the session server-side and remove the cookie."""
    ctx = context_of(request.app)
    found = _cookie(request, settings)
    if found is not None:
        with Session(ctx.engine) as session:
            operators.close_session(session, found[0], now=ctx.clock())
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")


def _forbidden(who: Identity, role: str) -> HTTPException:
    return HTTPException(
        status.HTTP_403_FORBIDDEN, f"'{who.name}' is a {who.role}: this needs the {role} role"
    )


def operator_read(request: Request, settings: Annotated[Settings, Depends(get_settings)]) -> Identity:
    """Reads (any role): the bearer token or the console session cookie."""
    if not enabled(request, settings):
        raise _disabled()
    who = bearer_identity(request, settings) or cookie_identity(request, settings)
    if who is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "operator token required", headers={"WWW-Authenticate": "Bearer"}
        )
    return who


def _bearer_with(request: Request, settings: Settings, role: str) -> str:
    if not enabled(request, settings):
        raise _disabled()
    who = bearer_identity(request, settings)
    if who is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "operator token required", headers={"WWW-Authenticate": "Bearer"}
        )
    if not who.can(role):
        raise _forbidden(who, role)
    return who.name


def require_operator(request: Request, settings: Annotated[Settings, Depends(get_settings)]) -> str:
    """JSON routes that change state: a bearer token with at least the operator role; returns the actor."""
    return _bearer_with(request, settings, "operator")


def require_admin(request: Request, settings: Annotated[Settings, Depends(get_settings)]) -> str:
    """JSON routes that manage operators: a bearer token with the admin role; returns the actor."""
    return _bearer_with(request, settings, "admin")


def check_form_post(request: Request, settings: Settings, csrf: str, role: str = "operator") -> str:
    """A state-changing console form: a live session with `role`, same-origin, matching CSRF; the actor."""
    if not enabled(request, settings):
        raise _disabled()
    found = _cookie(request, settings)
    if found is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "sign in to the operator console first")
    if not same_origin(request):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "cross-site request refused")
    if not hmac.compare_digest(csrf.encode(), csrf_token(request, settings).encode()):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "bad or missing CSRF token: reload the page")
    if not found[1].can(role):
        raise _forbidden(found[1], role)
    return found[1].name


def page_gate(request: Request, settings: Settings) -> tuple[dict[str, Any] | None, Identity | None]:
    """For a console page: (context of the page that replaces it, None) when operator routes are disabled or
    the visitor must sign in; (None, identity) for a signed-in operator."""
    if not enabled(request, settings):
        return {"disabled": True}, None
    who = cookie_identity(request, settings)
    return ({"signin": True}, None) if who is None else (None, who)


OperatorReadDep = Annotated[Identity, Depends(operator_read)]
OperatorDep = Annotated[str, Depends(require_operator)]
AdminDep = Annotated[str, Depends(require_admin)]
