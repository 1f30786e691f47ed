"""Open-prompt battle routes: start a battle with the voter's own prompt (and reference), poll it, fetch its two
images (together, only once both exist), and vote. The same session cookie, same-origin check, proof of work,
online filters and image encoding as the curated arena; limits and the spend caps of their own."""

from __future__ import annotations

import base64
import binascii
import time
from typing import Literal

import numpy as np
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from arena.media.images import ImageRejected, open_image
from arena.media.variants import serve_variant
from arena.open_prompts.mode import OpenMode
from arena.open_prompts.service import day_of
from arena.voting.service_types import VoteError, Voter
from arena.web.context import context_of
from arena.web.deps import TOKEN_PATTERN, BattleId
from arena.web.voter.routes import _answer_image, _size_class, same_origin

router = APIRouter(tags=["open-prompt battles"])
START_PATH = "/api/v1/open/battles"


class StartRequest(BaseModel):
    """A new open battle: the voter's prompt, for editing a reference image (base64), and the corpus consent."""

    model_config = ConfigDict(extra="forbid")
    modality: Literal["text_to_image", "image_editing"] = "text_to_image"
    prompt: str = Field(min_length=1, max_length=4000)
    reference: str | None = Field(default=None, description="PNG, JPEG or WebP bytes, base64 (editing only).")
    consent: bool = Field(
        default=False, description="May this prompt join the anonymized live prompt corpus?"
    )
    website: str = Field(default="", max_length=200, description="Leave empty.")


class OpenVoteRequest(BaseModel):
    """A vote on a ready open battle."""

    model_config = ConfigDict(extra="forbid")
    battle_id: str = Field(pattern=TOKEN_PATTERN)
    choice: Literal["left", "right", "tie", "both_bad"]
    nonce: str = Field(default="", max_length=32)
    website: str = Field(default="", max_length=200, description="Leave empty.")


def _mode(request: Request) -> OpenMode:
    mode = context_of(request.app).open_mode
    if mode is None or not mode.battles.enabled():
        raise HTTPException(404, "open-prompt battles are switched off on this arena")
    return mode


def _json(payload: dict, status: int = 200) -> JSONResponse:
    return JSONResponse(payload, status_code=status, headers={"Cache-Control": "no-store"})


def _reference(body: StartRequest, limit: int) -> bytes | None:
    """The decoded reference (type- and size-checked; normalized later), required for edits only."""
    if body.modality == "text_to_image":
        if body.reference:
            raise HTTPException(422, "a reference image is for image editing only")
        return None
    if not body.reference:
        raise HTTPException(422, "image editing needs a reference image (PNG, JPEG or WebP)")
    raw = body.reference.split(",", 1)[1] if body.reference.startswith("data:") else body.reference
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise HTTPException(422, "the reference image is not valid base64") from None
    if len(data) > limit:
        raise HTTPException(413, f"the reference image is larger than {limit // 1_000_000} MB")
    try:
        open_image(data)
    except ImageRejected as exc:
        raise HTTPException(422, f"the reference image was refused: {exc}") from None
    return data


def _admit(request: Request, mode: OpenMode) -> tuple[Voter, str | None]:
    ctx = context_of(request.app)
    session_id = ctx.sessions.read(request)
    new = None if session_id else ctx.sessions.new_id()
    address = ctx.sessions.client_address(request)
    for limiter, key, who in (
        (mode.address_limiter, address, "this address"),
        (mode.session_limiter, session_id or new, "this browser"),
    ):
        wait = limiter.take(key)
        if wait > 0:
            raise HTTPException(
                429,
                f"{who} has started its open-prompt battles for now; try again in {int(wait) // 60 + 1} min",
                headers={"Retry-After": str(int(wait) + 1)},
            )
    return Voter(session_id or new, ctx.sessions.address_hash(address)), new


