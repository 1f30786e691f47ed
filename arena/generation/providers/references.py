"""How a queue adapter sends reference images: inline (bare base64 or a data URL) up to `inline_max_bytes`;
past it, uploaded through the provider's files API and sent as the returned URL (Replicate recommends data URIs
only under 1 MB), or, for an API without an image upload (Together), re-encoded as JPEG and scaled down until it
fits. Every reference is recorded by size and hash, never by content.
"""

from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass
from typing import Any

import httpx
from PIL import Image

from arena.generation.providers.base import BadResponse, GenerationRequest, UnsupportedRequest
from arena.generation.providers.http_common import describe_bytes, dotted, fetch, image_mime, json_object
from arena.generation.providers.params import SubmitPollParams

JPEG_QUALITY = 90  # the re-encoding rule: JPEG at quality 90, then ~5% under the limit's scale per step
MAX_SHRINK_STEPS = 8


@dataclass(frozen=True)
class Reference:
    """One reference as sent: the body value and how sent_params records it."""

    value: Any
    record: dict[str, Any]


def references_of(request: GenerationRequest) -> list[bytes]:
    """The request's reference images, first one first."""
    return [] if request.reference_image is None else [request.reference_image, *request.extra_references]


def encode(params: SubmitPollParams, data: bytes) -> Any:
    """An image inline as the API takes it: bare base64 or a data URL, wrapped as {key: ...} when configured."""
    b64 = base64.b64encode(data).decode("ascii")
    value = f"data:{image_mime(data)};base64,{b64}" if params.image_encoding == "data_url" else b64
    return wrap(params, value)


def wrap(params: SubmitPollParams, value: Any) -> Any:
    """{image_object_key: value} when the API wants each image as an object (xAI's {"url": ...})."""
    return {params.image_object_key: value} if params.image_object_key else value


def inline(params: SubmitPollParams, refs: list[bytes]) -> list[Reference]:
    """Every reference inline, as they go when none is over the limit (and as `describe` shows them)."""
    return [Reference(encode(params, r), describe_bytes(r)) for r in refs]


async def prepare(
    params: SubmitPollParams, client: httpx.AsyncClient, headers: dict[str, str], refs: list[bytes]
) -> list[Reference]:
    """The references as they will be sent: inline up to the limit, else uploaded or re-encoded to fit."""
    limit = params.inline_max_bytes
    out: list[Reference] = []
    uploaded: dict[bytes, str] = {}  # the same image twice is uploaded once
    for ref in refs:
        if limit is None or len(ref) <= limit:
            out.append(Reference(encode(params, ref), describe_bytes(ref)))
        elif params.upload_url is not None:
            if ref not in uploaded:
                uploaded[ref] = await upload(params, client, headers, ref)
            out.append(Reference(wrap(params, uploaded[ref]), {**describe_bytes(ref), "uploaded": True}))
        else:
            small = fit_under(ref, limit)
            record = {**describe_bytes(small), "reencoded_from": describe_bytes(ref)}
            out.append(Reference(encode(params, small), record))
    return out


async def upload(
    params: SubmitPollParams, client: httpx.AsyncClient, headers: dict[str, str], data: bytes
) -> str:
    """POST one image to the files API as multipart (Replicate: POST /v1/files, the file in `content`) and
    return the URL the answer gives it (Replicate: urls.get), which the prediction then reads."""
    mime = image_mime(data)
    files = {params.upload_field: (f"reference.{mime.split('/')[-1]}", data, mime)}
    response, _ = await fetch(
        client, "POST", str(params.upload_url), files=files, headers=headers, what="file upload"
    )
    url = dotted(json_object(response.content, what="file upload response"), params.upload_url_field)
    if not isinstance(url, str) or not url:
        raise BadResponse(f"file upload response: no URL at '{params.upload_url_field}'")
    return url


def fit_under(data: bytes, limit: int) -> bytes:
    """The image re-encoded as JPEG (quality 90) and, while still over `limit` bytes, scaled down by the square
    root of the overshoot (less 5%) per step; UnsupportedRequest when eight steps are not enough."""
    with Image.open(io.BytesIO(data)) as opened:
        image = opened.convert("RGB")
    for _ in range(MAX_SHRINK_STEPS):
        out = io.BytesIO()
        image.save(out, "JPEG", quality=JPEG_QUALITY)
        if out.tell() <= limit:
            return out.getvalue()
        scale = math.sqrt(limit / out.tell()) * 0.95
        size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    raise UnsupportedRequest(f"a reference image does not fit in {limit} bytes even scaled down")
