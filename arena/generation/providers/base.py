"""The provider protocol every adapter implements, its request/result types and its typed errors.

Adapters are async: generation backfill and timing runs drive many calls with bounded concurrency.
Timing uses `time.perf_counter()` seconds: request start, first response byte, last byte of the image.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

DEFAULT_SEED = 42


@dataclass(frozen=True)
class GenerationRequest:
    """One image to make: the prompt, the methodology's defaults, and for edits the reference image."""

    prompt: str
    modality: str = "text_to_image"
    seed: int | None = DEFAULT_SEED
    width: int = 1024
    height: int = 1024
    reference_image: bytes | None = None
    # Further reference images after the first (a try-on's garment beside the person). Adapters whose API takes
    # several images send them all; the others raise UnsupportedRequest rather than silently dropping any.
    extra_references: tuple[bytes, ...] = ()
    mask: bytes | None = None
    edit_region: tuple[float, float, float, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Timing:
    """perf_counter() stamps of one call: request sent, first byte received, last image byte received."""

    started: float
    first_byte: float | None
    last_byte: float

    @property
    def total_seconds(self) -> float:
        """Request start to last byte."""
        return self.last_byte - self.started


@dataclass(frozen=True)
class GenerationResult:
    """The image bytes as the provider sent them, the timing, what was sent and what came back."""

    image: bytes
    timing: Timing
    sent_params: dict[str, Any]
    raw_metadata: dict[str, Any] = field(default_factory=dict)


class ProviderError(Exception):
    """A failed call. `kind` is stable text for storage; `retryable` tells the backfill whether to retry."""

    kind = "error"
    retryable = False

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ProviderTimeout(ProviderError):
    """The call took longer than the configured timeout."""

    kind = "timeout"
    retryable = True


class RateLimited(ProviderError):
    """HTTP 429 (or the API's equivalent); `retry_after` seconds when the provider said."""

    kind = "rate_limited"
    retryable = True


class ServerError(ProviderError):
    """5xx or a connection failure on the provider's side."""

    kind = "server_error"
    retryable = True


class ContentRefused(ProviderError):
    """The provider refused the prompt (safety / moderation)."""

    kind = "content_refused"


class BadResponse(ProviderError):
    """The response was malformed: missing fields, truncated body, bytes that are not an image, 4xx."""

    kind = "bad_response"


class UnsupportedRequest(ProviderError):
    """The request asks for something this adapter's API cannot do (e.g. several reference images)."""

    kind = "unsupported"


@runtime_checkable
class Provider(Protocol):
    """One model behind one API."""

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """Make one image; raise a `ProviderError` subclass on failure."""
        ...

    async def warm_up(self) -> None:
        """Open connections / authenticate so that a timed call measures generation, not set-up."""
        ...

    async def aclose(self) -> None:
        """Release clients."""
        ...
