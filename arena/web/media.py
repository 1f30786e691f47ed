"""Serves normalized images by opaque id (the model-page examples): no caching, no Last-Modified, no
content-derived ETag, and only outputs of prompts the arena no longer serves in matchups."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from sqlalchemy import select

from arena.db.tables import Output, Prompt
from arena.media import MEDIA_ID, SERVED_MEDIA_TYPE

router = APIRouter(tags=["media"])
NO_STORE = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@router.get("/media/{media_id}", include_in_schema=False)
def served_image(media_id: str, request: Request) -> Response:
    """The bytes of one retired prompt's output; anything else (a live output, a bad id) is a 404."""
    if not MEDIA_ID.match(media_id):
        raise HTTPException(404, "no such image")
    with request.app.state.engine.connect() as conn:
        retired = conn.execute(
            select(Output.id)
            .join(Prompt, Prompt.id == Output.prompt_id)
            .where(Output.media_id == media_id, Prompt.status != "active")
        ).first()
    path = request.app.state.media.served_path(media_id) if retired else None
    if path is None:
        raise HTTPException(404, "no such image")
    return Response(content=path.read_bytes(), media_type=SERVED_MEDIA_TYPE, headers=NO_STORE)
