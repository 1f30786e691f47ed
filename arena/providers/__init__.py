"""Provider adapters behind one protocol: the OpenAI Images API (and compatible servers), submit-and-poll
queue APIs, and the local sandbox models. `build_provider` is the one place an adapter is chosen.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from arena.providers import form_apis, openai_images, sandbox, submit_poll
from arena.providers.base import (
    DEFAULT_SEED,
    BadResponse,
    ContentRefused,
    GenerationRequest,
    GenerationResult,
    Provider,
    ProviderError,
    ProviderTimeout,
    RateLimited,
    ServerError,
    Timing,
    UnsupportedRequest,
)
from arena.providers.http_common import MissingApiKey
from arena.providers.params import PARAMS_BY_ADAPTER, parse_params

__all__ = [
    "ADAPTERS",
    "BadResponse",
    "ContentRefused",
    "GenerationRequest",
    "GenerationResult",
    "MissingApiKey",
    "Provider",
    "ProviderError",
    "ProviderTimeout",
    "RateLimited",
    "ServerError",
    "Timing",
    "UnsupportedRequest",
    "build_provider",
    "describe_defaults",
    "validate_params",
]

ADAPTERS = tuple(PARAMS_BY_ADAPTER)
Sleep = Callable[[float], Awaitable[None]]


class ExternalProvider:
    """An `external` model: its outputs are imported (`arena outputs import`), so it never generates."""

    def __init__(self, slug: str) -> None:
        self.slug = slug

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """Always refused: there is nothing to call."""
        raise UnsupportedRequest(
            f"model '{self.slug}' is external: import its outputs with `arena outputs import`"
        )

    async def warm_up(self) -> None:
        """Nothing to open."""

    async def aclose(self) -> None:
        """Nothing to close."""


def validate_params(adapter: str, params: dict[str, Any]) -> None:
    """Raise ValueError("field 'params.xyz': reason") when `params` do not suit `adapter`."""
    parse_params(adapter, params)


def build_provider(
    adapter: str,
    params: dict[str, Any],
    *,
    slug: str,
    http_client: httpx.AsyncClient | None = None,
    sleep: Sleep | None = None,
) -> Provider:
    """The provider for one registry entry; ValueError("field 'params.xyz': reason") on bad params.

    A passed `http_client` stays the caller's to close (the OpenAI adapter adds its first-byte response hook
    to it, a no-op outside its own calls). `sleep` replaces asyncio.sleep for the sandbox's simulated latency
    and the queue adapter's polling.
    """
    parsed = parse_params(adapter, params)
    if adapter in ("openai", "openai_compatible"):
        return openai_images.OpenAIImagesProvider(parsed, slug=slug, http_client=http_client)
    if adapter == "submit_poll":
        return submit_poll.SubmitPollProvider(parsed, slug=slug, http_client=http_client, sleep=sleep)
    if adapter == "google_genai":
        from arena.providers.google_genai import GoogleGenAIProvider

        return GoogleGenAIProvider(parsed, slug=slug, http_client=http_client)
    if adapter == "stability":
        return form_apis.StabilityProvider(parsed, slug=slug, http_client=http_client)
    if adapter == "ideogram":
        return form_apis.IdeogramProvider(parsed, slug=slug, http_client=http_client)
    if adapter == "diffusers":
        from arena.providers.diffusers_local import DiffusersProvider

        return DiffusersProvider(parsed, slug=slug)
    if adapter == "external":
        return ExternalProvider(slug)
    return sandbox.SandboxProvider(parsed, slug=slug, sleep=sleep)


def describe_defaults(
    adapter: str, params: dict[str, Any], *, modality: str = "text_to_image", slug: str = ""
) -> dict[str, Any]:
    """The generation parameters a default request sends (seed 42, 1:1, batch of one), prompt left out."""
    parsed = parse_params(adapter, params)
    request = GenerationRequest(prompt="", modality=modality, seed=DEFAULT_SEED)
    if adapter in ("openai", "openai_compatible"):
        kwargs, extra = openai_images.request_body(parsed, request)
        described = {**kwargs, **extra}
        if modality == "image_editing" and parsed.edit_path is not None:
            described.pop("size")  # the provider's own edit endpoint is sent no size
    elif adapter == "submit_poll":
        described = submit_poll.request_body(parsed, request)
    elif adapter == "google_genai":
        from arena.providers.google_genai import request_config

        described = request_config(parsed, request)
    elif adapter == "stability":
        described = form_apis.stability_fields(parsed, request)
    elif adapter == "ideogram":
        described = form_apis.ideogram_fields(parsed, request)
    elif adapter == "diffusers":
        from arena.providers.diffusers_local import call_arguments

        described = call_arguments(parsed, request)
    elif adapter == "external":
        described = {}
    else:
        described = sandbox.request_params(parsed, slug, request)
    wrapper = getattr(parsed, "body_wrapper", None)
    if wrapper and isinstance(described.get(wrapper), dict):  # Replicate's {"input": {...}}
        described = {**described, wrapper: dict(described[wrapper])}
        described[wrapper].pop(getattr(parsed, "prompt_field", "prompt"), None)
    described.pop("prompt", None)
    described.pop(getattr(parsed, "prompt_field", "prompt"), None)
    return described
