"""Google's image models through the `google-genai` SDK: Gemini image output (generateContent, the image comes
back inline as a part) and Imagen (`generate_images`, a Vertex AI `:predict` call; the SDK offers it only in
Vertex mode, which takes an API key in express mode).

The SDK gets our httpx client (so the first-byte hook and the timing runner's send stamp see its requests) and
no retries (the backfill owns them). Safety thresholds are turned to their lowest where the API allows, the
Imagen watermark is switched off (which is also what lets it take a seed); what was sent is recorded.
"""

from __future__ import annotations

import asyncio
import re
import time
import warnings
from typing import Any

import httpx

from arena.generation.providers.base import (
    BadResponse,
    ContentRefused,
    GenerationRequest,
    GenerationResult,
    ProviderError,
    ProviderTimeout,
    RateLimited,
    ServerError,
    Timing,
    UnsupportedRequest,
)
from arena.generation.providers.http_common import (
    CURRENT_CALL,
    FirstByte,
    MissingApiKey,
    adapter_timeout,
    api_key_from_env,
    check_image,
    describe_bytes,
    image_mime,
    install_first_byte_hook,
    is_refusal,
)
from arena.generation.providers.params_more import GoogleGenAIParams
from arena.generation.providers.spec import AdapterSpec, BuildContext

HARM_CATEGORIES = (
    "HARM_CATEGORY_HARASSMENT",
    "HARM_CATEGORY_HATE_SPEECH",
    "HARM_CATEGORY_SEXUALLY_EXPLICIT",
    "HARM_CATEGORY_DANGEROUS_CONTENT",
)
REFUSAL_REASONS = frozenset(
    {"SAFETY", "IMAGE_SAFETY", "PROHIBITED_CONTENT", "IMAGE_PROHIBITED_CONTENT", "BLOCKLIST", "SPII"}
)
RETRY_DELAY = re.compile(r"^([0-9.]+)s$")


def gemini_config(params: GoogleGenAIParams, request: GenerationRequest) -> dict[str, Any]:
    """The GenerateContentConfig fields sent for one Gemini request."""
    image_config: dict[str, Any] = {"aspect_ratio": params.aspect_ratio}
    if params.image_size:
        image_config["image_size"] = params.image_size
    config: dict[str, Any] = {"response_modalities": ["TEXT", "IMAGE"], "image_config": image_config}
    if params.supports_seed and request.seed is not None:
        config["seed"] = request.seed
    if params.safety_off:
        config["safety_settings"] = [{"category": c, "threshold": "BLOCK_NONE"} for c in HARM_CATEGORIES]
    return {**config, **params.defaults}


def imagen_config(params: GoogleGenAIParams, request: GenerationRequest) -> dict[str, Any]:
    """The GenerateImagesConfig fields sent for one Imagen request (watermark off: it also allows a seed)."""
    config: dict[str, Any] = {
        "number_of_images": 1,
        "aspect_ratio": params.aspect_ratio,
        "add_watermark": False,
        # includeRaiReason: a filtered image comes back with its raiFilteredReason, so a refusal is told from a
        # malformed answer (cloud.google.com/vertex-ai/generative-ai/docs/model-reference/imagen-api, parameters)
        "include_rai_reason": True,
    }
    if params.image_size:
        config["image_size"] = params.image_size
    if params.supports_seed and request.seed is not None:
        config["seed"] = request.seed
    if params.safety_off:
        config["safety_filter_level"] = "BLOCK_ONLY_HIGH"
        config["person_generation"] = "ALLOW_ALL"
    return {**config, **params.defaults}


def request_config(params: GoogleGenAIParams, request: GenerationRequest) -> dict[str, Any]:
    """What one request sends besides the prompt and images (for `describe_defaults` and sent_params)."""
    config = gemini_config(params, request) if params.api == "gemini" else imagen_config(params, request)
    return {"model": params.model, "api": params.api, "config": config}


def _typed(exc: Exception) -> ProviderError:
    """The arena's typed error for an SDK APIError, by its HTTP code and google.rpc status first."""
    code = int(getattr(exc, "code", 0) or 0)
    status = str(getattr(exc, "status", "") or "")
    text = f"google API: HTTP {code} {status}: {getattr(exc, 'message', '') or exc}"
    if code == 429:
        return RateLimited(text, retry_after=_retry_delay(getattr(exc, "details", None)))
    if code == 408 or status == "DEADLINE_EXCEEDED":
        return ProviderTimeout(text)
    if code >= 500:
        return ServerError(text)
    # Google documents refusals in the answer (promptFeedback.blockReason, finishReason, raiFilteredReason), not
    # as an error code; a 400 INVALID_ARGUMENT can still be Imagen's blocked prompt, told only by its text. So the
    # words decide for a 400 alone, and never when the message names a field the API did not accept.
    if code == 400 and is_refusal(str(getattr(exc, "message", "") or exc)):
        return ContentRefused(text)
    return BadResponse(text)


def _retry_delay(details: Any) -> float | None:
    """Seconds from a google.rpc.RetryInfo detail ("retryDelay": "13s"), if the error carries one."""
    error = details.get("error", details) if isinstance(details, dict) else {}
    for item in error.get("details", []) if isinstance(error, dict) else []:
        if isinstance(item, dict) and "retryDelay" in item:
            match = RETRY_DELAY.match(str(item["retryDelay"]))
            if match:
                return float(match[1])
    return None


