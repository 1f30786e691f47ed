"""Two synchronous multipart-form image APIs: Stability AI (JSON answer with the image as base64) and Ideogram
(JSON answer with an ephemeral image URL to download). The clock runs from the request to the last image byte.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import time
from typing import Any

import httpx

from arena.generation.providers.base import (
    BadResponse,
    ContentRefused,
    GenerationRequest,
    GenerationResult,
    ProviderTimeout,
    Timing,
    UnsupportedRequest,
)
from arena.generation.providers.http_common import (
    adapter_timeout,
    api_key_from_env,
    check_image,
    describe_bytes,
    download_result,
    fetch,
    image_mime,
    json_object,
)
from arena.generation.providers.params_more import IdeogramParams, StabilityParams
from arena.generation.providers.spec import AdapterSpec


def stability_fields(params: StabilityParams, request: GenerationRequest) -> dict[str, Any]:
    """The form fields of one Stability request (the reference image is sent as the file `image`)."""
    fields: dict[str, Any] = {"prompt": request.prompt, "output_format": params.output_format}
    if request.reference_image is None:
        fields["aspect_ratio"] = params.aspect_ratio  # image-to-image takes the input's aspect ratio
    if params.supports_seed and request.seed is not None:
        fields["seed"] = request.seed
    return {**params.defaults, **fields}


def ideogram_fields(params: IdeogramParams, request: GenerationRequest) -> dict[str, Any]:
    """The form fields of one Ideogram request; magic prompt off so the prompt is sent as written."""
    fields: dict[str, Any] = {"prompt": request.prompt, "magic_prompt": "OFF", "num_images": 1}
    if params.resolution:
        fields["resolution"] = params.resolution
    if params.supports_seed and request.seed is not None:
        fields["seed"] = request.seed
    return {**fields, **params.defaults}


def _form(fields: dict[str, Any], request: GenerationRequest) -> list[tuple[str, Any]]:
    """Multipart parts: text fields, then the reference image and mask as files."""
    parts: list[tuple[str, Any]] = [
        (k, (None, json.dumps(v) if isinstance(v, list | dict) else str(v))) for k, v in fields.items()
    ]
    if request.extra_references:
        raise UnsupportedRequest("this API takes one reference image per request")
    if request.reference_image is not None:
        mime = image_mime(request.reference_image)
        parts.append(("image", (f"image.{mime.split('/')[-1]}", request.reference_image, mime)))
    if request.mask is not None:
        parts.append(("mask", ("mask.png", request.mask, "image/png")))
    return parts


def _sent(fields: dict[str, Any], request: GenerationRequest) -> dict[str, Any]:
    sent = dict(fields)
    if request.reference_image is not None:
        sent["image"] = describe_bytes(request.reference_image)
    if request.mask is not None:
        sent["mask"] = describe_bytes(request.mask)
    return sent


class _FormProvider:
    """What both adapters share: the client, the key header, the timeout."""

    def __init__(self, params: Any, *, slug: str, http_client: httpx.AsyncClient | None = None) -> None:
        self.params = params
        self.slug = slug
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=adapter_timeout(params.timeout_s))

    async def warm_up(self) -> None:
        """Check the key is set (neither API has a free authenticated no-op)."""
        self._headers()

    async def aclose(self) -> None:
        """Close the HTTP client if this provider made it."""
        if self._owns_http:
            await self._http.aclose()

    # HTTP statuses the provider documents as its safety rejection (typed ContentRefused by status alone).
    refusal_statuses: frozenset[int] = frozenset()

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    async def _post(self, files: list[tuple[str, Any]]) -> tuple[dict[str, Any], float]:
        headers = self._headers()
        response, headers_at = await fetch(
            self._http,
            "POST",
            self.params.endpoint,
            files=files,
            headers=headers,
            what="images API",
            refusal_statuses=self.refusal_statuses,
        )
        return json_object(response.content, what="images API response"), headers_at


class StabilityProvider(_FormProvider):
    """Stability AI's Stable Image endpoints (generate/core, ultra, sd3; sd3 also image-to-image)."""

    def _headers(self) -> dict[str, str]:
        key = api_key_from_env(self.params.api_key_env)
        return {"Accept": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """POST the form; the answer carries the image as base64 and a finish reason."""
        fields = stability_fields(self.params, request)
        files = _form(fields, request)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.params.timeout_s):
                data, first_byte = await self._post(files)
                last_byte = time.perf_counter()
        except TimeoutError as exc:
            raise ProviderTimeout(f"no image within {self.params.timeout_s:g} s") from exc
        reason = data.get("finish_reason")
        if reason == "CONTENT_FILTERED":
            raise ContentRefused("images API: finish_reason CONTENT_FILTERED")
        if not isinstance(data.get("image"), str):
            raise BadResponse(f"images API response: no 'image' (finish_reason {reason})")
        try:
            image = base64.b64decode(data["image"], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise BadResponse(f"images API response: image does not decode ({exc})") from exc
        check_image(image, what="images API response")
        metadata = {"finish_reason": reason, "seed": data.get("seed"), "delivery": "b64"}
        return GenerationResult(
            image, Timing(started, first_byte, last_byte), _sent(fields, request), metadata
        )


class IdeogramProvider(_FormProvider):
    """Ideogram 3.0 generate (text to image) and remix / edit (with the reference image). Ideogram's API reference
    lists 422 as the safety rejection of the prompt or image (developer.ideogram.ai, generate-v3 / remix-v3
    responses), so a 422 is a refusal whatever its text."""

    refusal_statuses = frozenset({422})

    def _headers(self) -> dict[str, str]:
        key = api_key_from_env(self.params.api_key_env)
        return {"Api-Key": key} if key else {}

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """POST the form, then download the ephemeral URL of the first result."""
        fields = ideogram_fields(self.params, request)
        files = _form(fields, request)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.params.timeout_s):
                data, _ = await self._post(files)
                items = data.get("data")
                if not isinstance(items, list) or not items or not isinstance(items[0], dict):
                    raise BadResponse("images API response: no 'data' items")
                item = items[0]
                if item.get("is_image_safe") is False or not item.get("url"):
                    raise ContentRefused("images API: the result was marked unsafe (is_image_safe false)")
                image, first_byte = await download_result(self._http, str(item["url"]))
                last_byte = time.perf_counter()
        except TimeoutError as exc:
            raise ProviderTimeout(f"no image within {self.params.timeout_s:g} s") from exc
        check_image(image, what="image download")
        metadata = {k: v for k, v in item.items() if k != "url"} | {"delivery": "url"}
        return GenerationResult(
            image, Timing(started, first_byte, last_byte), _sent(fields, request), metadata
        )


STABILITY = AdapterSpec(
    "stability",
    StabilityParams,
    lambda params, context: StabilityProvider(params, slug=context.slug, http_client=context.http_client),
    lambda params, request, slug: stability_fields(params, request),
)
IDEOGRAM = AdapterSpec(
    "ideogram",
    IdeogramParams,
    lambda params, context: IdeogramProvider(params, slug=context.slug, http_client=context.http_client),
    lambda params, request, slug: ideogram_fields(params, request),
)
