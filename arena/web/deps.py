"""Dependencies shared by the routers (`ContextDep`, `SettingsDep`, `EngineDep`, `SessionDep`, ...), all read
from the app's one `AppContext`, and the wrong-token lock-out."""

from __future__ import annotations

import hmac
import math
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request, status
from sqlalchemy import Engine
from sqlmodel import Session

from arena.settings import Settings
from arena.web.context import AppContext, context_of
from prompts_taxonomy import Taxonomy

# A database row id in a path. Id columns are 32-bit INTEGER on PostgreSQL, so anything larger is a 422 here
# rather than an "integer out of range" from the database.
RowId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A row id.")]
# An open battle's id (URL-safe random token): anything else is a 422 here, never a NUL byte sent to PostgreSQL.
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
BattleId = Annotated[str, Path(pattern=TOKEN_PATTERN, description="An open battle's id.")]


async def get_context(request: Request) -> AppContext:
    """The app's context. (Async, as the getters below: a plain function dependency costs a thread hop.)"""
    return context_of(request.app)


async def get_settings(request: Request) -> Settings:
    """The settings the app was built with."""
    return context_of(request.app).settings


async def get_engine(request: Request) -> Engine:
    """The app's database engine."""
    return context_of(request.app).engine


async def get_taxonomy(request: Request) -> Taxonomy:
    """The taxonomy loaded at start-up."""
    return context_of(request.app).taxonomy


ContextDep = Annotated[AppContext, Depends(get_context)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
TaxonomyDep = Annotated[Taxonomy, Depends(get_taxonomy)]


def get_session(engine: EngineDep) -> Iterator[Session]:
    """A short-lived session per request, closed afterwards."""
    with Session(engine) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]


def check_locked_out(request: Request) -> None:
    """429 with Retry-After when this client address is over ARENA_OPERATOR_TOKEN_ATTEMPTS_PER_MINUTE wrong
    tokens: the token is then not checked at all, so a lucky guess during the lock-out is not confirmed."""
    context = context_of(request.app)
    wait = context.operator_attempts.wait(context.sessions.client_address(request))
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"too many wrong operator tokens from this address: retry in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )


def count_wrong_token(request: Request) -> None:
    """Record one wrong operator token from this client address."""
    context = context_of(request.app)
    context.operator_attempts.take(context.sessions.client_address(request))


def bootstrap_matches(settings: Settings, presented: str) -> bool:
    """Whether `presented` is the bootstrap ARENA_OPERATOR_TOKEN (compared as bytes, in constant time)."""
    return bool(settings.operator_token) and hmac.compare_digest(
        presented.strip().encode(), settings.operator_token.encode()
    )
