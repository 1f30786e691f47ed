"""Provider adapters behind one protocol: the OpenAI Images API (and compatible servers), submit-and-poll
queue APIs, Google, Stability AI, Ideogram, local pipelines and the local sandbox models. Each adapter declares
an `AdapterSpec`; `build_provider` and `describe_defaults` read the spec from `arena.generation.providers.adapters`.
"""

from __future__ import annotations

from typing import Any

import httpx

from arena.generation.providers.adapters import adapter_names, adapter_spec, parse_params
from arena.generation.providers.base import (
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
from arena.generation.providers.http_common import MissingApiKey
from arena.generation.providers.spec import AdapterSpec, BuildContext, Sleep

__all__ = [
    "AdapterSpec",
    "BadResponse",
    "BuildContext",
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
    "adapter_names",
    "build_provider",
    "describe_defaults",
    "validate_params",
]


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
    return adapter_spec(adapter).build(parsed, BuildContext(slug=slug, http_client=http_client, sleep=sleep))


def describe_defaults(
    adapter: str, params: dict[str, Any], *, modality: str = "text_to_image", slug: str = ""
) -> dict[str, Any]:
    """The generation parameters a default request sends (seed 42, 1:1, batch of one), prompt left out."""
    parsed = parse_params(adapter, params)
    request = GenerationRequest(prompt="", modality=modality, seed=DEFAULT_SEED)
    described = adapter_spec(adapter).describe(parsed, request, slug)
    wrapper = getattr(parsed, "body_wrapper", None)
    if wrapper and isinstance(described.get(wrapper), dict):  # Replicate's {"input": {...}}
        described = {**described, wrapper: dict(described[wrapper])}
        described[wrapper].pop(getattr(parsed, "prompt_field", "prompt"), None)
    described.pop("prompt", None)
    described.pop(getattr(parsed, "prompt_field", "prompt"), None)
    return described
