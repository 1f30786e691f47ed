"""Leaderboard JSON API and CSV downloads under /api/v1 (read from stored snapshots; nothing is fitted)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from arena.leaderboard import BoardView, ModelDetail, PublishedBoard
from arena.web.deps import TaxonomyDep
from arena.web.lb_common import (
    AnyBoardQuery,
    IncludeModifiedQuery,
    ModalityQuery,
    NotFound,
    OrderQuery,
    ReaderDep,
    SortQuery,
    api_not_found,
    check_board,
)
from arena.web.lb_schemas import (
    BoardStandingOut,
    CellOut,
    DailyTimingOut,
    ExampleOut,
    LeaderboardOut,
    LeaderboardRowOut,
    ModelOut,
    OpponentOut,
    SnapshotOut,
    TimingOut,
)

router = APIRouter(prefix="/api/v1", tags=["leaderboard"])

AtQuery = Annotated[
    datetime | None,
    Query(
        description="ISO 8601 time (UTC when no offset): return the board of the last snapshot taken at or "
        "before it. Every snapshot is kept."
    ),
]

CSV_COLUMNS = [
    "rank",
    "published_rank",
    "model",
    "display_name",
    "organization",
    "rating",
    "ci_low",
    "ci_high",
    "above",
    "votes",
    "wins",
    "losses",
    "ties",
    "provisional",
    "price_per_1000_images_usd",
    "median_generation_s",
    "p05_generation_s",
    "p95_generation_s",
    "generation_samples",
    "endpoint_kind",
    "cohort",
    "release_date",
    "p_best",
    "p_top3",
    "settled_below",
    "votes_to_settle",
    "settle_probability",
]


def snapshot_out(board: PublishedBoard) -> SnapshotOut:
    """The snapshot part of a board's response."""
    return SnapshotOut(
        created_at=board.created_at,
        vote_count=board.vote_count,
        filter_version=board.filter_version,
        methodology_version=board.methodology_version,
        includes_simulated_votes=bool(board.params.get("include_simulated", False)),
        params=board.params,
    )


def _settle_chance(params: dict | None) -> float | None:
    """The chance a snapshot's `votes_to_settle` is quoted for (None on snapshots taken before that rule)."""
    value = (params or {}).get("settle_probability")
    return float(value) if value is not None else None


def leaderboard_out(view: BoardView, include_modified: bool) -> LeaderboardOut:
    """A board view as the API publishes it (the view must have a snapshot)."""
    assert view.published is not None
    settle_chance = _settle_chance(view.published.params)
    rows = [
        LeaderboardRowOut(
            rank=r.rank,
            published_rank=r.published_rank,
            model=r.model,
            display_name=r.display_name,
            organization=r.organization,
            rating=r.rating,
            ci_low=r.ci_low,
            ci_high=r.ci_high,
            above=list(r.above) if r.above is not None else None,
            votes=r.votes,
            wins=r.wins,
            losses=r.losses,
            ties=r.ties,
            provisional=r.provisional,
            price_per_1000_images_usd=r.price_per_1000,
            median_generation_s=r.median_s,
            p05_generation_s=r.p05_s,
            p95_generation_s=r.p95_s,
            generation_samples=r.latency_samples,
            endpoint_kind=r.endpoint_kind,
            cohort=r.cohort,
            release_date=r.release_date,
            p_best=r.p_best,
            p_top3=r.p_top3,
            settled_below=r.settled_below,
            votes_to_settle=r.votes_to_settle,
            settle_probability=None if r.settled_below is None else settle_chance,
        )
        for r in view.rows
    ]
    return LeaderboardOut(
        modality=view.modality,
        board=view.board,
        board_name=view.label,
        include_modified=include_modified,
        hidden_modified=view.hidden_modified,
        snapshot=snapshot_out(view.published),
        rows=rows,
    )


