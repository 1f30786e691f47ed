"""The local sandbox models: deterministic images from (prompt, seed, model params), no network.

They make the arena usable out of the box and make every pipeline testable offline: each model has its own
look, text fidelity, quality and latency profile. The latency is simulated with an injectable sleep and a
deterministic RNG per (slug, call number); the timing stamps are real perf_counter() values around it.
"""

from __future__ import annotations

import asyncio
import io
import math
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np
from PIL import Image

from arena.generation.providers.base import BadResponse, GenerationRequest, GenerationResult, Timing
from arena.generation.providers.params import SandboxParams
from arena.generation.providers.sandbox_draw import (
    compose_scene,
    degrade,
    draw_sign,
    palette_colours,
    quoted_texts,
    seed_for,
    visible_text,
)
from arena.generation.providers.sandbox_edit import apply_edit, region_from_mask
from arena.generation.providers.spec import AdapterSpec, BuildContext

Sleep = Callable[[float], Awaitable[None]]
Z95 = 1.6448536269514722  # the standard normal's 95th percentile
DEFAULT_SIGMA = 0.3


def latency_sigma(params: SandboxParams) -> float:
    """The lognormal sigma of the model's latency profile (from p95 when given)."""
    profile = params.latency_ms
    if profile.p95 is not None and profile.median > 0:
        return math.log(profile.p95 / profile.median) / Z95 if profile.p95 > profile.median else 0.0
    return DEFAULT_SIGMA if profile.sigma is None else profile.sigma


def simulated_latency(params: SandboxParams, slug: str, call: int) -> float:
    """Seconds call number `call` of model `slug` takes: lognormal(median, sigma), reproducible."""
    z = random.Random(seed_for("latency", slug, call)).gauss(0.0, 1.0)
    return params.latency_ms.median / 1000 * math.exp(latency_sigma(params) * z)


def request_params(params: SandboxParams, slug: str, request: GenerationRequest) -> dict[str, Any]:
    """What the sandbox "sends": the generation parameters that determine the image."""
    sent: dict[str, Any] = {
        "prompt": request.prompt,
        "seed": request.seed,
        "variant": params.variant or slug,
        "native_size": params.native_size,
        "composition": params.composition,
        "palette": params.palette,
        "quality": params.quality,
        "text_fidelity": params.text_fidelity,
    }
    if request.modality == "image_editing":
        sent.update(
            edit_style=params.edit_style, global_style=params.global_style, edit_spill=params.edit_spill
        )
        sent["edit_region"] = list(request.edit_region) if request.edit_region else None
        if request.extra_references:
            sent["references"] = 1 + len(request.extra_references)
    return sent


def render(params: SandboxParams, slug: str, request: GenerationRequest) -> tuple[bytes, dict[str, Any]]:
    """The PNG bytes for one request and what was drawn; a pure function of its arguments."""
    look = params.model_dump(exclude={"latency_ms"})
    seed = seed_for(params.variant or slug, look, request.prompt, request.seed)
    if request.modality == "image_editing":
        if request.reference_image is None:
            raise BadResponse("sandbox: an image_editing request needs request.reference_image")
        region = request.edit_region
        if region is None and request.mask is not None:
            region = region_from_mask(request.mask)
        image, details = apply_edit(
            request.reference_image,
            request.prompt,
            region,
            params,
            seed=seed,
            extras=request.extra_references,
        )
    else:
        image, details = _text_to_image(params, request.prompt, seed)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)
    return out.getvalue(), details


def _text_to_image(params: SandboxParams, prompt: str, seed: int) -> tuple[Image.Image, dict[str, Any]]:
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    size = params.native_size
    image = compose_scene(params.composition, palette_colours(params.palette, prompt), nprng, size)
    texts = [
        visible_text(t, params.text_fidelity, typo_rate=params.typo_rate, drop_rate=params.drop_rate, rng=rng)
        for t in quoted_texts(prompt)
    ]
    if texts:
        top = rng.uniform(0.45, 0.62)
        height = min(0.34, 0.12 * len(texts) + 0.06)
        box = (int(size * 0.12), int(size * top), int(size * 0.88), int(size * (top + height)))
        draw_sign(image, texts, box, (248, 244, 232))
    return degrade(image, params.quality, nprng), {"rendered_text": texts}


class SandboxProvider:
    """A local sandbox model: labelled as such in its metadata, never touching the network."""

    def __init__(self, params: SandboxParams, *, slug: str, sleep: Sleep | None = None) -> None:
        self.params = params
        self.slug = slug
        self._sleep = sleep or asyncio.sleep
        self._calls = 0

    async def warm_up(self) -> None:
        """Nothing to open; loads the font cache so the first timed call is not the slow one."""
        await asyncio.to_thread(render, self.params, self.slug, GenerationRequest(prompt='warm up "OK"'))

    async def aclose(self) -> None:
        """Nothing to release."""

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """Render (in a worker thread), then wait out the rest of the simulated latency."""
        call = self._calls
        self._calls += 1
        latency = simulated_latency(self.params, self.slug, call)
        started = time.perf_counter()
        image, details = await asyncio.to_thread(render, self.params, self.slug, request)
        await self._sleep(max(0.0, latency - (time.perf_counter() - started)))
        first_byte = time.perf_counter()
        metadata = {
            "sandbox": True,
            "variant": self.params.variant or self.slug,
            "call": call,
            "simulated_latency_s": round(latency, 6),
            **details,
        }
        return GenerationResult(
            image,
            Timing(started, first_byte, time.perf_counter()),
            request_params(self.params, self.slug, request),
            metadata,
        )


def build(params: SandboxParams, context: BuildContext) -> SandboxProvider:
    """The provider of one sandbox model (the context's sleep waits out its simulated latency)."""
    return SandboxProvider(params, slug=context.slug, sleep=context.sleep)


SPEC = AdapterSpec(
    "sandbox", SandboxParams, build, lambda params, request, slug: request_params(params, slug, request)
)
