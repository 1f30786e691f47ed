"""The model API under /api/v1: one model's ratings on every board, records, timing and examples, read from
stored snapshots (the boards themselves are in `arena.web.leaderboard.api`)."""

from __future__ import annotations

from fastapi import APIRouter

from arena.leaderboard import ModelDetail
from arena.leaderboard.examples import Example
from arena.web.leaderboard.api import difference_out, settle_chance_of
from arena.web.leaderboard.common import NotFound, ReaderDep, api_not_found
from arena.web.leaderboard.schemas import (
    BoardStandingOut,
    CellOut,
    DailyTimingOut,
    ExampleOut,
    ModelOut,
    OpponentOut,
    TimingOut,
)

router = APIRouter(prefix="/api/v1", tags=["leaderboard"])


def example_out(e: Example) -> ExampleOut:
    """One example matchup as the API publishes it (the model page's and the head-to-head's)."""
    return ExampleOut(
        won=e.won,
        prompt_id=e.prompt_id,
        prompt=e.prompt_text,
        use_case=e.use_case,
        capability=e.capability,
        opponent=e.opponent,
        image_url=f"/media/{e.media_id}",
        opponent_image_url=f"/media/{e.opponent_media_id}",
    )


def model_out(detail: ModelDetail) -> ModelOut:
    """A model page as the API publishes it."""
    info, timing = detail.info, detail.timing
    snapshot = detail.snapshot
    settle_chance = settle_chance_of(snapshot.params if snapshot else None)
    return ModelOut(
        slug=info.slug,
        display_name=info.display_name,
        organization=info.organization,
        modality=info.modality,
        endpoint_kind=info.endpoint_kind,
        cohort=info.cohort,
        price_per_1000_images_usd=info.price_per_1000,
        release_date=info.release_date,
        active=info.active,
        snapshot_created_at=snapshot.created_at if snapshot else None,
        includes_simulated_votes=bool(snapshot and snapshot.params.get("include_simulated")),
        boards=[
            BoardStandingOut(
                board=s.board,
                board_name=s.label,
                rating=s.entry.rating,
                ci_low=s.entry.ci_low,
                ci_high=s.entry.ci_high,
                rank=s.entry.rank,
                rated=s.entry.rated,
                unrated_reason=s.entry.unrated_reason,
                above=list(s.entry.above) if s.entry.above is not None else None,
                models_on_board=s.models_on_board,
                votes=s.entry.votes,
                wins=s.entry.wins,
                losses=s.entry.losses,
                ties=s.entry.ties,
                provisional=s.entry.provisional,
                anchor=s.anchor,
                anchor_difference=difference_out(s.anchor_difference),
                p_best=s.entry.p_best,
                p_top3=s.entry.p_top3,
                settled_below=s.entry.settled_below,
                votes_to_settle=s.entry.votes_to_settle,
                settle_probability=None if s.entry.settled_below is None else settle_chance,
            )
            for s in detail.standings
        ],
        opponents=[
            OpponentOut(
                opponent=slug,
                opponent_name=detail.names.get(slug, slug),
                votes=r.votes,
                wins=r.wins,
                losses=r.losses,
                ties=r.ties,
                win_rate=r.win_rate,
            )
            for slug, r in detail.opponents
        ],
        cells=[
            CellOut(
                use_case=u,
                capability=c,
                votes=r.votes,
                wins=r.wins,
                losses=r.losses,
                ties=r.ties,
                win_rate=r.win_rate,
            )
            for (u, c), r in sorted(detail.cells.items())
        ],
        generation_time=TimingOut(
            median_s=timing.stats.median,
            p05_s=timing.stats.p05,
            p25_s=timing.stats.p25,
            p75_s=timing.stats.p75,
            p95_s=timing.stats.p95,
            samples=timing.stats.samples,
            failures=timing.stats.failures,
            last_7_days_median_s=timing.recent_median,
            previous_7_days_median_s=timing.previous_median,
            daily=[
                DailyTimingOut(day=d.day, median_s=d.median, samples=d.samples, failures=d.failures)
                for d in timing.daily
            ],
        ),
        examples=[example_out(e) for e in detail.examples],
    )


@router.get("/models/{slug}", response_model=ModelOut)
def model(slug: str, reader: ReaderDep) -> ModelOut:
    """One model: ratings on every board, head-to-head records, per-cell records, generation time over the
    last 14 days, price, endpoint kind, cohort, and example matchups it won and lost."""
    detail = reader.model_detail(slug)
    if detail is None:
        raise api_not_found(NotFound(f"unknown model '{slug}'"))
    return model_out(detail)
