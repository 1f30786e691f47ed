"""Leaderboard JSON API and CSV downloads under /api/v1 (read from stored snapshots; nothing is fitted); one
model's API is in `arena.web.leaderboard.model_api`."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import Response

from arena.leaderboard import BoardView, PublishedBoard
from arena.leaderboard.differences import NoDifferences, NotOnBoard
from arena.web.deps import TaxonomyDep
from arena.web.leaderboard.common import (
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
from arena.web.leaderboard.relative import Relative, RelativeToQuery, relative
from arena.web.leaderboard.schemas import (
    DifferenceOut,
    LeaderboardOut,
    LeaderboardRowOut,
    RelativeToOut,
    SnapshotOut,
)
from ratings.differences import Difference

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
    "rated",
    "unrated_reason",
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
#: With `relative_to`: the difference from the reference model and its intervals.
CSV_DIFFERENCE_COLUMNS = [
    "difference",
    "difference_low",
    "difference_high",
    "difference_simultaneous_low",
    "difference_simultaneous_high",
]

#: What a row's ci_low/ci_high are (the API's `intervals` field; the page says the same).
INTERVALS = (
    "ci_low/ci_high: 95% interval of each rating on the board's centred scale (shifted so the anchor's estimate "
    "reads 1000); not an interval of the gap to the anchor. For that, use relative_to=anchor or a model slug."
)


def difference_out(d: Difference | None) -> DifferenceOut | None:
    """A difference from the reference model as the API publishes it."""
    if d is None:
        return None
    return DifferenceOut(
        estimate=d.estimate,
        low=d.low,
        high=d.high,
        simultaneous_low=d.simultaneous_low,
        simultaneous_high=d.simultaneous_high,
    )


def view_relative(view: BoardView, asked: str | None) -> Relative | None:
    """Differences from `asked` on the view's board: 422 when the model is not on it, 404 on an older board."""
    if asked is None:
        return None
    assert view.published is not None
    try:
        return relative(view.published, asked)
    except NotOnBoard as exc:
        raise HTTPException(422, str(exc)) from None
    except NoDifferences as exc:
        raise HTTPException(404, str(exc)) from None


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


def settle_chance_of(params: dict | None) -> float | None:
    """The chance a snapshot's `votes_to_settle` is quoted for (None on snapshots taken before that rule)."""
    value = (params or {}).get("settle_probability")
    return float(value) if value is not None else None


def leaderboard_out(view: BoardView, include_modified: bool, rel: Relative | None = None) -> LeaderboardOut:
    """A board view as the API publishes it (the view must have a snapshot), with differences from `rel`."""
    assert view.published is not None
    settle_chance = settle_chance_of(view.published.params)
    found = rel.differences if rel is not None else {}
    rows = [
        LeaderboardRowOut(
            rank=r.rank,
            published_rank=r.published_rank,
            rated=r.rated,
            unrated_reason=r.unrated_reason,
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
            difference=difference_out(found.get(r.model)),
        )
        for r in view.rows
    ]
    relative_out = None
    if rel is not None:
        info = view.models.get(rel.reference)
        relative_out = RelativeToOut(
            model=rel.reference,
            display_name=info.display_name if info else rel.reference,
            is_anchor=rel.reference == view.published.params.get("anchor"),
            level=rel.level,
            interval="per-pair",
            critical=rel.critical,
        )
    return LeaderboardOut(
        modality=view.modality,
        board=view.board,
        board_name=view.label,
        include_modified=include_modified,
        hidden_modified=view.hidden_modified,
        snapshot=snapshot_out(view.published),
        intervals=INTERVALS,
        relative_to=relative_out,
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
    relative_to: RelativeToQuery = None,
) -> LeaderboardOut:
    """The latest published board of a modality: ratings with 95% intervals, ranks, votes, price per 1,000
    images, generation time and endpoint facts. Modified endpoints are left out unless `include_modified`.
    With `at`, the board as of that time: the rows of the last snapshot taken at or before it, exactly as
    stored (model facts, prices and generation times are today's).

    A row's `ci_low`/`ci_high` is the interval of its rating on the board's centred scale, not of its gap to
    the anchor. With `relative_to` (a model slug, or `anchor`), each row also carries `difference`: its
    rating minus that model's, with the per-pair 95% interval of the difference and the simultaneous one."""
    view = _view(reader, taxonomy, modality, board, include_modified, sort, order, at)
    return leaderboard_out(view, include_modified, view_relative(view, relative_to))


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
    relative_to: RelativeToQuery = None,
) -> Response:
    """The same board as CSV (the columns of `/api/v1/leaderboard` rows; with `relative_to`, five more: the
    difference from that model and its per-pair and simultaneous interval ends)."""
    view = _view(reader, taxonomy, modality, board, include_modified, "rank", "asc")
    data = leaderboard_out(view, include_modified, view_relative(view, relative_to))
    out = io.StringIO()
    columns = CSV_COLUMNS + (CSV_DIFFERENCE_COLUMNS if relative_to else [])
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in data.rows:
        record = row.model_dump(exclude={"difference"})
        record["above"] = "" if row.above is None else ";".join(row.above)  # slugs, ';'-separated
        if relative_to:
            d = row.difference
            values = (
                (d.estimate, d.low, d.high, d.simultaneous_low, d.simultaneous_high) if d else (None,) * 5
            )
            record.update(zip(CSV_DIFFERENCE_COLUMNS, values, strict=True))
        writer.writerow({key: csv_cell(value) for key, value in record.items()})
    name = f"leaderboard-{modality}-{view.board.replace('=', '-').replace(',', '_')}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
