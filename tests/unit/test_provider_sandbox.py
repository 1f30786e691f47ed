"""The local sandbox models: deterministic, distinct per model, text at a chosen fidelity, edits confined to
their region, a latency profile through an injected sleep; and the shipped models.toml validates.
"""

import asyncio
import io
import random
import re
import statistics
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from arena.generation.providers import (
    GenerationRequest,
    Provider,
    build_provider,
    describe_defaults,
    validate_params,
)
from arena.generation.providers.params import SandboxParams
from arena.generation.providers.sandbox import simulated_latency
from arena.generation.providers.sandbox_draw import visible_text
from arena.generation.registry import parse_registry

MODELS_TOML = Path(__file__).resolve().parents[2] / "models.toml"
SIGN = 'A shop front at night with a neon sign that reads "OPEN LATE"'


async def no_wait(_seconds: float) -> None:
    """A sleep that returns at once, so simulated latency costs tests nothing."""


def generate(params: dict, request: GenerationRequest, *, slug: str = "sandbox-test", sleep=no_wait):
    """Build a sandbox provider, make one image, close it."""

    async def go():
        provider = build_provider("sandbox", params, slug=slug, sleep=sleep)
        try:
            return await provider.generate(request)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def pixels(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.int16)


def shipped() -> list:
    return parse_registry(MODELS_TOML.read_text(encoding="utf-8"))


