"""K-wise routes (issue 31, opt-in with ARENA_KWISE): a "Rank four" matchup, its vote (an order of the screen
positions, or all about equal) with the reveal, and the edit reference. They mirror the pairwise routes
(`arena.web.voter.routes`): same session cookie, rate limits, same-origin check and image route (/img/<token>);
while the mode is off every one of them answers 404."""

from __future__ import annotations

import time

import numpy as np
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from arena.voting.kwise_service import KwiseService
from arena.voting.service_types import VoteError
from arena.web.context import context_of
from arena.web.voter.routes import (
    MatchupRequest,
    _admit,
    _answer_image,
    _json,
    _raise,
    _reference_bytes,
    _size_class,
    same_origin,
)

router = APIRouter(tags=["arena"])
OFF = "K-wise battles are off on this arena (ARENA_KWISE)"


class KwiseVoteRequest(BaseModel):
    """A ranking of a served K-wise matchup: `order` lists the screen positions (0-based) best first, or
    `all_equal` says the images are all about equal."""

    model_config = ConfigDict(extra="forbid")
    matchup_id: str = Field(min_length=8, max_length=64)
    order: list[int] | None = Field(default=None, max_length=8, description="Screen positions, best first.")
    all_equal: bool = False
    seconds_to_decide: float | None = Field(
        default=None,
        ge=0,
        le=86_400,
        description="The page's own measure of the time to decide (informative).",
    )
    nonce: str = Field(
        default="", max_length=32, description="Proof-of-work nonce for the matchup's challenge."
    )
    website: str = Field(default="", max_length=200, description="Leave empty.")


def _kwise(request: Request) -> KwiseService:
    service = context_of(request.app).kwise
    if service is None:
        raise HTTPException(404, OFF)
    return service


@router.post("/api/v1/kwise/matchups", dependencies=[Depends(same_origin)], response_model=dict)
async def new_kwise_matchup(body: MatchupRequest, request: Request) -> Response:
    """A blind K-wise matchup: prompt, hints, K image URLs of K distinct models in random positions, and the
    vote's proof-of-work challenge. 404 while ARENA_KWISE is off."""
    service = _kwise(request)
    ctx = context_of(request.app)

    def work() -> tuple[dict, str | None]:
        voter, new = _admit(request, new_session=True)
        try:
            return service.serve(voter, body.modality, np.random.default_rng(), ctx.clock()), new
        except VoteError as exc:
            _raise(exc)

    payload, new_session = await run_in_threadpool(work)
    response = _json(payload)
    if new_session is not None:
        ctx.sessions.set_cookie(response, request, new_session)
    return response


@router.post("/api/v1/kwise/votes", dependencies=[Depends(same_origin)], response_model=dict)
async def kwise_vote(body: KwiseVoteRequest, request: Request) -> Response:
    """Record an order (or all about equal) on a K-wise matchup served to this session, then reveal the models
    by position (when the vote counts)."""
    service = _kwise(request)
    ctx = context_of(request.app)

    def work() -> dict:
        voter, _ = _admit(request, new_session=False)
        try:
            return service.cast(
                voter,
                body.matchup_id,
                body.order,
                body.all_equal,
                ctx.clock(),
                nonce=body.nonce,
                honeypot=body.website,
                client_seconds=body.seconds_to_decide,
            )
        except VoteError as exc:
            _raise(exc)

    return _json(await run_in_threadpool(work))


@router.get("/api/v1/kwise/matchups/{matchup_id}/reference", include_in_schema=False)
async def kwise_reference(matchup_id: str, request: Request, size: int | None = None) -> Response:
    """The reference image of an edit K-wise matchup, encoded like the outputs."""
    started = time.perf_counter()
    service = _kwise(request)
    side = _size_class(size)
    data = await run_in_threadpool(_reference_bytes, request, matchup_id, side, service.reference_for)
    return await _answer_image(started, data)
