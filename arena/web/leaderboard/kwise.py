"""The K-wise board over HTTP (issue 31): GET /api/v1/kwise/board and the leaderboard page's K-wise section. The
board (`arena.leaderboard.kwise_board`) is recomputed at most every BOARD_SECONDS per modality and app; 404
while ARENA_KWISE is off."""

from __future__ import annotations

import threading
import time

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import JSONResponse

from arena.leaderboard.kwise_board import KwiseBoard, board_json, kwise_board
from arena.web.context import context_of
from arena.web.leaderboard.common import ModalityQuery

router = APIRouter(prefix="/api/v1", tags=["leaderboard"])
BOARD_SECONDS = 30.0
_cache: dict[tuple[int, str], tuple[float, KwiseBoard]] = {}
_lock = threading.Lock()


def kwise_section(request: Request, modality: str) -> KwiseBoard | None:
    """The modality's K-wise board (at most BOARD_SECONDS old), or None while ARENA_KWISE is off."""
    ctx = context_of(request.app)
    if not ctx.settings.kwise:
        return None
    if not ctx.taxonomy.has("modality", modality):
        raise HTTPException(404, f"unknown modality '{modality}'")
    key = (id(ctx.engine), modality)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and time.monotonic() - hit[0] < BOARD_SECONDS:
            return hit[1]
        board = kwise_board(ctx.engine, ctx.settings, modality, ctx.clock())
        _cache[key] = (time.monotonic(), board)
        return board


def forget_boards() -> None:
    """Drop every cached K-wise board (tests)."""
    with _lock:
        _cache.clear()


@router.get("/kwise/board", response_model=dict)
def kwise_board_api(request: Request, modality: ModalityQuery = "text_to_image") -> Response:
    """The K-wise ("Rank four") board of a modality: Plackett-Luce ratings of the kept K-wise votes on the
    pairwise board's scale, never pooled with the pairwise board; models in too few rankings are not yet rated."""
    board = kwise_section(request, modality)
    if board is None:
        raise HTTPException(404, "K-wise battles are off on this arena (ARENA_KWISE)")
    return JSONResponse(board_json(board), headers={"Cache-Control": "no-store"})
