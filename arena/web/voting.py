"""Matchup and vote routes, per-matchup image URLs, and the request guards around them (voter session,
same-origin check on state-changing requests, rate limits per session and per client address)."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable
from typing import Any, Literal, NoReturn, TypeVar

import numpy as np
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from arena.db.tables import ReferenceImage
from arena.media import SERVED_MEDIA_TYPE, normalize_image
from arena.served import serve_variant
from arena.voting.service import VoteError, Voter
from arena.web.media import NO_STORE

router = APIRouter(tags=["arena"])
T = TypeVar("T")
#: Threads that run the matchup and vote requests' blocking work (`create_app` makes the executor). A few
#: threads keep the database busy; dozens (Starlette's default pool has 40) only fight over the GIL.
VOTE_THREADS = 8


class MatchupRequest(BaseModel):
    """Ask for the next matchup of a modality."""

    model_config = ConfigDict(extra="forbid")
    modality: Literal["text_to_image", "image_editing"] = "text_to_image"


class VoteRequest(BaseModel):
    """A vote on a served matchup."""

    model_config = ConfigDict(extra="forbid")
    matchup_id: str = Field(min_length=8, max_length=64)
    choice: Literal["left", "right", "tie", "both_bad"]
    nonce: str = Field(
        default="", max_length=32, description="Proof-of-work nonce for the matchup's challenge."
    )
    website: str = Field(default="", max_length=200, description="Leave empty.")


async def same_origin(request: Request) -> None:
    """Refuse state-changing requests that a browser marks as coming from another site. (Async: a plain
    function dependency would cost a thread hop per request for a header check.)"""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in {"same-origin", "none"}:
        raise HTTPException(403, "cross-origin requests are refused")
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        own = f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}"
        if origin.rstrip("/") != own:
            raise HTTPException(403, "cross-origin requests are refused")
    elif origin == "null":
        raise HTTPException(403, "cross-origin requests are refused")


def _limit(request: Request, session_id: str | None) -> str:
    state = request.app.state
    address = state.sessions.client_address(request)
    for limiter, key in ((state.address_limiter, address), (state.session_limiter, session_id)):
        if key is None:
            continue
        wait = limiter.take(key)
        if wait > 0:
            raise HTTPException(
                429, "too many requests; slow down", headers={"Retry-After": str(int(wait) + 1)}
            )
    return state.sessions.address_hash(address)


def _raise(exc: VoteError) -> NoReturn:
    raise HTTPException(exc.status, exc.message) from None


async def _in_thread(request: Request, fn: Callable[..., T], *args: Any) -> T:
    """Run the blocking part of a vote-path request (rate limits, which may ask Redis; the database) on the
    app's vote-path threads, with this request's context variables (request id, audit source)."""
    context = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(request.app.state.vote_threads, context.run, fn, *args)


def _json(payload: dict) -> JSONResponse:
    return JSONResponse(payload, headers={"Cache-Control": "no-store"})


def _serve(request: Request, modality: str) -> tuple[dict, str | None]:
    """The matchup and, when the request had no valid session cookie, the new session id to set."""
    state = request.app.state
    session_id = state.sessions.read(request)
    new = None if session_id else state.sessions.new_id()
    client_hash = _limit(request, session_id or new)
    rng = np.random.default_rng()
    try:
        payload = state.arena.serve_matchup(
            Voter(session_id or new, client_hash), modality, rng, state.clock()
        )
    except VoteError as exc:
        _raise(exc)
    return payload, new


@router.post(
    "/api/v1/matchups",
    dependencies=[Depends(same_origin)],
    response_model=dict,
    responses={
        503: {
            "description": "No matchups yet (fewer than two active models with outputs for a prompt of this "
            "modality), busy, or the database is unreachable."
        }
    },
)
async def new_matchup(body: MatchupRequest, request: Request) -> Response:
    """A blind matchup: prompt, hints, two image URLs (left/right random), and the vote's proof-of-work challenge."""
    payload, new_session = await _in_thread(request, _serve, request, body.modality)
    response = _json(payload)
    if new_session is not None:
        request.app.state.sessions.set_cookie(response, request, new_session)
    return response


def _cast(request: Request, body: VoteRequest) -> dict:
    state = request.app.state
    session_id = state.sessions.read(request)
    if session_id is None:
        raise HTTPException(403, "no voter session: load a matchup first")
    client_hash = _limit(request, session_id)
    try:
        return state.arena.cast_vote(
            Voter(session_id, client_hash),
            body.matchup_id,
            body.choice,
            state.clock(),
            nonce=body.nonce,
            honeypot=body.website,
        )
    except VoteError as exc:
        _raise(exc)


@router.post("/api/v1/votes", dependencies=[Depends(same_origin)], response_model=dict)
async def vote(body: VoteRequest, request: Request) -> Response:
    """Record a vote on a matchup served to this session, then reveal both models."""
    return _json(await _in_thread(request, _cast, request, body))


#: Served matchup images are answered on multiples of this many seconds (see `matchup_image`).
TIME_QUANTUM = 0.025


@router.get("/img/{token}", include_in_schema=False)
def matchup_image(token: str, request: Request) -> Response:
    """One side of an open matchup, for the session it was served to, as a fresh per-serve variant of fixed
    size; anything else (another session, after the vote, after expiry) is a 404."""
    started = time.perf_counter()
    state = request.app.state
    media_id = state.arena.fetch_image(token, state.sessions.read(request), state.clock())
    path = state.media.served_path(media_id) if media_id else None
    if path is None:
        raise HTTPException(404, "no such image")
    data = serve_variant(path.read_bytes(), state.settings.served_image_bytes)
    # Re-encoding time depends on the picture, hence on the model (17.0 to 18.4 ms medians over the sandbox
    # models): answer on a multiple of TIME_QUANTUM so the response time does not say which model drew it.
    elapsed = time.perf_counter() - started
    time.sleep(TIME_QUANTUM - elapsed % TIME_QUANTUM)
    return Response(data, media_type=SERVED_MEDIA_TYPE, headers=NO_STORE)


@router.get("/api/v1/matchups/{matchup_id}/reference", include_in_schema=False)
def matchup_reference(matchup_id: str, request: Request) -> Response:
    """The normalized reference image of an edit matchup (same for both sides)."""
    state = request.app.state
    ref_id = state.arena.reference_for(matchup_id, state.sessions.read(request))
    if ref_id is None:
        raise HTTPException(404, "no such image")
    cache: dict[int, bytes] = state.reference_cache
    if ref_id not in cache:
        with Session(state.engine) as session:
            ref = session.get(ReferenceImage, ref_id)
            if ref is None:
                raise HTTPException(404, "no such image")
            cache[ref_id] = normalize_image((state.settings.media_dir / ref.path).read_bytes())
    return Response(cache[ref_id], media_type=SERVED_MEDIA_TYPE, headers=NO_STORE)
