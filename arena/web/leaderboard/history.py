"""Ratings over time: `GET /api/v1/leaderboard/history` and the chart data of the history charts."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field, StringConstraints

from arena.leaderboard.history import BoardHistory
from arena.web.deps import TaxonomyDep
from arena.web.leaderboard.common import (
    SLUG_PATTERN,
    BoardQuery,
    ModalityQuery,
    NotFound,
    ReaderDep,
    api_not_found,
    check_board,
)

router = APIRouter(prefix="/api/v1", tags=["leaderboard"])

HISTORY_CHART_MODELS = 8


class HistoryPointOut(BaseModel):
    """One model's row in one snapshot."""

    created_at: datetime
    rating: float
    ci_low: float | None
    ci_high: float | None
    rank: int
    votes: int


class ChangeOut(BaseModel):
    """A snapshot computed differently from the one before it."""

    created_at: datetime
    what: str = Field(
        description="Methodology version, vote filters, current cohort, anchor or interval rule."
    )


class HistoryOut(BaseModel):
    """Every snapshot of a board, oldest first."""

    modality: str
    board: str
    snapshots: list[datetime]
    changes: list[ChangeOut]
    series: dict[str, list[HistoryPointOut]] = Field(description="Per model slug, its row in each snapshot.")


@router.get("/leaderboard/history", response_model=HistoryOut)
def leaderboard_history(
    reader: ReaderDep,
    taxonomy: TaxonomyDep,
    modality: ModalityQuery = "text_to_image",
    board: BoardQuery = "overall",
    model: Annotated[
        list[Annotated[str, StringConstraints(pattern=SLUG_PATTERN)]] | None,
        Query(description="Model slugs (repeatable); all when absent."),
    ] = None,
) -> HistoryOut:
    """Each model's rating, interval, rank and votes in every stored snapshot of a board, and the snapshots
    where the methodology, filters, cohort, anchor or interval rule changed (ratings across them compare
    with care)."""
    try:
        check_board(taxonomy, modality, board)
    except NotFound as exc:
        raise api_not_found(exc) from None
    history = reader.history(modality, board)
    if model:
        history = history.for_models(model)
    return HistoryOut(
        modality=modality,
        board=board,
        snapshots=history.times,
        changes=[ChangeOut(created_at=c.created_at, what=c.what) for c in history.changes],
        series={m: [HistoryPointOut(**p.__dict__) for p in points] for m, points in history.series.items()},
    )


def history_chart(history: BoardHistory, names: dict[str, str]) -> dict[str, Any]:
    """Chart data: one label per snapshot, per model its rating / low / high (null where absent), change marks."""
    labels = [t.strftime("%Y-%m-%d %H:%M") for t in history.times]
    index = {t: k for k, t in enumerate(history.times)}
    lines = []
    for model, points in history.series.items():
        rating: list[float | None] = [None] * len(labels)
        low: list[float | None] = [None] * len(labels)
        high: list[float | None] = [None] * len(labels)
        for p in points:
            k = index[p.created_at]
            rating[k], low[k], high[k] = round(p.rating, 1), p.ci_low, p.ci_high
        lines.append({"name": names.get(model, model), "rating": rating, "low": low, "high": high})
    changes = [{"at": index[c.created_at], "what": c.what} for c in history.changes]
    return {"labels": labels, "lines": lines, "changes": changes}
