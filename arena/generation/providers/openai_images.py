"""The OpenAI Images API (generations and edits) through the `openai` SDK; also any OpenAI-compatible server.

The SDK never retries (the backfill owns retries) and we read the raw response ourselves, so malformed JSON,
missing data, truncated bodies and undecodable images become typed errors instead of SDK surprises.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import io
import json
import time
from typing import Any

import httpx
import openai
from PIL import Image

from arena.generation.providers.base import (
    BadResponse,
    GenerationRequest,
    GenerationResult,
    ProviderTimeout,
    ServerError,
    Timing,
    UnsupportedRequest,
)
from arena.generation.providers.http_common import (
    CURRENT_CALL,
    FirstByte,
    adapter_timeout,
    api_key_from_env,
    check_image,
    describe_bytes,
    error_for_status,
    fetch,
    image_mime,
    install_first_byte_hook,
    json_object,
    pick_size,
)
from arena.generation.providers.params import OpenAIParams
from arena.generation.providers.spec import AdapterSpec, BuildContext

NO_KEY = "not-needed"  # the SDK insists on a key; a keyless OpenAI-compatible server ignores it
GPT_IMAGE_MAX_INPUTS = 16  # /v1/images/edits takes up to 16 input images for gpt-image models


def request_body(params: OpenAIParams, request: GenerationRequest) -> tuple[dict[str, Any], dict[str, Any]]:
    """(SDK keyword arguments, extra_body) for one request; together they are exactly what is sent."""
    width, height = pick_size(params.sizes, request)
    kwargs: dict[str, Any] = {
        "model": params.model,
        "prompt": request.prompt,
        "size": f"{width}x{height}",
        "n": 1,
    }
    if params.response_format is not None:
        kwargs["response_format"] = params.response_format
    extra = dict(params.defaults)
    if params.supports_seed and request.seed is not None:
        extra["seed"] = request.seed
    return kwargs, extra


def mask_from_region(reference: bytes, region: tuple[float, float, float, float]) -> bytes:
    """An OpenAI edit mask: the reference's size, transparent (editable) inside the region, opaque outside."""
    with Image.open(io.BytesIO(reference)) as image:
        width, height = image.size
    mask = Image.new("RGBA", (width, height), (0, 0, 0, 255))
    x0, y0, x1, y1 = region
    box = (int(x0 * width), int(y0 * height), max(int(x0 * width) + 1, round(x1 * width)), round(y1 * height))
    mask.paste((0, 0, 0, 0), box)
    out = io.BytesIO()
    mask.save(out, "PNG")
    return out.getvalue()


