"""Operator sign-in for the HTML admin page: the operator token, typed once, becomes a signed cookie.

The cookie is HttpOnly, SameSite=Strict, scoped to the app, expires after 12 hours, and names a hash of the
current token (changing ARENA_OPERATOR_TOKEN signs everyone out). Forms that change state carry a CSRF
token derived from the cookie, and are refused when the browser says the request came from another site
(Sec-Fetch-Site, else Origin). Scripts keep using `Authorization: Bearer <token>` instead.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, HTTPException, Request, status
from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.responses import Response

from arena.settings import Settings
from arena.voting.sessions import resolve_secret
from arena.web.deps import bearer_ok, get_settings, token_matches

COOKIE = "arena_operator"
MAX_AGE = 12 * 3600


def _token_id(token: str) -> str:
    return hashlib.sha256(("operator:" + token).encode()).hexdigest()[:16]


def _secret(request: Request) -> str:
    """The app's secret (ARENA_SECRET_KEY or the generated one), read once per app."""
    state = request.app.state
    secret = getattr(state, "operator_secret", None)
    if secret is None:
        secret = state.operator_secret = resolve_secret(state.settings)
    return secret


def _serializer(request: Request) -> URLSafeTimedSerializer:
    """The cookie signer."""
    return URLSafeTimedSerializer(_secret(request), salt="arena-operator")


def cookie_nonce(request: Request, settings: Settings) -> str | None:
    """The signed-in operator's cookie nonce, or None (no cookie, bad signature, expired, old token)."""
    raw = request.cookies.get(COOKIE)
    if not raw or not settings.operator_token:
        return None
    try:
        data = _serializer(request).loads(raw, max_age=MAX_AGE)
    except BadSignature:
        return None
    if not isinstance(data, dict) or data.get("t") != _token_id(settings.operator_token):
        return None
    nonce = data.get("n")
    return nonce if isinstance(nonce, str) else None


def csrf_token(request: Request, nonce: str) -> str:
    """The CSRF token the admin forms carry, bound to the cookie's nonce."""
    key = ("arena-admin-csrf:" + _secret(request)).encode()
    return hmac.new(key, nonce.encode(), hashlib.sha256).hexdigest()


def same_origin(request: Request) -> bool:
    """Whether the browser says this request comes from our own pages (Sec-Fetch-Site, else Origin)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = request.headers.get("origin")
    if origin and origin != "null":
        return urlsplit(origin).netloc == request.headers.get("host", "")
    return True  # an old browser sending neither: the CSRF token and SameSite=Strict still hold


def sign_in(request: Request, response: Response, settings: Settings, token: str) -> bool:
    """Set the operator cookie when `token` is the operator token; False (and no cookie) otherwise."""
    if not settings.operator_token or not token_matches(request, settings, token):
        return False
    value = _serializer(request).dumps({"t": _token_id(settings.operator_token), "n": secrets.token_hex(16)})
    response.set_cookie(
        COOKIE,
        value,
        max_age=MAX_AGE,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )
    return True


def sign_out(response: Response) -> None:
    """Remove the operator cookie."""
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")


def _disabled(settings: Settings) -> None:
    if not settings.operator_token:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, "operator routes are disabled: set ARENA_OPERATOR_TOKEN"
        )


def operator_read(request: Request, settings: Annotated[Settings, Depends(get_settings)]) -> str:
    """Reads by an operator: the bearer token or the sign-in cookie."""
    _disabled(settings)
    if bearer_ok(request, settings) or cookie_nonce(request, settings) is not None:
        return "operator"
    raise HTTPException(
        status.HTTP_401_UNAUTHORIZED, "operator token required", headers={"WWW-Authenticate": "Bearer"}
    )


def check_form_post(request: Request, settings: Settings, csrf: str) -> str:
    """A state-changing admin form: a valid cookie, a matching CSRF token and a same-origin request."""
    _disabled(settings)
    nonce = cookie_nonce(request, settings)
    if nonce is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "sign in with the operator token first")
    if not same_origin(request):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "cross-site request refused")
    if not hmac.compare_digest(csrf, csrf_token(request, nonce)):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "bad or missing CSRF token: reload the admin page")
    return "operator"


OperatorReadDep = Annotated[str, Depends(operator_read)]

__all__ = [
    "COOKIE",
    "OperatorReadDep",
    "bearer_ok",
    "check_form_post",
    "cookie_nonce",
    "csrf_token",
    "operator_read",
    "same_origin",
    "sign_in",
    "sign_out",
]


def page_gate(request: Request, settings: Settings) -> tuple[dict[str, bool] | None, str | None]:
    """For an operator page: (context of the page that replaces it, None) when it is disabled (no token
    configured) or the visitor must sign in; (None, cookie nonce) for a signed-in operator."""
    if not settings.operator_token:
        return {"disabled": True}, None
    nonce = cookie_nonce(request, settings)
    return ({"signin": True}, None) if nonce is None else (None, nonce)
