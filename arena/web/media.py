"""Serves normalized images by opaque id (the model-page examples): no caching, no Last-Modified, no
content-derived ETag, and only outputs of prompts the arena no longer serves in matchups. Serving one publishes
it (`Output.published_at`): it is shown next to its model's name, so matchmaking never serves it blind again."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response
from sqlalchemy import select

from arena.db.tables import Output, Prompt
from arena.media.publication import publish_output
from arena.media.store import MEDIA_ID, SERVED_MEDIA_TYPE
from arena.web.deps import ContextDep

router = APIRouter(tags=["media"])
NO_STORE = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@router.get("/media/{media_id}", include_in_schema=False)
def served_image(media_id: str, ctx: ContextDep) -> Response:
    """The bytes of one retired prompt's output; anything else (a live output, a bad id) is a 404."""
    if not MEDIA_ID.match(media_id):
        raise HTTPException(404, "no such image")
    with ctx.engine.connect() as conn:
        retired = conn.execute(
            select(Output.id, Output.published_at)
            .join(Prompt, Prompt.id == Output.prompt_id)
            .where(Output.media_id == media_id, Prompt.status != "active")
        ).first()
    path = ctx.media.served_path(media_id) if retired else None
    if retired is None or path is None:
        raise HTTPException(404, "no such image")
    if (
        retired.published_at is None
    ):  # retired by a path that did not publish it: published now, before the bytes
        with ctx.engine.begin() as conn:
            publish_output(conn, retired.id, ctx.clock())
    return Response(content=path.read_bytes(), media_type=SERVED_MEDIA_TYPE, headers=NO_STORE)
