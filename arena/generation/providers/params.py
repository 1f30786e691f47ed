"""The `params` table of each adapter family, validated so a bad models.toml entry is refused with field and reason.

Every model is `extra="forbid"`: a misspelt key is an error, not a silently ignored default. Fields annotated with
`GEN` are generation parameters, the only ones a suite may override (`arena.generation.providers.overrides`);
every other
field (where a request goes, which credential it carries, which model or local file it loads, how the adapter
speaks the API) comes from the models file alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

SIZE = re.compile(r"^([1-9][0-9]{1,4})x([1-9][0-9]{1,4})$")
HTTP_URL = re.compile(r"^https?://[^\s/]+")
RESERVED_OPENAI = frozenset({"prompt", "model", "size", "n", "image", "mask", "seed", "response_format"})
PALETTE_NAMES = ("aurora", "ember", "ocean", "forest", "dusk", "mono", "candy", "sepia")
HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True)
class Generation:
    """Marks a params field as a generation parameter (a suite may override it). `refused` names keys of a
    table field that still decide where the request goes, refused in overrides (google-genai's http_options)."""

    refused: tuple[str, ...] = ()


GEN = Generation()


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def parse_size(size: str) -> tuple[int, int]:
    """'1536x1024' -> (1536, 1024)."""
    width, height = size.split("x")
    return int(width), int(height)


def _check_sizes(value: list[str]) -> list[str]:
    if not value:
        raise ValueError("must list at least one size such as '1024x1024'")
    for size in value:
        if not SIZE.match(size):
            raise ValueError(f"'{size}' is not WIDTHxHEIGHT, e.g. '1024x1024'")
    if not any(w == h for w, h in (parse_size(s) for s in value)):
        raise ValueError("must include a square size (the methodology generates at 1:1)")
    return value


def _check_url(value: str) -> str:
    if not HTTP_URL.match(value):
        raise ValueError("must be an http:// or https:// URL")
    return value


Sizes = Annotated[list[str], AfterValidator(_check_sizes)]
Url = Annotated[str, AfterValidator(_check_url)]


class OpenAIParams(_Params):
    """Adapters `openai` and `openai_compatible`: the OpenAI Images API through the `openai` SDK."""

    model: str = Field(min_length=1)
    api_key_env: str = Field(default="OPENAI_API_KEY", pattern=r"^([A-Za-z_][A-Za-z0-9_]*)?$")
    base_url: Url | None = None
    sizes: Annotated[Sizes, GEN] = Field(default_factory=lambda: ["1024x1024"])
    supports_seed: bool = False
    response_format: Literal["b64_json", "url"] | None = None
    region_as_mask: Annotated[bool, GEN] = False
    # A provider's own multipart edit endpoint under base_url, used instead of the SDK's /images/edits (Recraft's
    # /images/imageToImage): one reference image as the file `image`, no size sent.
    edit_path: str | None = Field(default=None, pattern=r"^/[A-Za-z0-9_/.-]+$")
    defaults: Annotated[dict[str, Any], GEN] = Field(default_factory=dict)
    timeout_s: float = Field(default=180.0, gt=0, le=3600)

    @field_validator("defaults")
    @classmethod
    def _defaults(cls, value: dict[str, Any]) -> dict[str, Any]:
        clash = sorted(RESERVED_OPENAI & set(value))
        if clash:
            raise ValueError(f"'{clash[0]}' is set by the adapter, not in defaults")
        return value


class SubmitPollParams(_Params):
    """Adapter `submit_poll`: a queue API (submit a job, poll its status, download the result)."""

    submit_url: Url
    status_url: Url | None = None
    status_url_field: str | None = None
    result_json_url_field: str | None = None
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    auth_header: str = Field(default="Authorization", min_length=1)
    auth_prefix: str = "Bearer "
    auth_on_download: bool = False
    prompt_field: str = "prompt"
    width_field: str = "width"
    height_field: str = "height"
    size_field: str | None = None
    seed_field: str = "seed"
    image_field: str = "image"
    mask_field: str = "mask"
    supports_seed: bool = True
    sizes: Annotated[Sizes | None, GEN] = None
    id_field: str = "id"
    status_field: str = "status"
    done_values: list[str] = Field(default_factory=lambda: ["completed", "succeeded", "ready"], min_length=1)
    failed_values: list[str] = Field(
        default_factory=lambda: ["failed", "error", "canceled", "cancelled"], min_length=1
    )
    # Failed statuses the API documents as a safety refusal (BFL: "Request Moderated", "Content Moderated"); when
    # empty, a failed job is a refusal only if its status or reason reads as one (the last resort).
    refused_values: list[str] = Field(default_factory=list)
    error_field: str = "error"
    body_wrapper: str | None = None  # Replicate nests the model inputs: {"input": {...}}
    send_size: bool = True  # False for APIs that take an aspect ratio (put it in defaults) or no size at all
    image_encoding: Literal["base64", "data_url"] = "base64"
    images_field: str | None = None  # a list field taking every reference image (fal's image_urls)
    # With images_field: one reference goes in image_field, only several in images_field (xAI: image | images).
    images_field_when_several: bool = False
    image_object_key: str | None = None  # each image (and mask) sent as {key: data} (xAI's {"url": ...})
    max_references: int | None = Field(default=None, ge=1, le=16)  # more are refused, never silently cut
    extra_image_fields: list[str] = Field(default_factory=list)  # one field per further reference (BFL)
    sync: bool = False  # the submit response is already the final result (no status to poll)
    result_url_field: str = "result.url"
    result_b64_field: str | None = None
    # Polling: the first wait (replicate-python's default poll interval is 0.5 s), multiplied by poll_backoff
    # after each poll up to poll_max_interval_ms, each wait drawn between half and all of it (poll_jitter);
    # poll_backoff 1 with poll_jitter false is a fixed cadence (the methodology's 100 ms for a timing run).
    poll_interval_ms: int = Field(default=500, ge=1, le=60_000)
    poll_backoff: float = Field(default=1.5, ge=1, le=4)
    poll_max_interval_ms: int = Field(default=5000, ge=1, le=60_000)
    poll_jitter: bool = True
    poll_timeout_s: float = Field(default=30.0, gt=0, le=600)  # one status request; a slow one is retried
    # References larger than inline_max_bytes: uploaded to upload_url (a files API, multipart field
    # upload_field, the file's URL at upload_url_field in the answer) and sent as that URL; without upload_url,
    # re-encoded as JPEG (then scaled down) until they fit. None sends every reference inline.
    inline_max_bytes: int | None = Field(default=None, ge=10_000)
    upload_url: Url | None = None
    upload_field: str = "content"
    upload_url_field: str = "urls.get"
    timeout_s: float = Field(default=300.0, gt=0, le=3600)
    defaults: Annotated[dict[str, Any], GEN] = Field(default_factory=dict)

    @field_validator("status_url")
    @classmethod
    def _status_url(cls, value: str | None) -> str | None:
        if value is not None and "{id}" not in value:
            raise ValueError("must contain '{id}' where the job id goes")
        return value

    @model_validator(mode="after")
    def _poll_target(self) -> SubmitPollParams:
        if not self.sync and self.status_url is None and self.status_url_field is None:
            raise ValueError("status_url: set status_url (a template with {id}) or status_url_field")
        failed = {v.lower() for v in self.failed_values}
        stray = [v for v in self.refused_values if v.lower() not in failed]
        if stray:
            raise ValueError(f"refused_values: '{stray[0]}' is not one of failed_values")
        return self


class LatencyProfile(_Params):
    """Simulated latency: lognormal with this median, spread given by p95 or by sigma (default 0.3)."""

    median: float = Field(ge=0, le=600_000)
    p95: float | None = Field(default=None, ge=0, le=600_000)
    sigma: float | None = Field(default=None, ge=0, le=3)

    @model_validator(mode="after")
    def _spread(self) -> LatencyProfile:
        if self.p95 is not None and self.sigma is not None:
            raise ValueError("p95: give p95 or sigma, not both")
        if self.p95 is not None and self.p95 < self.median:
            raise ValueError("p95: must be at least the median")
        return self


class SandboxParams(_Params):
    """Adapter `sandbox`: a local, deterministic stand-in model (no network)."""

    variant: str | None = Field(default=None, min_length=1, max_length=64)
    palette: Annotated[str | list[str], GEN] = "ocean"
    composition: Annotated[Literal["orbs", "bands", "grid", "waves", "rays"], GEN] = "orbs"
    native_size: Annotated[int, GEN] = Field(default=1024, ge=256, le=2048)
    quality: Annotated[float, GEN] = Field(default=0.8, ge=0, le=1)
    text_fidelity: Annotated[Literal["exact", "typos", "drops"], GEN] = "exact"
    typo_rate: Annotated[float, GEN] = Field(default=0.2, ge=0, le=1)
    drop_rate: Annotated[float, GEN] = Field(default=0.34, ge=0, le=1)
    edit_style: Annotated[Literal["overlay", "recolour", "patch", "text"], GEN] = "overlay"
    global_style: Annotated[Literal["warm", "cool", "sepia", "posterize", "soften", "vivid"], GEN] = "warm"
    edit_spill: Annotated[float, GEN] = Field(default=0.0, ge=0, le=0.2)
    latency_ms: Annotated[LatencyProfile, GEN] = Field(
        default_factory=lambda: LatencyProfile(median=1000, sigma=0.3)
    )

    @field_validator("palette")
    @classmethod
    def _palette(cls, value: str | list[str]) -> str | list[str]:
        if isinstance(value, str):
            if value not in PALETTE_NAMES:
                raise ValueError(
                    f"unknown palette '{value}'; one of {', '.join(PALETTE_NAMES)} or hex colours"
                )
            return value
        if not 2 <= len(value) <= 8 or not all(HEX_COLOUR.match(c) for c in value):
            raise ValueError("a custom palette is 2 to 8 colours written '#rrggbb'")
        return value