class GoogleGenAIProvider:
    """One Gemini or Imagen model."""

    def __init__(
        self, params: GoogleGenAIParams, *, slug: str, http_client: httpx.AsyncClient | None = None
    ) -> None:
        self.params = params
        self.slug = slug
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=adapter_timeout(params.timeout_s))
        install_first_byte_hook(self._http)
        self._sdk: Any = None

    def _client(self) -> Any:
        """The SDK client, made on first use so a missing key fails the call, not the registry."""
        if self._sdk is None:
            try:
                from google import genai
                from google.genai import types
            except ImportError as exc:
                raise MissingApiKey(
                    "the google_genai adapter needs the google extra: pip install 'image-arena[google]'"
                ) from exc

            key = api_key_from_env(self.params.api_key_env)
            options = types.HttpOptions(
                base_url=self.params.base_url,
                httpx_async_client=self._http,
                timeout=int(self.params.timeout_s * 1000),
                retry_options=types.HttpRetryOptions(attempts=1),
            )
            self._sdk = genai.Client(api_key=key, vertexai=self.params.api == "imagen", http_options=options)
        return self._sdk

    async def warm_up(self) -> None:
        """Check the key and build the client; the first call opens the pooled connection."""
        self._client()

    async def aclose(self) -> None:
        """Close the HTTP client if this provider made it."""
        if self._owns_http:
            await self._http.aclose()

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """One image; every SDK or HTTP failure becomes a typed error."""
        from google.genai import errors

        client = self._client()
        refs = [] if request.reference_image is None else [request.reference_image, *request.extra_references]
        if self.params.api == "imagen" and refs:
            raise UnsupportedRequest(
                "Imagen generates from text only here (editing is a separate Vertex API)"
            )
        if len(refs) > self.params.max_references:
            raise UnsupportedRequest(
                f"{len(refs)} reference images; {self.params.model} takes {self.params.max_references}"
            )
        sent = request_config(self.params, request)
        if refs:
            sent["images"] = [describe_bytes(r) for r in refs]
        call = FirstByte()
        token = CURRENT_CALL.set(call)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.params.timeout_s):
                if self.params.api == "gemini":
                    image, metadata = await self._gemini(client, request, refs, sent["config"])
                else:
                    image, metadata = await self._imagen(client, request, sent["config"])
                last_byte = time.perf_counter()
        except TimeoutError as exc:
            raise ProviderTimeout(f"no image within {self.params.timeout_s:g} s") from exc
        except errors.APIError as exc:
            raise _typed(exc) from exc
        except httpx.TimeoutException as exc:
            raise ProviderTimeout(f"google API timed out ({type(exc).__name__})") from exc
        except httpx.HTTPError as exc:
            raise ServerError(f"google API: connection failed ({type(exc).__name__}: {exc})") from exc
        finally:
            CURRENT_CALL.reset(token)
        check_image(image, what="google response")
        metadata["delivery"] = "inline"
        return GenerationResult(image, Timing(started, call.at, last_byte), sent, metadata)

    async def _gemini(
        self, client: Any, request: GenerationRequest, refs: list[bytes], config: dict[str, Any]
    ) -> tuple[bytes, dict[str, Any]]:
        from google.genai import types

        contents: list[Any] = [types.Part.from_bytes(data=r, mime_type=image_mime(r)) for r in refs]
        contents.append(request.prompt)
        response = await client.aio.models.generate_content(
            model=self.params.model, contents=contents, config=types.GenerateContentConfig(**config)
        )
        feedback = getattr(response, "prompt_feedback", None)
        block = getattr(feedback, "block_reason", None)
        candidate = (response.candidates or [None])[0]
        reason = getattr(getattr(candidate, "finish_reason", None), "value", None)
        metadata = {"finish_reason": reason, "model_version": getattr(response, "model_version", None)}
        parts = getattr(getattr(candidate, "content", None), "parts", None) or []
        texts = [p.text for p in parts if getattr(p, "text", None)]
        if texts:
            metadata["text"] = " ".join(texts)[:1000]
        for part in parts:
            inline = getattr(part, "inline_data", None)
            if inline is not None and inline.data:
                return inline.data, metadata
        if block is not None or reason in REFUSAL_REASONS:
            raise ContentRefused(f"google API: no image (block reason {block}, finish reason {reason})")
        raise BadResponse(f"google API: the answer has no image part (finish reason {reason})")

    async def _imagen(
        self, client: Any, request: GenerationRequest, config: dict[str, Any]
    ) -> tuple[bytes, dict[str, Any]]:
        from google.genai import types

        with warnings.catch_warnings():  # the SDK marks generate_images deprecated (Imagen is being retired)
            warnings.simplefilter("ignore", category=Warning)
            response = await client.aio.models.generate_images(
                model=self.params.model, prompt=request.prompt, config=types.GenerateImagesConfig(**config)
            )
        for generated in response.generated_images or []:
            image = getattr(generated, "image", None)
            if image is not None and image.image_bytes:
                return image.image_bytes, {"enhanced_prompt": getattr(generated, "enhanced_prompt", None)}
        reasons = [g.rai_filtered_reason for g in response.generated_images or [] if g.rai_filtered_reason]
        if reasons:
            raise ContentRefused(f"google API: image filtered ({'; '.join(reasons)[:300]})")
        raise BadResponse("google API: the answer has no image")


def build(params: GoogleGenAIParams, context: BuildContext) -> GoogleGenAIProvider:
    """The provider of one Gemini or Imagen model (the SDK is imported on its first call)."""
    return GoogleGenAIProvider(params, slug=context.slug, http_client=context.http_client)


SPEC = AdapterSpec(
    "google_genai", GoogleGenAIParams, build, lambda params, request, slug: request_config(params, request)
)
