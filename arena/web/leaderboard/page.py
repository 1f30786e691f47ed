"""The leaderboard page (/leaderboard), and the assembly of the leaderboard routers: the model pages, the
methodology page and the JSON/CSV API. The curated boards are read from stored snapshots, never fitted on a request;
two optional sections are fitted on the server: the K-wise board (ARENA_KWISE, at most every 30 s,
`arena.web.leaderboard.kwise`) and the "Open prompts" board (fitted from open votes on a page-cache miss)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import StringConstraints

from arena.evals.arena_grades import accuracy_texts
from arena.leaderboard import LeaderboardReader, board_keys, board_label
from arena.leaderboard.combined import Combined, combined_key, parse_combined
from arena.leaderboard.differences import NoDifferences
from arena.leaderboard.open_board import open_board
from arena.web.context import context_of
from arena.web.deps import TaxonomyDep
from arena.web.formatting import FMT
from arena.web.leaderboard import api as lb_api
from arena.web.leaderboard import compare, compare_api, methodology, model_page, open_api
from arena.web.leaderboard import history as lb_history
from arena.web.leaderboard import model_api as lb_model_api
from arena.web.leaderboard.charts import board_charts, slice_heatmap
from arena.web.leaderboard.common import (
    AnyBoardQuery,
    IncludeModifiedQuery,
    ModalityQuery,
    NotFound,
    OrderQuery,
    ReaderDep,
    SortQuery,
    cached_page,
    check_board,
    demo_preparing,
    page_not_found,
)
from arena.web.leaderboard.kwise import kwise_section
from arena.web.leaderboard.relative import ANCHOR, RelativeToQuery, relative
from arena.web.leaderboard.rows import chart_tables, difference_text, row_texts
from prompts_taxonomy import Taxonomy

router = APIRouter(tags=["leaderboard"])
router.include_router(lb_api.router)
router.include_router(lb_model_api.router)
router.include_router(model_page.router)
router.include_router(methodology.router)
router.include_router(compare.router)
router.include_router(compare_api.router)
router.include_router(lb_history.router)
router.include_router(open_api.router)

COLUMNS = [
    (
        "rank",
        "Rank",
        "1 + the number of listed models whose lead over this one is significant with all pairs of the board "
        "tested together (the simultaneous 95% interval of the rating difference is above zero).",
    ),
    ("model", "Model", ""),
    ("organization", "Organization", ""),
    ("rating", "Rating", "Bradley-Terry rating on an Elo-like scale; the anchor model reads 1000."),
    (
        None,
        "95% interval",
        "Interval of the rating on the board's centred scale (shifted so the anchor's estimate reads 1000), "
        "not of the gap to the anchor: the anchor has one too, and another anchor would shift all of them by "
        'one constant. For the gap, choose "Intervals relative to".',
    ),
    ("votes", "Votes", "Votes this model took part in on this board."),
    ("price", "Price / 1k images", "Provider price per image in USD x 1,000."),
    ("time", "Generation time", "Median over the last 14 days (p05-p95 below)."),
    ("kind", "Endpoint", "Standard: the native model; modified: distilled, quantized or otherwise altered."),
    ("release", "Released", ""),
    (
        None,
        "P(best)",
        "Probability that this model is the best, and in the top 3 (draws from the ratings shrunk for the "
        "winner's curse; methodology: certainty).",
    ),
]
DESCENDING_FIRST = {"rating", "votes", "release"}


def _url(path: str, **params: object) -> str:
    query = {k: v for k, v in params.items() if v not in (None, False, "")}
    return path + ("?" + urlencode(query) if query else "")


SlugQuery = Annotated[str | None, Query(pattern=r"^[a-z0-9_]{0,64}$")]


@router.get("/leaderboard", response_class=HTMLResponse, include_in_schema=False)
def leaderboard_page(
    request: Request,
    reader: ReaderDep,
    taxonomy: TaxonomyDep,
    modality: ModalityQuery = "text_to_image",
    board: AnyBoardQuery = "overall",
    include_modified: IncludeModifiedQuery = False,
    sort: SortQuery = "rank",
    order: OrderQuery = "asc",
    use_case: SlugQuery = None,
    capability: SlugQuery = None,
    style: Annotated[
        list[Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]{0,64}$")]] | None, Query()
    ] = None,
    relative_to: RelativeToQuery = None,
) -> HTMLResponse:
    """A tab per modality, a board selector, the table with sortable columns, charts and the slice heat map.
    `use_case`, `capability` and `style` (repeatable) ask for the board of their combination (one URL for a
    reader's question); without them, `board` names the board."""
    asked = combined_key(use_case, capability, style or [])
    if asked is not None:
        board = asked
    try:
        board = check_board(taxonomy, modality, board, combined=True)
    except NotFound as exc:
        return page_not_found(request, exc.message)
    return cached_page(
        request,
        reader,
        lambda: _render(
            request, reader, taxonomy, modality, board, include_modified, sort, order, relative_to or None
        ),
    )


def _render(
    request: Request,
    reader: LeaderboardReader,
    taxonomy: Taxonomy,
    modality: str,
    board: str,
    include_modified: bool,
    sort: str,
    order: str,
    relative_to: str | None = None,
) -> HTMLResponse:
    """Render the page from the stored boards (on a page-cache miss)."""
    view = reader.board_view(
        modality, board, include_modified=include_modified, sort=sort, descending=order == "desc"
    )
    state = {
        "modality": modality,
        "board": board,
        "include_modified": "true" if include_modified else None,
        "relative_to": relative_to,
    }
    rel, rel_problem = None, None
    if relative_to and view.published is not None:
        try:
            rel = relative(view.published, relative_to)
        except NoDifferences as exc:
            rel_problem = str(exc)

    def sort_url(key: str) -> str:
        if key == sort:
            direction = "asc" if order == "desc" else "desc"
        else:
            direction = "desc" if key in DESCENDING_FIRST else "asc"
        return _url("/leaderboard", **state, sort=key, order=direction)

    published = view.published
    anchor = published.params.get("anchor") if published else None
    charts = board_charts(view)
    top = sorted(view.rows, key=lambda r: (not r.rated, -r.rating))[: lb_history.HISTORY_CHART_MODELS]
    names = {r.model: r.display_name for r in view.rows}
    charts["history"] = lb_history.history_chart(
        reader.history(modality, board).for_models(r.model for r in top), names
    )
    context = {
        "view": view,
        "fmt": FMT,
        "modality": modality,
        "board": board,
        "include_modified": include_modified,
        "sort": sort,
        "order": order,
        "columns": COLUMNS,
        "sort_url": sort_url,
        "tabs": [
            (
                m.slug,
                m.name,
                _url("/leaderboard", modality=m.slug, include_modified=state["include_modified"]),
            )
            for m in taxonomy.modalities
        ],
        "board_groups": _board_groups(taxonomy, view.boards),
        "combine": _combine_options(taxonomy, board),
        "toggle_url": _url(
            "/leaderboard",
            modality=modality,
            board=board,
            include_modified=None if include_modified else "true",
            sort=sort if sort != "rank" else None,
            order=order if sort != "rank" else None,
            relative_to=relative_to,
        ),
        "csv_url": _url("/api/v1/leaderboard.csv", **state),
        "json_url": _url("/api/v1/leaderboard", **state),
        "anchor_name": view.models[anchor].display_name if anchor in view.models else anchor,
        "charts": charts,
        "chart_rows": chart_tables(charts),
        "rows": row_texts(
            view.rows,
            anchor=anchor,
            min_votes=published.params.get("min_votes") if published else None,
            board_votes=published.vote_count if published else None,
        ),
        "heatmap": slice_heatmap(view, taxonomy),
        "relative_to": relative_to or "",
        "relative": rel,
        "relative_problem": rel_problem,
        "relative_name": (
            (view.models[rel.reference].display_name if rel.reference in view.models else rel.reference)
            if rel
            else ""
        ),
        "relative_cells": (
            {r.model: difference_text(rel.differences.get(r.model)) for r in view.rows} if rel else {}
        ),
        "relative_options": [
            (ANCHOR, f"the anchor ({view.models[anchor].display_name if anchor in view.models else anchor})")
        ]
        + [(r.model, r.display_name) for r in view.rows if r.model != anchor],
        "simulated": bool(published and published.params.get("include_simulated")),
        "demo_preparing": demo_preparing(request),
        "text_accuracy": accuracy_texts(reader.engine) if modality == "text_to_image" else {},
        "kwise_board": kwise_section(request, modality),
        "open_board": _open_board(request, modality),
    }
    return context_of(request.app).templates.TemplateResponse(request, "leaderboard.html", context)


def _open_board(request: Request, modality: str) -> dict[str, object] | None:
    """The open-prompt board's overall table for the page's section (fitted on a page-cache miss; the page
    cache turns over with each snapshot), or None when no open battle was ever voted on."""
    ctx = context_of(request.app)
    with ctx.engine.connect() as conn:
        out = open_board(conn, ctx.settings, modality, "overall")
    return out if out["vote_count"] or out["untagged_votes"] else None


def _board_groups(
    taxonomy: Taxonomy, boards: Mapping[str, object]
) -> list[tuple[str, list[tuple[str, str, bool]]]]:
    """The board selector's options by group: (key, name, has a published board)."""
    options = [(k, board_label(taxonomy, k).split(": ", 1)[-1], k in boards) for k in board_keys(taxonomy)]
    return [
        ("", [o for o in options if o[0] == "overall"]),
        ("Use cases", [o for o in options if o[0].startswith("use_case=")]),
        ("Capabilities", [o for o in options if o[0].startswith("capability=")]),
    ]


def _combine_options(taxonomy: Taxonomy, board: str) -> dict[str, object]:
    """The combined-board form: each axis's options and what the current board selects on it."""
    filters = parse_combined(board) or Combined(
        board.partition("=")[2] if board.startswith("use_case=") else None,
        board.partition("=")[2] if board.startswith("capability=") else None,
    )
    return {
        "use_cases": [(u.slug, u.name) for u in taxonomy.use_cases],
        "capabilities": [(c.slug, c.name) for c in taxonomy.capabilities],
        "styles": [(x.slug, x.name) for x in taxonomy.styles],
        "use_case": filters.use_case or "",
        "capability": filters.capability or "",
        "style": filters.styles[0] if filters.styles else "",
    }
