"""`GET /api/v1/open/board`: the open-prompt board of a modality (`arena.leaderboard.open_board`), a board of
its own beside the curated ones, never pooled with them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query

from arena.leaderboard.open_board import open_board
from arena.web.deps import EngineDep, SettingsDep, TaxonomyDep
from arena.web.leaderboard.common import ModalityQuery

router = APIRouter(prefix="/api/v1", tags=["leaderboard"])

OpenBoardQuery = Annotated[
    str,
    Query(
        max_length=140,
        description="overall, use_case=SLUG or capability=SLUG (the tagger's slices; 404 when unknown).",
    ),
]


def open_board_payload(
    engine: Any, settings: Any, taxonomy: Any, modality: str, board: str
) -> dict[str, Any]:
    """The board as the API returns it; HTTPException 404 on an unknown modality or slice."""
    if not taxonomy.has("modality", modality):
        raise HTTPException(404, f"unknown modality {modality!r}")
    axis, sep, slug = board.partition("=")
    if board != "overall" and not (sep and axis in ("use_case", "capability") and taxonomy.has(axis, slug)):
        raise HTTPException(404, f"no open board {board!r}: use overall, use_case=SLUG or capability=SLUG")
    with engine.connect() as conn:
        return open_board(conn, settings, modality, board)


@router.get("/open/board")
def open_board_api(
    engine: EngineDep,
    settings: SettingsDep,
    taxonomy: TaxonomyDep,
    modality: ModalityQuery = "text_to_image",
    board: OpenBoardQuery = "overall",
) -> dict[str, Any]:
    """The open-prompt board: votes on voters' own prompts, generated live, fitted with the curated boards'
    Bradley-Terry model, interval method and not-yet-rated rule, but only on open votes (`pooled_with_curated`
    is always false). `slices` lists the tagged use cases and capabilities with their vote counts; a board
    with too few votes has no rows and a `note`."""
    return open_board_payload(engine, settings, taxonomy, modality, board)