@router.post(START_PATH, dependencies=[Depends(same_origin)], status_code=202, response_model=dict)
async def start_battle(body: StartRequest, request: Request) -> Response:
    """Moderate the prompt, pick two anonymous models, reserve their price and start both generations; poll
    `GET /api/v1/open/battles/{id}` until it is `ready` (or ends)."""
    ctx = context_of(request.app)
    mode = _mode(request)
    prompt = " ".join(body.prompt.split())
    limit = ctx.settings.open_prompt_max_chars
    if not prompt:
        raise HTTPException(422, "type a prompt first")
    if len(prompt) > limit:
        raise HTTPException(422, f"prompts are limited to {limit} characters (this one has {len(prompt)})")
    if body.website:
        raise HTTPException(422, "leave the hidden field empty")
    reference = _reference(body, ctx.settings.open_reference_max_bytes)
    voter, new_session = await run_in_threadpool(_admit, request, mode)
    verdict = await mode.moderator.check(prompt)
    if not verdict.allowed:
        status = 503 if verdict.category == "unavailable" else 422
        response = _json(
            {"status": "refused", "detail": verdict.message, "category": verdict.category}, status
        )
    else:
        now = ctx.clock()
        try:
            battle_id, left, right = await run_in_threadpool(
                mode.battles.start,
                voter,
                body.modality,
                prompt,
                reference,
                body.consent,
                now,
                np.random.default_rng(),
            )
        except VoteError as exc:
            raise HTTPException(exc.status, exc.message) from None
        except ImageRejected as exc:
            raise HTTPException(422, f"the reference image was refused: {exc}") from None
        await run_in_threadpool(mode.battles.note_moderation, battle_id, verdict.record())
        sent = None
        if reference is not None:  # the providers get the normalized, metadata-free reference, as stored
            ref_id = mode.battles.reference(battle_id, voter.session_id)
            path = ctx.media.served_path(ref_id) if ref_id else None
            sent = path.read_bytes() if path is not None else None
        mode.runner.launch(battle_id, prompt, body.modality, sent, day_of(now), left, right)
        response = _json({"id": battle_id, "status": "generating"}, 202)
    if new_session is not None:
        ctx.sessions.set_cookie(response, request, new_session)
    return response


@router.get("/api/v1/open/battles/{battle_id}", response_model=dict)
async def battle_status(battle_id: BattleId, request: Request) -> Response:
    """The battle as the page may see it: generating (seconds elapsed), ready (both image URLs at once, the vote's
    challenge), or how it ended. No model and no side's own progress appear before the vote."""
    ctx = context_of(request.app)
    mode = context_of(request.app).open_mode
    if mode is None:
        raise HTTPException(404, "open-prompt battles are switched off on this arena")
    session_id = ctx.sessions.read(request)
    try:
        answer = await run_in_threadpool(mode.battles.status, battle_id, session_id, ctx.clock())
    except VoteError as exc:
        raise HTTPException(exc.status, exc.message) from None
    return _json(answer)


@router.post("/api/v1/open/votes", dependencies=[Depends(same_origin)], response_model=dict)
async def open_vote(body: OpenVoteRequest, request: Request) -> Response:
    """Record the vote on a ready open battle, then reveal both models (when the vote counts)."""
    ctx = context_of(request.app)
    mode = context_of(request.app).open_mode
    session_id = ctx.sessions.read(request)
    if mode is None or session_id is None:
        raise HTTPException(403, "no voter session: start a battle first")
    voter = Voter(session_id, ctx.sessions.address_hash(ctx.sessions.client_address(request)))
    try:
        answer = await run_in_threadpool(
            mode.battles.vote,
            voter,
            body.battle_id,
            body.choice,
            ctx.clock(),
            nonce=body.nonce,
            honeypot=body.website,
        )
    except VoteError as exc:
        raise HTTPException(exc.status, exc.message) from None
    return _json(answer)


def _image_bytes(request: Request, token: str, side: int, reference: bool) -> bytes:
    ctx = context_of(request.app)
    mode = ctx.open_mode
    session_id = ctx.sessions.read(request)
    if mode is None:
        raise HTTPException(404, "no such image")
    media_id = (
        mode.battles.reference(token, session_id)
        if reference
        else mode.battles.image(token, session_id, ctx.clock())
    )
    path = ctx.media.served_path(media_id) if media_id else None
    if path is None:
        raise HTTPException(404, "no such image")
    return serve_variant(path.read_bytes(), side)


@router.get("/open-img/{token}", include_in_schema=False)
async def open_image_route(token: str, request: Request, size: int | None = None) -> Response:
    """One side of a ready open battle, for its own session until the vote, encoded exactly like a curated
    matchup's image (a per-serve PNG of fixed length, answered on the deadline grid)."""
    started = time.perf_counter()
    data = await run_in_threadpool(_image_bytes, request, token, _size_class(size), False)
    return await _answer_image(started, data)


@router.get("/api/v1/open/battles/{battle_id}/reference", include_in_schema=False)
async def open_reference(battle_id: BattleId, request: Request, size: int | None = None) -> Response:
    """The normalized reference of an open edit battle, for its own session."""
    started = time.perf_counter()
    data = await run_in_threadpool(_image_bytes, request, battle_id, _size_class(size), True)
    return await _answer_image(started, data)