class OpenAIImagesProvider:
    """One model behind `/images/generations` and `/images/edits`."""

    def __init__(
        self, params: OpenAIParams, *, slug: str, http_client: httpx.AsyncClient | None = None
    ) -> None:
        self.params = params
        self.slug = slug
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=adapter_timeout(params.timeout_s))
        install_first_byte_hook(self._http)
        self._sdk: openai.AsyncOpenAI | None = None

    def _client(self) -> openai.AsyncOpenAI:
        """The SDK client, made on first use so a missing key fails the call, not the whole registry."""
        if self._sdk is None:
            key = api_key_from_env(self.params.api_key_env) or NO_KEY
            self._sdk = openai.AsyncOpenAI(
                api_key=key,
                base_url=self.params.base_url,
                max_retries=0,
                timeout=self.params.timeout_s,
                http_client=self._http,
            )
        return self._sdk

    async def warm_up(self) -> None:
        """Check the key and open a pooled connection (GET /models); its failures are left to real calls."""
        client = self._client()
        with contextlib.suppress(openai.OpenAIError):
            await client.models.list()

    async def aclose(self) -> None:
        """Close the HTTP client if this provider made it (a client passed in belongs to the caller)."""
        if self._owns_http:
            await self._http.aclose()

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """One image: POST, parse, maybe download the URL; timed from just before sending to the last byte."""
        client = self._client()
        kwargs, extra = request_body(self.params, request)
        sent: dict[str, Any] = {**kwargs, **extra}
        files: dict[str, Any] = {}
        if request.modality == "image_editing" or request.reference_image is not None:
            if request.reference_image is None:
                raise BadResponse("an image_editing request needs request.reference_image")
            if self.params.edit_path is not None:
                if request.extra_references:
                    raise UnsupportedRequest(f"{self.params.edit_path} takes one input image, not several")
                kwargs.pop("size")  # the provider's own edit endpoint: no size is sent
                sent.pop("size")
            mask = request.mask
            if mask is None and request.edit_region is not None and self.params.region_as_mask:
                mask = mask_from_region(request.reference_image, request.edit_region)
            mime = image_mime(request.reference_image)
            files["image"] = (f"reference.{mime.split('/')[-1]}", request.reference_image, mime)
            sent["image"] = describe_bytes(request.reference_image)
            if request.extra_references:
                # gpt-image models take several input images (sent as image[]); dall-e-2 edits take exactly one.
                if self.params.model.startswith("dall-e"):
                    raise UnsupportedRequest(f"{self.params.model} edits take one input image, not several")
                images = [request.reference_image, *request.extra_references]
                if len(images) > GPT_IMAGE_MAX_INPUTS:
                    raise UnsupportedRequest(
                        f"{len(images)} input images; the edits endpoint takes at most 16"
                    )
                files["image"] = [
                    (f"reference{i}.{image_mime(b).split('/')[-1]}", b, image_mime(b))
                    for i, b in enumerate(images)
                ]
                sent["image"] = [describe_bytes(b) for b in images]
            if mask is not None:
                files["mask"] = ("mask.png", mask, "image/png")
                sent["mask"] = describe_bytes(mask)
        own_edit = bool(files) and self.params.edit_path is not None
        sent["endpoint"] = (
            self.params.edit_path if own_edit else ("images.edit" if files else "images.generate")
        )
        call = FirstByte()
        token = CURRENT_CALL.set(call)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.params.timeout_s):
                if own_edit:
                    content = await self._post_form(str(client.base_url), {**kwargs, **extra}, files)
                elif files:
                    raw = await client.images.with_raw_response.edit(**kwargs, **files, extra_body=extra)
                    content = raw.http_response.content
                else:
                    raw = await client.images.with_raw_response.generate(**kwargs, extra_body=extra)
                    content = raw.http_response.content
                payload = json_object(content, what="images response")
                image, delivery = await self._image_from(payload)
                last_byte = time.perf_counter()
        except TimeoutError as exc:
            raise ProviderTimeout(f"no image within {self.params.timeout_s:g} s") from exc
        except openai.APITimeoutError as exc:
            raise ProviderTimeout(f"images API timed out: {exc}") from exc
        except openai.APIStatusError as exc:
            response = exc.response
            raise error_for_status(
                response.status_code, response.headers, response.content, what="images API"
            ) from exc
        except openai.APIConnectionError as exc:
            if call.at is not None:  # headers arrived, then the connection broke: a cut-off body
                raise BadResponse(f"images API: truncated body ({exc.__cause__ or exc})") from exc
            raise ServerError(f"images API: connection failed ({exc.__cause__ or exc})") from exc
        except openai.OpenAIError as exc:
            raise BadResponse(f"images API: {exc}") from exc
        finally:
            CURRENT_CALL.reset(token)
        check_image(image, what="images response")
        metadata = _strip_payload(payload)
        metadata["delivery"] = delivery
        return GenerationResult(image, Timing(started, call.at, last_byte), sent, metadata)

    async def _post_form(self, base_url: str, fields: dict[str, Any], files: dict[str, Any]) -> bytes:
        """POST a multipart form to the provider's own edit endpoint (params.edit_path under base_url): the text
        fields, then the files; errors are typed by `fetch` from the status, as for the SDK's calls."""
        key = api_key_from_env(self.params.api_key_env)
        parts: list[tuple[str, Any]] = [
            (k, (None, json.dumps(v) if isinstance(v, list | dict) else str(v))) for k, v in fields.items()
        ]
        parts += [(name, value) for name, value in files.items()]
        url = base_url.rstrip("/") + str(self.params.edit_path)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        response, _ = await fetch(self._http, "POST", url, files=parts, headers=headers, what="images API")
        return response.content

    async def _image_from(self, payload: dict[str, Any]) -> tuple[bytes, str]:
        """The image bytes of the first `data` item: decoded b64_json, or downloaded from its url."""
        data = payload.get("data")
        if not isinstance(data, list) or not data or not isinstance(data[0], dict):
            raise BadResponse("images response: no 'data' items")
        item = data[0]
        if isinstance(item.get("b64_json"), str):
            try:
                return base64.b64decode(item["b64_json"], validate=True), "b64_json"
            except (binascii.Error, ValueError) as exc:
                raise BadResponse(f"images response: b64_json does not decode ({exc})") from exc
        if isinstance(item.get("url"), str):
            response, _ = await fetch(self._http, "GET", item["url"], what="image download")
            return response.content, "url"
        raise BadResponse("images response: the data item has neither b64_json nor url")


def _strip_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The response JSON without the image itself (each b64_json replaced by its length)."""
    items = []
    for item in payload.get("data") or []:
        if isinstance(item, dict) and "b64_json" in item:
            b64 = item["b64_json"]
            item = {k: v for k, v in item.items() if k != "b64_json"}
            item["b64_json_chars"] = len(b64) if isinstance(b64, str) else None
        items.append(item)
    return {**payload, "data": items}


def describe(params: OpenAIParams, request: GenerationRequest, slug: str) -> dict[str, Any]:
    """What a request sends besides the prompt and images: the SDK arguments and the extra body together."""
    kwargs, extra = request_body(params, request)
    described = {**kwargs, **extra}
    if request.modality == "image_editing" and params.edit_path is not None:
        described.pop("size")  # the provider's own edit endpoint is sent no size
    return described


def build(params: OpenAIParams, context: BuildContext) -> OpenAIImagesProvider:
    """The provider of one `openai` or `openai_compatible` model."""
    return OpenAIImagesProvider(params, slug=context.slug, http_client=context.http_client)


def _needs_base_url(params: OpenAIParams) -> None:
    if params.base_url is None:
        raise ValueError("field 'params.base_url': required for adapter 'openai_compatible'")


OPENAI = AdapterSpec("openai", OpenAIParams, build, describe)
OPENAI_COMPATIBLE = AdapterSpec("openai_compatible", OpenAIParams, build, describe, check=_needs_base_url)
