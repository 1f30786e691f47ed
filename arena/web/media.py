"""Serves normalized images by opaque id: no caching, no Last-Modified, no content-derived ETag."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from arena.media import SERVED_MEDIA_TYPE

router = APIRouter(tags=["media"])
NO_STORE = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@router.get("/media/{media_id}", include_in_schema=False)
def served_image(media_id: str, request: Request) -> Response:
    """The bytes of one served image; anything that is not an existing well-formed id is a 404."""
    path = request.app.state.media.served_path(media_id)
    if path is None:
        raise HTTPException(404, "no such image")
    return Response(content=path.read_bytes(), media_type=SERVED_MEDIA_TYPE, headers=NO_STORE)
