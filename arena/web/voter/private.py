"""The page of a private matchup set (`/private/{token}`): an eval run's two outputs of one case, blind, left and
right drawn at random, images through the arena's served encoder; a plain form posts the vote, and only then are
the model runs named. Votes go to the private-set tables (arena.evals.private_set), never to the public votes."""

from __future__ import annotations

import secrets
from typing import Literal

from fastapi import APIRouter, Depends, Form, HTTPException, Request, Response
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from arena.db.private_tables import PrivateSet
from arena.evals.private_set import PrivateSetError, find_set, next_showing, record_vote, showing_image
from arena.media.store import normalize_image
from arena.media.variants import FULL_SIZE, serve_variant
from arena.web.context import context_of
from arena.web.voter.routes import IMAGE_HEADERS, same_origin

router = APIRouter(tags=["private sets"])
_rng = secrets.SystemRandom()
PAGE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}


def _set(request: Request, token: str) -> PrivateSet:
    found = find_set(context_of(request.app).engine, token)
    if found is None:
        raise HTTPException(404, "no such private set")
    return found


def _voter(request: Request) -> tuple[str, str | None]:
    """(voter id, new id to set as the arena's session cookie or None)."""
    current = context_of(request.app).sessions.read(request)
    if current:
        return current, None
    new = context_of(request.app).sessions.new_id()
    return new, new


def _limit(request: Request) -> None:
    ctx = context_of(request.app)
    wait = ctx.address_limiter.take(ctx.sessions.client_address(request))
    if wait > 0:
        raise HTTPException(429, "too many requests; slow down", headers={"Retry-After": str(int(wait) + 1)})


@router.get("/private/{token}", response_class=HTMLResponse, include_in_schema=False)
def private_page(token: str, request: Request) -> Response:
    """The next blind pair of the set for this voter (or a thank-you when every pair is voted)."""
    _limit(request)
    ctx = context_of(request.app)
    pset = _set(request, token)
    voter, new = _voter(request)
    showing = next_showing(ctx.engine, pset, voter, _rng)
    response = ctx.templates.TemplateResponse(
        request,
        "private_set.html",
        {"token": token, "showing": showing, "reveal": None},
        headers=PAGE_HEADERS,
    )
    if new is not None:
        ctx.sessions.set_cookie(response, request, new)
    return response


def _image_bytes(request: Request, token: str, showing_id: str, side: str) -> bytes:
    ctx = context_of(request.app)
    voter = ctx.sessions.read(request) or ""
    try:
        path = showing_image(ctx.engine, _set(request, token), showing_id, voter, side)
        return serve_variant(normalize_image(path.read_bytes()), FULL_SIZE)
    except PrivateSetError as exc:
        raise HTTPException(exc.status, str(exc)) from None
    except OSError:
        raise HTTPException(404, "no such image") from None


@router.get("/private/{token}/img/{showing_id}/{side}", include_in_schema=False)
async def private_image(
    token: str, showing_id: str, side: Literal["left", "right"], request: Request
) -> Response:
    """One side of this voter's open showing, encoded as the arena serves matchup images; 404 after the vote."""
    data = await run_in_threadpool(_image_bytes, request, token, showing_id, side)
    return Response(data, media_type="image/png", headers=IMAGE_HEADERS)


@router.post(
    "/private/{token}/vote",
    response_class=HTMLResponse,
    dependencies=[Depends(same_origin)],
    include_in_schema=False,
)
def private_vote(
    token: str,
    request: Request,
    showing: str = Form(min_length=8, max_length=32),
    choice: str = Form(max_length=8),
) -> Response:
    """Record the vote on this voter's showing, then name the model run on each side."""
    _limit(request)
    ctx = context_of(request.app)
    pset = _set(request, token)
    voter = ctx.sessions.read(request)
    if voter is None:
        raise HTTPException(403, "no voter session: load the page first")
    try:
        reveal = record_vote(ctx.engine, pset, showing, voter, choice)
    except PrivateSetError as exc:
        raise HTTPException(exc.status, str(exc)) from None
    return ctx.templates.TemplateResponse(
        request, "private_set.html", {"token": token, "showing": None, "reveal": reveal}, headers=PAGE_HEADERS
    )
