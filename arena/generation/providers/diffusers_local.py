"""Open-weights models on the operator's own GPU or CPU through Hugging Face `diffusers` (the `local` extra).

The pipeline is loaded on first use from `params.model`: a local folder, or a hub id only when
`allow_download` is set (otherwise loading is `local_files_only`, so nothing is fetched at import, test or run
time without the operator asking). Each call runs in a worker thread with a seeded generator (seed 42 by
default) and returns PNG bytes; the clock runs around the pipeline call and the PNG encoding. One call at a
time per model: a pipeline is not safe to run concurrently.
"""

from __future__ import annotations

import asyncio
import io
import threading
import time
from typing import Any

from arena.generation.providers.base import (
    BadResponse,
    GenerationRequest,
    GenerationResult,
    ProviderError,
    ProviderTimeout,
    ServerError,
    Timing,
    UnsupportedRequest,
)
from arena.generation.providers.http_common import describe_bytes, pick_size
from arena.generation.providers.params_more import DiffusersParams
from arena.generation.providers.spec import AdapterSpec, BuildContext


class MissingExtra(ProviderError):
    """torch / diffusers are not installed: a configuration error, not retried."""


def call_arguments(params: DiffusersParams, request: GenerationRequest) -> dict[str, Any]:
    """The pipeline call arguments other than the prompt, images and generator (what sent_params records)."""
    width, height = pick_size(params.sizes, request)
    args: dict[str, Any] = {"width": width, "height": height, "num_images_per_prompt": 1}
    if params.steps is not None:
        args["num_inference_steps"] = params.steps
    if params.guidance is not None:
        args["guidance_scale"] = params.guidance
    if params.supports_seed and request.seed is not None:
        args["seed"] = request.seed
    return {**args, **params.defaults}


def _dtype(torch: Any, params: DiffusersParams) -> Any:
    if params.dtype == "auto":
        return torch.float16 if params.device.startswith("cuda") else torch.float32
    return getattr(torch, params.dtype)


def load_pipeline(params: DiffusersParams, *, editing: bool) -> Any:
    """The pipeline for `params`, on its device; MissingExtra without torch/diffusers, BadResponse when the
    weights are not found locally (and downloads are not allowed)."""
    try:
        import diffusers
        import torch
    except ImportError as exc:
        raise MissingExtra(
            "the diffusers adapter needs the local extra: pip install 'image-arena[local]' (CPU torch)"
        ) from exc
    if params.pipeline == "auto":
        cls = diffusers.AutoPipelineForImage2Image if editing else diffusers.AutoPipelineForText2Image
    else:
        cls = getattr(diffusers, params.pipeline, None)
        if cls is None:
            raise BadResponse(f"diffusers has no pipeline class '{params.pipeline}'")
    try:
        pipe = cls.from_pretrained(
            params.model, dtype=_dtype(torch, params), local_files_only=not params.allow_download
        )
    except (OSError, ValueError) as exc:
        hint = "" if params.allow_download else " (downloads are off: point params.model at a local folder)"
        raise BadResponse(f"cannot load '{params.model}': {str(exc)[:300]}{hint}") from exc
    if params.cpu_offload:
        pipe.enable_model_cpu_offload()
    else:
        pipe = pipe.to(params.device)
    pipe.set_progress_bar_config(disable=True)
    return pipe


class DiffusersProvider:
    """One local pipeline, loaded lazily and reused across calls."""

    def __init__(self, params: DiffusersParams, *, slug: str) -> None:
        self.params = params
        self.slug = slug
        self._pipes: dict[bool, Any] = {}
        self._lock = threading.Lock()
        # held around each pipeline call: the tokenizer's truncation settings are shared state, so two
        # concurrent calls could send an untruncated prompt to the text encoder (seen: 101 tokens for 32)
        self._call_lock = threading.Lock()

    def _pipe(self, editing: bool) -> Any:
        with self._lock:
            if editing not in self._pipes:
                self._pipes[editing] = load_pipeline(self.params, editing=editing)
            return self._pipes[editing]

    async def warm_up(self) -> None:
        """Load the text-to-image pipeline, so a timed call measures generation, not loading."""
        await asyncio.to_thread(self._pipe, False)

    async def aclose(self) -> None:
        """Drop the pipelines (their memory is freed with them)."""
        self._pipes.clear()

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """Run the pipeline in a worker thread; out-of-memory is a server error, a bad setup a bad response."""
        refs = [] if request.reference_image is None else [request.reference_image, *request.extra_references]
        if len(refs) > self.params.max_references:
            raise UnsupportedRequest(
                f"{len(refs)} reference images; this pipeline takes {self.params.max_references}"
            )
        args = call_arguments(self.params, request)
        sent = dict(args)
        if refs:
            sent["image"] = [describe_bytes(r) for r in refs]
        try:
            async with asyncio.timeout(self.params.timeout_s):
                image, started, last = await asyncio.to_thread(self._run, request, refs, args)
        except TimeoutError as exc:
            raise ProviderTimeout(f"no image within {self.params.timeout_s:g} s") from exc
        metadata = {"pipeline": type(self._pipes[bool(refs)]).__name__, "delivery": "local"}
        return GenerationResult(image, Timing(started, None, last), sent, metadata)

    def _run(
        self, request: GenerationRequest, refs: list[bytes], args: dict[str, Any]
    ) -> tuple[bytes, float, float]:
        import torch
        from PIL import Image

        pipe = self._pipe(bool(refs))
        kwargs = dict(args)
        seed = kwargs.pop("seed", None)
        device = "cpu" if self.params.cpu_offload else self.params.device
        if seed is not None:
            kwargs["generator"] = torch.Generator(device=device).manual_seed(int(seed))
        if refs:
            images = [Image.open(io.BytesIO(r)).convert("RGB") for r in refs]
            kwargs["image"] = images if len(images) > 1 else images[0]
        with self._call_lock:  # one call at a time; the clock starts once this call has the pipeline
            started = time.perf_counter()
            try:
                out = pipe(prompt=request.prompt, **kwargs)
            except torch.cuda.OutOfMemoryError as exc:  # type: ignore[attr-defined]
                raise ServerError(f"out of GPU memory: {exc}") from exc
            except (TypeError, ValueError) as exc:
                raise BadResponse(f"pipeline call failed: {exc}") from exc
        buffer = io.BytesIO()
        out.images[0].save(buffer, "PNG")
        return buffer.getvalue(), started, time.perf_counter()


def build(params: DiffusersParams, context: BuildContext) -> DiffusersProvider:
    """The provider of one local pipeline (torch and diffusers are imported when it first loads)."""
    return DiffusersProvider(params, slug=context.slug)


SPEC = AdapterSpec(
    "diffusers", DiffusersParams, build, lambda params, request, slug: call_arguments(params, request)
)
