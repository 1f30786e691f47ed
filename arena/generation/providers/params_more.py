"""The `params` tables of the dedicated hosted adapters (Google, Stability AI, Ideogram, Azure OpenAI), the local
`diffusers` adapter and `external` models (outputs imported, never generated)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from arena.generation.providers.params import GEN, Generation, OpenAIParams, Sizes, Url, _Params

KEY_ENV = r"^([A-Za-z_][A-Za-z0-9_]*)?$"


class ExternalParams(_Params):
    """Adapter `external`: a model whose outputs are imported (`arena outputs import`); it never generates."""

    note: str = Field(default="", max_length=500)  # where the images come from, for operators


class GoogleGenAIParams(_Params):
    """Adapter `google_genai`: Gemini image output (generateContent) or Imagen (generate_images), via google-genai."""

    model: str = Field(min_length=1)
    api: Literal["gemini", "imagen"] = "gemini"
    api_key_env: str = Field(default="GEMINI_API_KEY", pattern=KEY_ENV)
    base_url: Url | None = None  # a proxy or test server instead of generativelanguage.googleapis.com
    aspect_ratio: Annotated[str, GEN] = "1:1"
    image_size: Annotated[str | None, GEN] = None  # "1K" / "2K" / "4K" where the model offers the choice
    supports_seed: bool = True
    safety_off: Annotated[bool, GEN] = True  # Gemini: every adjustable harm category at BLOCK_NONE
    max_references: int = Field(default=3, ge=0, le=16)
    # Further config fields, sent as given. A config's http_options would override base_url and headers per
    # request, so overrides may not set it.
    defaults: Annotated[dict[str, Any], Generation(refused=("http_options",))] = Field(default_factory=dict)
    timeout_s: float = Field(default=180.0, gt=0, le=3600)


class StabilityParams(_Params):
    """Adapter `stability`: Stability AI's Stable Image REST API (multipart form, JSON answer with base64)."""

    endpoint: Url = "https://api.stability.ai/v2beta/stable-image/generate/core"
    api_key_env: str = Field(default="STABILITY_API_KEY", pattern=KEY_ENV)
    aspect_ratio: Annotated[str, GEN] = "1:1"
    output_format: Annotated[Literal["png", "jpeg", "webp"], GEN] = "png"
    supports_seed: bool = True
    defaults: Annotated[dict[str, Any], GEN] = Field(default_factory=dict)  # e.g. {"model": "sd3.5-large"}
    timeout_s: float = Field(default=180.0, gt=0, le=3600)


class IdeogramParams(_Params):
    """Adapter `ideogram`: Ideogram's v3 REST API (multipart form, answer with an ephemeral image URL)."""

    endpoint: Url = "https://api.ideogram.ai/v1/ideogram-v3/generate"
    api_key_env: str = Field(default="IDEOGRAM_API_KEY", pattern=KEY_ENV)
    resolution: Annotated[str | None, GEN] = "1024x1024"
    supports_seed: bool = True
    defaults: Annotated[dict[str, Any], GEN] = Field(
        default_factory=dict
    )  # e.g. {"rendering_speed": "QUALITY"}
    timeout_s: float = Field(default=180.0, gt=0, le=3600)


class DiffusersParams(_Params):
    """Adapter `diffusers`: an open-weights pipeline run locally (the optional `local` extra)."""

    model: str = Field(min_length=1)  # a local folder, or a hub id when allow_download is set
    allow_download: bool = False  # weights are fetched only when the operator says so
    pipeline: str = "auto"  # "auto" (AutoPipelineForText2Image / Image2Image) or a diffusers class name
    dtype: Literal["auto", "float32", "float16", "bfloat16"] = "auto"  # auto: float16 on CUDA, else float32
    device: str = Field(default="cpu", pattern=r"^(cpu|mps|cuda(:[0-9]+)?)$")
    steps: Annotated[int | None, GEN] = Field(default=None, ge=1, le=500)
    guidance: Annotated[float | None, GEN] = Field(default=None, ge=0, le=50)
    sizes: Annotated[Sizes, GEN] = Field(default_factory=lambda: ["1024x1024"])
    supports_seed: bool = True
    max_references: int = Field(default=1, ge=0, le=16)  # >1 only for pipelines whose `image` takes a list
    cpu_offload: bool = False  # enable_model_cpu_offload() for GPUs with less memory than the model
    defaults: Annotated[dict[str, Any], GEN] = Field(default_factory=dict)  # further pipeline call arguments
    timeout_s: float = Field(default=1800.0, gt=0, le=7200)


class AzureOpenAIParams(OpenAIParams):
    """Adapter `azure_openai`: an OpenAI image model deployed on Azure OpenAI. Requests go to
    {endpoint}/openai/deployments/{deployment}/images/generations (or /images/edits) with ?api-version= and the
    key in the `api-key` header; `model` names the deployed model (gpt-image-1, dall-e-3) and is sent as the SDK
    sends it."""

    endpoint: Url  # https://<resource>.openai.azure.com
    deployment: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    api_version: str = Field(default="2025-04-01-preview", pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$")
    api_key_env: str = Field(default="AZURE_OPENAI_API_KEY", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