def _view(
    reader: ReaderDep,
    taxonomy: TaxonomyDep,
    modality: str,
    board: str,
    include_modified: bool,
    sort: str,
    order: str,
    at: datetime | None = None,
) -> BoardView:
    try:
        board = check_board(taxonomy, modality, board, combined=True)
    except NotFound as exc:
        raise api_not_found(exc) from None
    if at is not None and at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    view = reader.board_view(
        modality, board, include_modified=include_modified, sort=sort, descending=order == "desc", at=at
    )
    if view.published is None and view.problem:
        raise api_not_found(NotFound(f"no {modality} board '{board}': {view.problem}"))
    if view.published is None:
        when = f" at or before {at.isoformat()}" if at is not None else " yet"
        raise api_not_found(NotFound(f"no published snapshot for {modality} board '{board}'{when}"))
    return view


@router.get("/leaderboard", response_model=LeaderboardOut)
def leaderboard(
    reader: ReaderDep,
    taxonomy: TaxonomyDep,
    modality: ModalityQuery = "text_to_image",
    board: AnyBoardQuery = "overall",
    include_modified: IncludeModifiedQuery = False,
    sort: SortQuery = "rank",
    order: OrderQuery = "asc",
    at: AtQuery = None,
) -> LeaderboardOut:
    """The latest published board of a modality: ratings with 95% intervals, ranks, votes, price per 1,000
    images, generation time and endpoint facts. Modified endpoints are left out unless `include_modified`.
    With `at`, the board as of that time: the rows of the last snapshot taken at or before it, exactly as
    stored (model facts, prices and generation times are today's)."""
    view = _view(reader, taxonomy, modality, board, include_modified, sort, order, at)
    return leaderboard_out(view, include_modified)


FORMULA_START = ("=", "+", "-", "@")


def csv_cell(value: object) -> object:
    """A cell a spreadsheet will not run (OWASP CSV injection): text whose first non-whitespace character is
    = + - @ (spreadsheets skip leading spaces and line feeds before a formula) or that starts with a tab or a
    carriage return gets a leading apostrophe; model names and other free text reach these cells."""
    if not isinstance(value, str):
        return value
    if value[:1] in ("\t", "\r") or value.lstrip()[:1] in FORMULA_START:
        return "'" + value
    return value


@router.get(
    "/leaderboard.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}, "description": "The board as CSV, one model a line."}},
)
def leaderboard_csv(
    reader: ReaderDep,
    taxonomy: TaxonomyDep,
    modality: ModalityQuery = "text_to_image",
    board: AnyBoardQuery = "overall",
    include_modified: IncludeModifiedQuery = False,
) -> Response:
    """The same board as CSV (the columns of `/api/v1/leaderboard` rows)."""
    view = _view(reader, taxonomy, modality, board, include_modified, "rank", "asc")
    data = leaderboard_out(view, include_modified)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in data.rows:
        record = row.model_dump()
        record["above"] = "" if row.above is None else ";".join(row.above)  # slugs, ';'-separated
        writer.writerow({key: csv_cell(value) for key, value in record.items()})
    name = f"leaderboard-{modality}-{view.board.replace('=', '-').replace(',', '_')}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def model_out(detail: ModelDetail) -> ModelOut:
    """A model page as the API publishes it."""
    info, timing = detail.info, detail.timing
    snapshot = detail.snapshot
    settle_chance = _settle_chance(snapshot.params if snapshot else None)
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
                above=list(s.entry.above) if s.entry.above is not None else None,
                models_on_board=s.models_on_board,
                votes=s.entry.votes,
                wins=s.entry.wins,
                losses=s.entry.losses,
                ties=s.entry.ties,
                provisional=s.entry.provisional,
                anchor=s.anchor,
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
        examples=[
            ExampleOut(
                won=e.won,
                prompt_id=e.prompt_id,
                prompt=e.prompt_text,
                use_case=e.use_case,
                capability=e.capability,
                opponent=e.opponent,
                image_url=f"/media/{e.media_id}",
                opponent_image_url=f"/media/{e.opponent_media_id}",
            )
            for e in detail.examples
        ],
    )


@router.get("/models/{slug}", response_model=ModelOut)
def model(slug: str, reader: ReaderDep) -> ModelOut:
    """One model: ratings on every board, head-to-head records, per-cell records, generation time over the
    last 14 days, price, endpoint kind, cohort, and example matchups it won and lost."""
    detail = reader.model_detail(slug)
    if detail is None:
        raise api_not_found(NotFound(f"unknown model '{slug}'"))
    return model_out(detail)
