"""What the HTTP adapters share: API keys from the environment, typed errors from statuses, timed fetches,
image checks and the methodology's size choice.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpx
from PIL import Image, UnidentifiedImageError

from arena.generation.providers.base import (
    BadResponse,
    ContentRefused,
    GenerationRequest,
    ProviderError,
    ProviderTimeout,
    RateLimited,
    ServerError,
)
from arena.generation.providers.params import parse_size
from arena.runtime.retry import retry_after_seconds

# Documented refusal codes, matched exactly: OpenAI gpt-image `moderation_blocked` and DALL-E
# `content_policy_violation` (error.code of a 400); Azure OpenAI `content_filter`; fal's model-error type
# `content_policy_violation` (https://fal.ai/docs/documentation/model-apis/errors); Stability AI's 403
# `content_moderation` (the error body's `name`).
REFUSAL_CODES = frozenset(
    {"content_policy_violation", "moderation_blocked", "content_filter", "content_moderation"}
)
# The last resort, for an error that carries no code from a provider that documents no refusal status: words of
# a safety refusal. Never applied to an error with a code, nor to a message naming a request field the API did
# not accept (an unknown `moderation` or `safety_tolerance` field is a request error, not a refusal).
REFUSAL_WORDS = ("safety", "moderat", "nsfw", "content policy", "content_policy")
REQUEST_ERROR_WORDS = (
    "unknown parameter",
    "unknown_parameter",
    "unknown name",
    "unknown field",
    "unrecognized",
    "unexpected keyword",
    "extra inputs are not permitted",
    "invalid json payload",
    "invalid value",
    "not supported",
    "not permitted",
)


class MissingApiKey(ProviderError):
    """The environment variable named by `params.api_key_env` is not set: a configuration error, not retried."""


def api_key_from_env(name: str | None) -> str | None:
    """The API key in environment variable `name`; None when no key is configured for this model."""
    if not name:
        return None
    value = os.environ.get(name, "").strip()
    if not value:
        raise MissingApiKey(
            f"environment variable {name} is not set (params.api_key_env); export the API key"
        )
    return value


def pick_size(sizes: list[str], request: GenerationRequest) -> tuple[int, int]:
    """The methodology's size: the largest supported square; with `extra["resolution"] == "requested"`
    (timing runs) the smallest supported square at least as large as the request, else the largest.
    """
    squares = sorted((parse_size(s) for s in sizes if parse_size(s)[0] == parse_size(s)[1]), reverse=True)
    if request.extra.get("resolution") == "requested":
        big_enough = [s for s in squares if s[0] * s[1] >= request.width * request.height]
        if big_enough:
            return big_enough[-1]
    return squares[0]


def _error_details(body: bytes) -> tuple[str | None, str]:
    """(code, message) of an error body, reading each documented shape: OpenAI's {"error": {"code", "type",
    "message"}}, Stability's {"name", "errors": [...]}, fal's {"detail": [{"type", "msg"}]}, xAI's and Ideogram's
    {"error": "text"}, Replicate's problem JSON {"title", "detail"}. The code is None when the body has none."""
    try:
        data = json.loads(body)
    except ValueError:
        return None, body[:300].decode("utf-8", "replace")
    if not isinstance(data, dict):
        return None, str(data)[:300]
    error = data.get("error", data)
    if isinstance(error, dict):
        code = error.get("code") or error.get("type") or error.get("name")
        if isinstance(code, int):  # google.rpc Status: the HTTP code; the code that says more is `status`
            code = error.get("status")
        detail = error.get("detail")
        if isinstance(detail, list) and detail and isinstance(detail[0], dict):  # fal / FastAPI model errors
            code = code or detail[0].get("type")
            message = str(detail[0].get("msg") or detail[0])
        else:
            errors = error.get("errors")
            message = (
                error.get("message") or detail or (errors[0] if isinstance(errors, list) and errors else None)
            )
            message = str(message) if message else json.dumps(error)[:300]
        return (str(code) if code else None), message
    code = data.get("code")  # xAI: {"code": "...", "error": "text"}; Ideogram: {"error": "text"}
    return (str(code) if isinstance(code, str) and code else None), str(error)[:300]


def error_for_status(
    status: int,
    headers: httpx.Headers,
    body: bytes,
    *,
    what: str,
    refusal_statuses: frozenset[int] = frozenset(),
) -> ProviderError:
    """The typed error for an HTTP error status, decided by the provider's documented status and error code:
    429, 408, 5xx; a status the provider documents as its safety rejection (`refusal_statuses`, e.g. Ideogram's
    422); a documented refusal code; any other coded 4xx is a request error (BadResponse). Only a 400 without any
    code, from a provider that documents no refusal status, falls back to words (`is_refusal`)."""
    code, message = _error_details(body)
    text = f"{what}: HTTP {status}" + (f" ({code})" if code else "") + f": {message}"
    if status == 429:
        return RateLimited(text, retry_after=retry_after_seconds(headers))
    if status == 408:
        return ProviderTimeout(text)
    if status >= 500:
        return ServerError(text, retry_after=retry_after_seconds(headers))
    if status in refusal_statuses or code in REFUSAL_CODES:
        return ContentRefused(text)
    if code is None and status == 400 and not refusal_statuses and is_refusal(message):
        return ContentRefused(text)
    return BadResponse(text)