def png(size: tuple[int, int], seed: int = 0) -> bytes:
    """A textured reference image (random blocks), so any change to it is visible."""
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, 256, (size[1] // 16 + 1, size[0] // 16 + 1, 3), dtype=np.uint8)
    image = Image.fromarray(blocks.repeat(16, 0).repeat(16, 1)[: size[1], : size[0]], "RGB")
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_same_prompt_seed_and_params_give_a_byte_identical_png():
    params = {"native_size": 256, "quality": 0.5, "text_fidelity": "typos"}
    first = generate(params, GenerationRequest(prompt=SIGN))
    second = generate(params, GenerationRequest(prompt=SIGN))
    assert first.image == second.image
    assert first.image.startswith(b"\x89PNG")


def test_a_different_seed_or_prompt_gives_a_different_image():
    params = {"native_size": 256}
    base = generate(params, GenerationRequest(prompt=SIGN)).image
    assert generate(params, GenerationRequest(prompt=SIGN, seed=7)).image != base
    assert generate(params, GenerationRequest(prompt=SIGN + " in the rain")).image != base


def test_each_shipped_text_to_image_model_draws_a_visibly_different_picture():
    models = [m for m in shipped() if m.adapter == "sandbox" and m.modality == "text_to_image"]
    small = {}
    for m in models:
        result = generate({**m.params, "native_size": 256}, GenerationRequest(prompt=SIGN), slug=m.slug)
        with Image.open(io.BytesIO(result.image)) as image:
            small[m.slug] = np.asarray(image.convert("RGB").resize((32, 32)), dtype=np.float32)
    slugs = sorted(small)
    for i, a in enumerate(slugs):
        for b in slugs[i + 1 :]:
            assert np.abs(small[a] - small[b]).mean() > 8, (a, b)


@pytest.mark.parametrize("size", [256, 768])
def test_the_image_is_a_png_at_the_models_native_size_and_labelled_sandbox(size):
    result = generate({"native_size": size}, GenerationRequest(prompt="a lighthouse"))
    with Image.open(io.BytesIO(result.image)) as image:
        assert (image.format, image.size) == ("PNG", (size, size))
    assert result.raw_metadata["sandbox"] is True
    assert result.sent_params["seed"] == 42 and result.sent_params["native_size"] == size
    assert isinstance(build_provider("sandbox", {}, slug="x"), Provider)


def test_exact_fidelity_draws_the_quoted_text_verbatim():
    result = generate({"native_size": 256, "text_fidelity": "exact"}, GenerationRequest(prompt=SIGN))
    assert result.raw_metadata["rendered_text"] == ["OPEN LATE"]


def test_typos_change_letters_and_drops_lose_words_deterministically():
    typos = generate({"native_size": 256, "text_fidelity": "typos"}, GenerationRequest(prompt=SIGN))
    drops = generate({"native_size": 256, "text_fidelity": "drops"}, GenerationRequest(prompt=SIGN))
    [typo_text] = typos.raw_metadata["rendered_text"]
    [drop_text] = drops.raw_metadata["rendered_text"]
    assert typo_text != "OPEN LATE" and len(typo_text) == len("OPEN LATE")
    assert drop_text in ("OPEN", "LATE")
    again = generate({"native_size": 256, "text_fidelity": "typos"}, GenerationRequest(prompt=SIGN))
    assert again.raw_metadata["rendered_text"] == [typo_text]


@given(st.text(alphabet="ABCDEFGHIJ KLMNOP qrstuv 123!", min_size=1, max_size=30), st.integers(0, 2**32))
def test_typos_keep_length_and_touch_only_letters_and_drops_keep_word_order(text, seed):
    typo = visible_text(text, "typos", typo_rate=0.2, drop_rate=0.3, rng=random.Random(seed))
    assert len(typo) == len(text)
    assert all(a == b for a, b in zip(text, typo, strict=True) if not a.isalpha())
    assert (typo != text) == any(c.isalpha() for c in text)
    dropped = visible_text(text, "drops", typo_rate=0.2, drop_rate=0.3, rng=random.Random(seed))
    words = text.split()
    if len(words) > 1:
        kept = dropped.split()
        assert 0 < len(kept) < len(words)
        remaining = iter(words)
        assert all(any(w == r for r in remaining) for w in kept)


EDIT_PROMPTS = [
    "Add a red balloon in the marked area",
    "Remove the object in the marked area",
    "Make the marked area blue",
    'Put a sign that reads "SALE" in the marked area',
    "Change the marked area",
]


@pytest.mark.parametrize("prompt", EDIT_PROMPTS)
def test_an_edit_changes_the_region_and_leaves_every_pixel_outside_it_untouched(prompt):
    reference = png((512, 512))
    region = (0.25, 0.3, 0.6, 0.7)
    request = GenerationRequest(
        prompt=prompt, modality="image_editing", reference_image=reference, edit_region=region
    )
    result = generate({"native_size": 512, "quality": 0.6}, request)
    before, after = pixels(reference), pixels(result.image)
    assert after.shape == before.shape
    outside = np.ones(before.shape[:2], bool)
    outside[int(0.3 * 512) : int(np.ceil(0.7 * 512)), int(0.25 * 512) : int(np.ceil(0.6 * 512))] = False
    assert np.array_equal(before[outside], after[outside])
    assert np.abs(before[~outside] - after[~outside]).mean() > 10
    assert result.sent_params["edit_region"] == list(region)


def test_edit_spill_lets_a_lower_quality_model_bleed_just_past_the_region():
    reference = png((400, 400))
    request = GenerationRequest(
        prompt="Add a star",
        modality="image_editing",
        reference_image=reference,
        edit_region=(0.4, 0.4, 0.6, 0.6),
    )
    result = generate({"native_size": 400, "edit_spill": 0.05}, request)
    before, after = pixels(reference), pixels(result.image)
    changed = np.argwhere(np.any(before != after, axis=2))
    assert changed.min() >= 160 - 20 and changed.max() < 240 + 20
    assert changed.min() < 160 or changed.max() >= 240


def test_an_edit_without_a_region_applies_a_global_change_at_native_size():
    reference = png((300, 200))
    request = GenerationRequest(
        prompt="Make it look vintage", modality="image_editing", reference_image=reference
    )
    result = generate({"native_size": 600, "global_style": "sepia"}, request)
    after = pixels(result.image)
    assert after.shape == (400, 600, 3)
    with Image.open(io.BytesIO(reference)) as image:
        upscaled = np.asarray(image.convert("RGB").resize((600, 400)), dtype=np.int16)
    assert np.abs(after - upscaled).mean() > 10
    assert result.raw_metadata["operation"] == "global:sepia"


def test_a_mask_without_a_region_confines_the_edit_to_its_transparent_area():
    reference = png((256, 256))
    mask = Image.new("RGBA", (256, 256), (0, 0, 0, 255))
    mask.paste((0, 0, 0, 0), (0, 0, 64, 64))
    buf = io.BytesIO()
    mask.save(buf, "PNG")
    request = GenerationRequest(
        prompt="Add a moon", modality="image_editing", reference_image=reference, mask=buf.getvalue()
    )
    result = generate({"native_size": 256}, request)
    before, after = pixels(reference), pixels(result.image)
    assert np.array_equal(before[64:, :], after[64:, :]) and np.array_equal(before[:, 64:], after[:, 64:])
    assert not np.array_equal(before[:64, :64], after[:64, :64])


def test_latency_follows_the_profile_and_is_reproducible_per_slug_and_call():
    params = SandboxParams(latency_ms={"median": 2000, "p95": 5000})
    samples = [simulated_latency(params, "sandbox-x", call) for call in range(2000)]
    assert samples == [simulated_latency(params, "sandbox-x", call) for call in range(2000)]
    assert samples[:5] != [simulated_latency(params, "sandbox-y", call) for call in range(5)]
    assert statistics.median(samples) == pytest.approx(2.0, rel=0.08)
    assert np.percentile(samples, 95) == pytest.approx(5.0, rel=0.12)


def test_the_injected_sleep_waits_out_the_simulated_latency():
    waits: list[float] = []

    async def recording_sleep(seconds: float) -> None:
        waits.append(seconds)

    params = {"native_size": 256, "latency_ms": {"median": 3000, "sigma": 0.0}}
    result = generate(params, GenerationRequest(prompt="x"), sleep=recording_sleep)
    assert result.raw_metadata["simulated_latency_s"] == pytest.approx(3.0)
    assert len(waits) == 1 and 2.0 < waits[0] <= 3.0
    assert result.timing.total_seconds < 2.0


def test_timing_stamps_are_real_and_cover_the_simulated_latency():
    params = {"native_size": 256, "latency_ms": {"median": 150, "sigma": 0.0}}
    timing = generate(params, GenerationRequest(prompt="x"), sleep=None).timing
    assert timing.started <= timing.first_byte <= timing.last_byte
    assert 0.15 <= timing.total_seconds < 0.65


def test_the_shipped_registry_validates_and_has_the_advertised_sandbox_line_up():
    entries = shipped()
    for entry in entries:
        validate_params(entry.adapter, entry.params)
        describe_defaults(entry.adapter, entry.params, modality=entry.modality, slug=entry.slug)
    sandbox = [e for e in entries if e.adapter == "sandbox"]
    for modality, count in (("text_to_image", 6), ("image_editing", 4)):
        group = [e for e in sandbox if e.modality == modality]
        assert len(group) == count
        assert sum(e.anchor for e in group) == 1
        assert sum(e.cohort == "legacy" for e in group) == 1
    assert all(
        e.display_name.endswith("(local sandbox)") and e.organization == "Local sandbox" for e in sandbox
    )
    assert any(e.endpoint_kind == "modified" for e in sandbox)
    medians = [e.params["latency_ms"]["median"] for e in sandbox]
    assert min(medians) <= 1000 and max(medians) >= 5000
    assert len({e.params.get("variant") for e in sandbox}) == len(sandbox)


def test_the_commented_out_real_endpoint_examples_validate_once_uncommented():
    text = MODELS_TOML.read_text(encoding="utf-8")
    lines = re.findall(r"(?m)^# ((?:\[\[models\]\]|\[models\.params\]|[a-z_0-9]+ = ).*)$", text)
    examples = parse_registry("\n".join(lines), origin="models.toml examples")
    for entry in examples:
        validate_params(entry.adapter, entry.params)
    slugs = {e.slug for e in examples}
    assert {"gpt-image-1", "gpt-image-1-edit", "flux-1-schnell", "flux-2-dev"} <= slugs
    assert {e.adapter for e in examples} == {
        "openai",
        "openai_compatible",
        "azure_openai",
        "submit_poll",
        "google_genai",
        "stability",
        "ideogram",
        "diffusers",
        "external",
    }


def test_further_reference_images_are_composited_into_the_region_and_nothing_else_changes():
    person = png((400, 400))
    garment = Image.new("RGB", (200, 300), (200, 20, 20))
    out = io.BytesIO()
    garment.save(out, "PNG")
    region = (0.25, 0.5, 0.75, 1.0)
    request = GenerationRequest(
        prompt="Put the person into the jacket",
        modality="image_editing",
        reference_image=person,
        extra_references=(out.getvalue(),),
        edit_region=region,
    )
    result = generate({"native_size": 400, "quality": 1.0}, request)
    before, after = pixels(person), pixels(result.image)
    inside = np.zeros(before.shape[:2], bool)
    inside[200:400, 100:300] = True
    assert np.array_equal(before[~inside], after[~inside])
    assert (
        after[inside][:, 0].mean() > 150 and after[inside][:, 1].mean() < 80
    )  # the red garment shows through
    assert result.sent_params["references"] == 2 and result.raw_metadata["operation"] == "composite"
