"""Dependencies shared by the routers: settings, database sessions, the wrong-token lock-out."""

from __future__ import annotations

import hmac
import math
from collections.abc import Iterator
from typing import Annotated, Protocol

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


class AttemptCounter(Protocol):
    """Where wrong-token attempts are counted per client address (in-process buckets today; the interface
    lets a shared store such as Redis take its place): `wait` peeks, `take` records one failure."""

    def wait(self, key: str) -> float: ...

    def take(self, key: str) -> float: ...


def check_locked_out(request: Request) -> None:
    """429 with Retry-After when this client address is over ARENA_OPERATOR_TOKEN_ATTEMPTS_PER_MINUTE wrong
    tokens: the token is then not checked at all, so a lucky guess during the lock-out is not confirmed."""
    counter: AttemptCounter = request.app.state.operator_attempts
    wait = counter.wait(request.app.state.sessions.client_address(request))
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"too many wrong operator tokens from this address: retry in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )


def count_wrong_token(request: Request) -> None:
    """Record one wrong operator token from this client address."""
    counter: AttemptCounter = request.app.state.operator_attempts
    counter.take(request.app.state.sessions.client_address(request))


def bootstrap_matches(settings: Settings, presented: str) -> bool:
    """Whether `presented` is the bootstrap ARENA_OPERATOR_TOKEN (compared as bytes, in constant time)."""
    return bool(settings.operator_token) and hmac.compare_digest(
        presented.strip().encode(), settings.operator_token.encode()
    )


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
TaxonomyDep = Annotated[Taxonomy, Depends(get_taxonomy)]
