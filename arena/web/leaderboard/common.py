"""Shared pieces of the leaderboard routers: the per-app reader, query parameter types, 404 handling and
number formatting for templates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from fastapi import Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from arena.leaderboard import LeaderboardReader, board_keys
from arena.leaderboard.combined import check_combined, parse_combined
from arena.web.context import context_of
from prompts_taxonomy import Taxonomy

BOARD_PATTERN = r"^(overall|(use_case|capability)=[a-z0-9_]{1,64})$"
MODALITY_PATTERN = r"^[a-z0-9_]{1,32}$"
SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"  # a model slug (arena.generation.registry.SLUG)

ModalityQuery = Annotated[
    str, Query(pattern=MODALITY_PATTERN, description="text_to_image or image_editing (404 when unknown).")
]
BoardQuery = Annotated[
    str,
    Query(
        pattern=BOARD_PATTERN,
        description="overall, use_case=<slug> or capability=<slug> (404 when the slug is not in the taxonomy).",
    ),
]
_FILTER = r"(use_case|capability|style)=[a-z0-9_]{1,64}"
ANY_BOARD_PATTERN = rf"^(overall|{_FILTER}(,{_FILTER}){{0,7}})$"
AnyBoardQuery = Annotated[
    str,
    Query(
        pattern=ANY_BOARD_PATTERN,
        description="overall, use_case=<slug> or capability=<slug>; or a combined board fitted on request: "
        "filters joined by commas, e.g. use_case=marketing_advertising,capability=text_rendering or "
        "capability=text_rendering,style=photorealistic (404 when a slug is not in the taxonomy).",
    ),
]
IncludeModifiedQuery = Annotated[
    bool, Query(description="Also list modified endpoints (distilled, quantized, ...), labelled as such.")
]
SortQuery = Annotated[
    Literal["rank", "model", "organization", "rating", "votes", "price", "time", "kind", "release"],
    Query(description="Column to sort by."),
]
OrderQuery = Annotated[Literal["asc", "desc"], Query(description="Sort direction.")]


class NotFound(Exception):
    """An unknown modality, board or model: a 404 with a message for the reader."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def get_reader(request: Request) -> LeaderboardReader:
    """The app's leaderboard reader (it holds the snapshot and tally caches)."""
    return context_of(request.app).leaderboard_reader


ReaderDep = Annotated[LeaderboardReader, Depends(get_reader)]


def demo_preparing(request: Request) -> bool:
    """Whether `arena demo --serve` is still preparing the demo behind this server (boards may not exist yet;
    pages then say so instead of pointing at the snapshot command, and are not cached)."""
    progress = context_of(request.app).live.demo_progress
    return progress is not None and not progress.ready


def cached_page(
    request: Request, reader: LeaderboardReader, render: Callable[[], HTMLResponse]
) -> HTMLResponse:
    """Serve the page from the cache when the URL and the data are unchanged; render and keep it otherwise.

    Only successful renders are kept; the URL includes the host, as the page's static links do.
    """
    pages = context_of(request.app).leaderboard_pages
    if demo_preparing(request):  # the page reads the preparation state, which no data version follows
        return render()
    key = (str(request.url), reader.data_version())
    body = pages.get(key)
    if body is not None:
        return HTMLResponse(body)
    response = render()
    if response.status_code == 200:
        pages.put(key, bytes(response.body))
    return response


def check_board(taxonomy: Taxonomy, modality: str, board: str, *, combined: bool = False) -> str:
    """The board's canonical key; `NotFound` for a modality or board that is not in the taxonomy. With
    `combined`, a combined board (use case x capability x styles, arena.leaderboard.combined) is accepted."""
    if not taxonomy.has("modality", modality):
        known = ", ".join(taxonomy.slugs("modality"))
        raise NotFound(f"unknown modality '{modality}' (known: {known})")
    if board in board_keys(taxonomy):
        return board
    if combined:
        try:
            filters = parse_combined(board)
        except ValueError as exc:
            raise NotFound(f"unknown board '{board}': {exc}") from None
        if filters is not None:
            problem = check_combined(taxonomy, filters)
            if problem:
                raise NotFound(f"unknown board '{board}': {problem}")
            return filters.key
    raise NotFound(
        f"unknown board '{board}': use overall, use_case=<slug> or capability=<slug>"
        + (" (or several joined by commas, with style=<slug>)" if combined else "")
    )


def api_not_found(exc: NotFound) -> HTTPException:
    """The API's form of a 404."""
    return HTTPException(404, exc.message)


def page_not_found(request: Request, message: str) -> HTMLResponse:
    """The pages' form of a 404: the site layout with the message."""
    return context_of(request.app).templates.TemplateResponse(
        request, "lb_not_found.html", {"message": message}, status_code=404
    )
