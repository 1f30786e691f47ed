"""Dependencies shared by the routers: settings, database sessions, the operator token check."""

from __future__ import annotations

import hmac
import math
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request, status
from sqlalchemy import Engine
from sqlmodel import Session

from arena.settings import Settings
from prompts_taxonomy import Taxonomy

# A database row id in a path. Id columns are 32-bit INTEGER on PostgreSQL, so anything larger is a 422 here
# rather than an "integer out of range" from the database.
RowId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A row id.")]


def get_settings(request: Request) -> Settings:
    """The settings the app was built with."""
    return request.app.state.settings


def get_engine(request: Request) -> Engine:
    """The app's database engine."""
    return request.app.state.engine


def get_taxonomy(request: Request) -> Taxonomy:
    """The taxonomy loaded at start-up."""
    return request.app.state.taxonomy


def get_session(engine: Annotated[Engine, Depends(get_engine)]) -> Iterator[Session]:
    """A short-lived session per request, closed afterwards."""
    with Session(engine) as session:
        yield session


def token_matches(request: Request, settings: Settings, presented: str) -> bool:
    """Whether `presented` is the operator token. Wrong tokens are counted per client address; an address over
    ARENA_OPERATOR_TOKEN_ATTEMPTS_PER_MINUTE gets 429 without its token being checked, so guessing is slow and a
    lucky guess during the lock-out is not confirmed."""
    limiter = request.app.state.operator_attempts
    address = request.app.state.sessions.client_address(request)
    wait = limiter.wait(address)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"too many wrong operator tokens from this address: retry in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
    ok = bool(settings.operator_token) and hmac.compare_digest(
        presented.strip().encode(), settings.operator_token.encode()
    )
    if not ok:
        limiter.take(address)
    return ok


def bearer_ok(request: Request, settings: Settings) -> bool:
    """Whether the request carries `Authorization: Bearer <operator token>` (a wrong one counts as a guess)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return (
        bool(settings.operator_token)
        and scheme.lower() == "bearer"
        and token_matches(request, settings, token)
    )


def require_operator(request: Request, settings: Annotated[Settings, Depends(get_settings)]) -> str:
    """Allow the request only with `Authorization: Bearer <ARENA_OPERATOR_TOKEN>`; return the actor name."""
    if not settings.operator_token:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, "operator routes are disabled: set ARENA_OPERATOR_TOKEN"
        )
    if not bearer_ok(request, settings):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "operator token required", headers={"WWW-Authenticate": "Bearer"}
        )
    return "operator"


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
TaxonomyDep = Annotated[Taxonomy, Depends(get_taxonomy)]
OperatorDep = Annotated[str, Depends(require_operator)]
