"""Matchup and vote routes, per-matchup image URLs, and the request guards around them (voter session,
same-origin check on state-changing requests, rate limits per session and per client address)."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar

import numpy as np
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from arena.db.tables import ReferenceImage
from arena.media.store import normalize_image
from arena.media.variants import FULL_SIZE, MEDIA_TYPE, SIZE_CLASSES, serve_variant
from arena.voting.service import VoteError, Voter, WouldWait
from arena.web.context import context_of
from arena.web.media import NO_STORE

if TYPE_CHECKING:
    from arena.voting.async_raw import AsyncRawPool

router = APIRouter(tags=["arena"])
T = TypeVar("T")
#: Threads that run the matchup and vote requests' blocking work (`create_app` makes the executor). A few
#: threads keep the database busy; dozens (Starlette's default pool has 40) only fight over the GIL.
VOTE_THREADS = 8
#: One generator per process for the matchup draws (seeded from the OS once; a fresh `default_rng()` per request
#: cost a SeedSequence and an entropy read every serve). numpy's generators lock their bit generator per call.
RNG = np.random.default_rng()


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


def _admit(request: Request, *, new_session: bool) -> tuple[Voter, str | None]:
    """The request's voter (its session; a new one when it has none and `new_session`) after the rate limits
    per client address and per session, and the new session id to set, if any. Decided once per request: a
    call retried on a vote thread (see `_run`) takes no second token."""
    admitted = getattr(request.state, "voter", None)
    if admitted is not None:
        return admitted
    ctx = context_of(request.app)
    session_id = ctx.sessions.read(request)
    if session_id is None and not new_session:
        raise HTTPException(403, "no voter session: load a matchup first")
    new = None if session_id else ctx.sessions.new_id()
    address = ctx.sessions.client_address(request)
    for limiter, key in ((ctx.address_limiter, address), (ctx.session_limiter, session_id or new)):
        wait = limiter.take(key)
        if wait > 0:
            raise HTTPException(
                429, "too many requests; slow down", headers={"Retry-After": str(int(wait) + 1)}
            )
    request.state.voter = (Voter(session_id or new, ctx.sessions.address_hash(address)), new)
    return request.state.voter


def _raise(exc: VoteError) -> NoReturn:
    raise HTTPException(exc.status, exc.message) from None


async def _run(
    request: Request, fn: Callable[..., T], *args: Any, on_loop: Callable[..., Awaitable[T]] | None = None
) -> T:
    """Run the blocking part of a vote-path request (rate limits, which may ask Redis; the database).

    On SQLite without Redis it runs on the event loop: everything it waits for is in this process, and a
    thread hop per request cost more CPU than the vote itself (GIL hand-offs between the loop and the threads:
    about half the server CPU per pair in bench/bench_votepath.py). It is called with `wait=False`, so instead of
    waiting for SQLite's write lock held by another writer (a scheduler job, another process) or for a first
    pool load, it raises `WouldWait` with nothing stored, and the call is made again on a vote-path thread.
    On PostgreSQL without Redis, while the server's async pool is open (arena.web.vote_loop), `on_loop` runs
    it on the loop with async connections (again `WouldWait` before a first pool load sends it to a thread).
    Otherwise (PostgreSQL without the pool, Redis: blocking round trips) it runs on the app's vote-path
    threads, with this request's context variables (request id, audit source)."""
    ctx = context_of(request.app)
    db = ctx.arena.async_db
    if on_loop is not None and db is not None:
        try:
            return await on_loop(db, *args)
        except WouldWait:
            pass
    if ctx.vote_inline:
        try:
            return fn(*args, wait=False)
        except WouldWait:
            pass
    context = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(ctx.vote_threads, context.run, partial(fn, *args, wait=True))


def _json(payload: dict) -> JSONResponse:
    return JSONResponse(payload, headers={"Cache-Control": "no-store"})


def _serve(request: Request, modality: str, *, wait: bool) -> tuple[dict, str | None]:
    """The matchup and, when the request had no valid session cookie, the new session id to set."""
    ctx = context_of(request.app)
    voter, new = _admit(request, new_session=True)
    try:
        payload = ctx.arena.serve_matchup(voter, modality, RNG, ctx.clock(), wait=wait)
    except VoteError as exc:
        _raise(exc)
    return payload, new


async def _serve_on_loop(db: AsyncRawPool, request: Request, modality: str) -> tuple[dict, str | None]:
    """`_serve` with the async connections (PostgreSQL)."""
    ctx = context_of(request.app)
    voter, new = _admit(request, new_session=True)
    try:
        payload = await ctx.arena.serve_matchup_async(db, voter, modality, RNG, ctx.clock())
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
    payload, new_session = await _run(request, _serve, request, body.modality, on_loop=_serve_on_loop)
    response = _json(payload)
    if new_session is not None:
        context_of(request.app).sessions.set_cookie(response, request, new_session)
    return response