def is_refusal(reason: str) -> bool:
    """The last resort for a failure that carries no code: whether its text reads as a safety / moderation
    refusal and not as a complaint about a request field."""
    lowered = reason.lower()
    if any(word in lowered for word in REQUEST_ERROR_WORDS):
        return False
    return any(word in lowered for word in REFUSAL_WORDS)


def adapter_timeout(seconds: float) -> httpx.Timeout:
    """The HTTP timeouts of an adapter's calls: `seconds` to read, write or wait for a pooled connection, and
    at most 15 s of them to connect."""
    return httpx.Timeout(seconds, connect=min(seconds, 15.0))


@dataclass
class FirstByte:
    """Filled by the client's response hook with perf_counter() when the first response headers arrive."""

    at: float | None = None


CURRENT_CALL: ContextVar[FirstByte | None] = ContextVar("arena_provider_first_byte", default=None)


async def stamp_first_byte(response: httpx.Response) -> None:
    """httpx response hook: runs when headers arrive, before the body is read."""
    call = CURRENT_CALL.get()
    if call is not None and call.at is None:
        call.at = time.perf_counter()


def install_first_byte_hook(client: httpx.AsyncClient) -> None:
    """Add the first-byte hook to a client once; it only records inside a call that set CURRENT_CALL."""
    hooks = client.event_hooks
    if stamp_first_byte not in hooks["response"]:
        client.event_hooks = {**hooks, "response": [*hooks["response"], stamp_first_byte]}


async def fetch(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    what: str,
    refusal_statuses: frozenset[int] = frozenset(),
    **kwargs: Any,
) -> tuple[httpx.Response, float]:
    """One request read to the end: (response, perf_counter() when its headers arrived).

    Timeouts -> ProviderTimeout; no connection -> ServerError; a body cut short after the headers ->
    BadResponse; an error status -> `error_for_status`.
    """
    request = client.build_request(method, url, **kwargs)
    try:
        response = await client.send(request, stream=True)
    except httpx.TimeoutException as exc:
        raise ProviderTimeout(f"{what}: timed out ({type(exc).__name__})") from exc
    except httpx.HTTPError as exc:
        raise ServerError(f"{what}: connection failed ({type(exc).__name__}: {exc})") from exc
    headers_at = time.perf_counter()
    try:
        await response.aread()
    except httpx.TimeoutException as exc:
        raise ProviderTimeout(f"{what}: timed out reading the body") from exc
    except httpx.HTTPError as exc:
        raise BadResponse(f"{what}: truncated body ({type(exc).__name__}: {exc})") from exc
    finally:
        await response.aclose()
    if response.status_code >= 400:
        error = error_for_status(
            response.status_code,
            response.headers,
            response.content,
            what=what,
            refusal_statuses=refusal_statuses,
        )
        error.http_status = response.status_code  # type: ignore[attr-defined]
        raise error
    return response, headers_at


EXPIRED_STATUSES = frozenset({401, 403, 404, 410})


async def download_result(
    client: httpx.AsyncClient, url: str, *, headers: dict[str, str] | None = None
) -> tuple[bytes, float]:
    """Download a result URL: (bytes, headers time). Signed result URLs expire (BFL after 10 minutes, Replicate
    after an hour, Ideogram's are ephemeral): a refused or missing URL is a retryable ServerError, since
    generating again yields a fresh URL."""
    try:
        response, first_byte = await fetch(client, "GET", url, headers=headers or {}, what="image download")
    except BadResponse as exc:
        if getattr(exc, "http_status", None) in EXPIRED_STATUSES:
            raise ServerError(f"result URL expired or gone ({exc})") from exc
        raise
    return response.content, first_byte


def json_object(body: bytes, *, what: str) -> dict[str, Any]:
    """The body as a JSON object, or BadResponse."""
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise BadResponse(f"{what}: malformed JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise BadResponse(f"{what}: expected a JSON object, got {type(data).__name__}")
    return data


def dotted(data: Any, path: str) -> Any:
    """data["a"]["b"][0] for path "a.b.0"; None when any step is missing."""
    for part in path.split("."):
        if isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return None
    return data


def check_image(data: bytes, *, what: str) -> tuple[str, int, int]:
    """(format, width, height) of bytes that fully decode as an image, else BadResponse."""
    if not data:
        raise BadResponse(f"{what}: empty image")
    try:
        with Image.open(io.BytesIO(data)) as probe:
            probe.verify()
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return str(image.format), image.width, image.height
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        detail = "unidentified format" if isinstance(exc, UnidentifiedImageError) else str(exc)
        raise BadResponse(f"{what}: the bytes are not a readable image ({detail})") from exc


def image_mime(data: bytes) -> str:
    """The MIME type of image bytes, for multipart uploads (PNG when unknown)."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            return Image.MIME.get(str(image.format), "image/png")
    except (UnidentifiedImageError, OSError):
        return "image/png"


def describe_bytes(data: bytes) -> dict[str, Any]:
    """How sent_params records an uploaded file: its size and hash, not its bytes."""
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
