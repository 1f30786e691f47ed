"""`GET /api/v1/compare?a=&b=`: the head-to-head page as data (two models' record against each other in the
published votes), so readers and scripts get what /compare shows without scraping it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, Field

from arena.leaderboard import board_keys
from arena.leaderboard.boards import load_models
from arena.leaderboard.compare import HeadToHead, head_to_head
from arena.web.deps import TaxonomyDep
from arena.web.leaderboard.common import SLUG_PATTERN, ReaderDep
from arena.web.leaderboard.model_api import example_out
from arena.web.leaderboard.schemas import ExampleOut
from ratings.record import Record

router = APIRouter(prefix="/api/v1", tags=["leaderboard"])

Slug = Annotated[str, Query(pattern=SLUG_PATTERN, description="Model slug.")]


class RecordOut(BaseModel):
    """Model a's record against model b (ties count half in the win rate, as in the ratings)."""

    votes: int
    wins: int
    losses: int
    ties: int
    win_rate: float | None = Field(description="(wins + ties / 2) / votes; null without votes.")


class SliceRecordOut(RecordOut):
    """The record within one use case or capability."""

    slug: str


class HeadToHeadOut(BaseModel):
    """Model `a` against model `b`, everything from a's side, from the latest published overall board."""

    a: str
    b: str
    modality: str
    record: RecordOut
    win_rate_low: float | None = Field(description="Wilson interval of the win rate; null without votes.")
    win_rate_high: float | None
    level: float = Field(description="Confidence level of the interval (the board's).")
    expected_win_probability: float | None = Field(
        description="P(a beats b) from the published overall ratings; null when either is not on the board."
    )
    use_cases: list[SliceRecordOut]
    capabilities: list[SliceRecordOut]
    a_won: list[ExampleOut] = Field(description="Recent decided matchups a won against b.")
    b_won: list[ExampleOut] = Field(description="Recent decided matchups b won against a.")


def _record(rec: Record) -> dict[str, int | float | None]:
    return {
        "votes": rec.votes,
        "wins": rec.wins,
        "losses": rec.losses,
        "ties": rec.ties,
        "win_rate": rec.win_rate,
    }


def head_to_head_out(h: HeadToHead, modality: str) -> HeadToHeadOut:
    """The API's form of a head-to-head."""
    examples = [[example_out(e) for e in wins] for wins in (h.wins_a, h.wins_b)]
    return HeadToHeadOut(
        a=h.a,
        b=h.b,
        modality=modality,
        record=RecordOut(**_record(h.record)),
        win_rate_low=h.interval[0] if h.interval else None,
        win_rate_high=h.interval[1] if h.interval else None,
        level=h.level,
        expected_win_probability=h.expected,
        use_cases=[SliceRecordOut(slug=s, **_record(r)) for s, r in h.use_cases],
        capabilities=[SliceRecordOut(slug=s, **_record(r)) for s, r in h.capabilities],
        a_won=examples[0],
        b_won=examples[1],
    )


@router.get(
    "/compare",
    response_model=HeadToHeadOut,
    responses={
        400: {"description": "The same model twice, or two modalities."},
        404: {"description": "Unknown."},
    },
)
def compare(a: Slug, b: Slug, reader: ReaderDep, taxonomy: TaxonomyDep) -> HeadToHeadOut:
    """Two models of one modality against each other in the latest published votes: record, win rate with its
    interval, the win probability the ratings expect, records per use case and capability, matchups each won."""
    with reader.engine.connect() as conn:
        models = load_models(conn)
        for slug in (a, b):
            if slug not in models:
                raise HTTPException(404, f"unknown model '{slug}'")
        if a == b:
            raise HTTPException(400, "a and b are the same model: choose two different models")
        modality = models[a].modality
        if models[b].modality != modality:
            raise HTTPException(
                400, f"'{a}' is {modality} and '{b}' is {models[b].modality}: they never meet in a matchup"
            )
        overall = reader.snapshots.boards(conn, modality, board_keys(taxonomy)).get("overall")
        if overall is None:
            raise HTTPException(404, f"no published {modality} board yet (run `arena snapshot`)")
        return head_to_head_out(head_to_head(conn, overall, a, b), modality)