def _cast(request: Request, body: VoteRequest, *, wait: bool) -> dict:
    ctx = context_of(request.app)
    voter, _ = _admit(request, new_session=False)
    try:
        return ctx.arena.cast_vote(
            voter,
            body.matchup_id,
            body.choice,
            ctx.clock(),
            nonce=body.nonce,
            honeypot=body.website,
            wait=wait,
        )
    except VoteError as exc:
        _raise(exc)


async def _cast_on_loop(db: AsyncRawPool, request: Request, body: VoteRequest) -> dict:
    """`_cast` with the async connections (PostgreSQL)."""
    ctx = context_of(request.app)
    voter, _ = _admit(request, new_session=False)
    try:
        return await ctx.arena.cast_vote_async(
            db, voter, body.matchup_id, body.choice, ctx.clock(), nonce=body.nonce, honeypot=body.website
        )
    except VoteError as exc:
        _raise(exc)


@router.post("/api/v1/votes", dependencies=[Depends(same_origin)], response_model=dict)
async def vote(body: VoteRequest, request: Request) -> Response:
    """Record a vote on a matchup served to this session, then reveal both models."""
    return _json(await _run(request, _cast, request, body, on_loop=_cast_on_loop))


#: Served matchup images (and edit references) are answered on multiples of this many seconds after the request
#: arrived (see `_answer_image`).
IMAGE_DEADLINE = 0.1
#: Images must reach the browser as sent: no shared cache, and no proxy may compress or re-encode them (a
#: compressed payload's size would track the picture, hence the model).
IMAGE_HEADERS = {**NO_STORE, "Cache-Control": "no-store, no-transform"}


def _size_class(size: int | None) -> int:
    if size is None:
        return FULL_SIZE
    if size not in SIZE_CLASSES:
        raise HTTPException(422, f"size must be one of {', '.join(map(str, SIZE_CLASSES))}")
    return size


async def _answer_image(started: float, data: bytes) -> Response:
    """The image, answered on the next multiple of IMAGE_DEADLINE after `started`. The serve's work is the
    same for every picture (`arena.media.variants`: the decode is padded to a fixed CPU time, the rest does not depend
    on the content); the deadline also hides the rest of the request's jitter, so nearly every answer takes
    exactly one deadline, and an overloaded server answers on a later multiple."""
    elapsed = time.perf_counter() - started
    await asyncio.sleep(IMAGE_DEADLINE - elapsed % IMAGE_DEADLINE)
    return Response(data, media_type=MEDIA_TYPE, headers=IMAGE_HEADERS)


def _matchup_image_bytes(request: Request, token: str, side: int) -> bytes:
    ctx = context_of(request.app)
    session_id = ctx.sessions.read(request)
    media_id = ctx.arena.fetch_image(token, session_id, ctx.clock())
    if media_id is None and ctx.kwise is not None:  # a K-wise image (only looked up when not a pairwise one)
        media_id = ctx.kwise.fetch_image(token, session_id, ctx.clock())
    path = ctx.media.served_path(media_id) if media_id else None
    if path is None:
        raise HTTPException(404, "no such image")
    return serve_variant(path.read_bytes(), side)


@router.get("/img/{token}", include_in_schema=False)
async def matchup_image(token: str, request: Request, size: int | None = None) -> Response:
    """One side of an open matchup, for the session it was served to, as a fresh per-serve PNG whose length is
    fixed by `size` (one of SIZE_CLASSES; 1024 without it); anything else (another session, after the vote,
    after expiry) is a 404."""
    started = time.perf_counter()
    side = _size_class(size)
    data = await run_in_threadpool(_matchup_image_bytes, request, token, side)
    return await _answer_image(started, data)


def _reference_bytes(
    request: Request,
    matchup_id: str,
    side: int,
    lookup: Callable[[str, str | None], int | None] | None = None,
) -> bytes:
    ctx = context_of(request.app)
    ref_id = (lookup or ctx.arena.reference_for)(matchup_id, ctx.sessions.read(request))
    if ref_id is None:
        raise HTTPException(404, "no such image")
    cache: dict[int, bytes] = ctx.reference_cache
    if ref_id not in cache:
        with Session(ctx.engine) as session:
            ref = session.get(ReferenceImage, ref_id)
            if ref is None:
                raise HTTPException(404, "no such image")
            cache[ref_id] = normalize_image((ctx.settings.media_dir / ref.path).read_bytes())
    return serve_variant(cache[ref_id], side)


@router.get("/api/v1/matchups/{matchup_id}/reference", include_in_schema=False)
async def matchup_reference(matchup_id: str, request: Request, size: int | None = None) -> Response:
    """The reference image of an edit matchup (same for both sides), encoded like the outputs."""
    started = time.perf_counter()
    side = _size_class(size)
    data = await run_in_threadpool(_reference_bytes, request, matchup_id, side)
    return await _answer_image(started, data)
