"""Reference images over real HTTP, through the shipped presets: Replicate gets a reference over 1 MB through its
files API (the prediction reads the uploaded file's URL) and a small one as a data URI; Together, which has no image
upload, gets a large reference re-encoded under the limit."""

from __future__ import annotations

import asyncio
import base64
import io
import random

import pytest
from PIL import Image

from arena.generation.providers import GenerationRequest, build_provider
from tests.fakes.images import png_bytes
from tests.support.presets import commented_presets, fake_for, point_at

SECRET = "ref-secret-5a4b3c"
ENTRIES = {e.slug: e for e in commented_presets()}


def noisy_png(side: int) -> bytes:
    """A PNG that does not compress (random pixels): about 3 bytes a pixel, 1.6 MB at 740 x 740."""
    rng = random.Random(side)
    image = Image.frombytes("RGB", (side, side), bytes(rng.getrandbits(8) for _ in range(side * side * 3)))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


BIG = noisy_png(740)


def edit(slug: str, reference: bytes):
    """One edit through the preset `slug` pointed at a fresh fake of its provider: (fake, result)."""
    entry = ENTRIES[slug]
    fake = fake_for(entry, key=SECRET)
    request = GenerationRequest(prompt="make it dusk", modality="image_editing", reference_image=reference)

    async def go():
        provider = build_provider(entry.adapter, point_at(entry, fake.url), slug=slug)
        try:
            return await provider.generate(request)
        finally:
            await provider.aclose()

    with fake:
        return fake, asyncio.run(go())


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("REPLICATE_API_TOKEN", SECRET)
    monkeypatch.setenv("TOGETHER_API_KEY", SECRET)


def test_a_reference_over_1_mb_goes_to_replicate_through_the_files_api():
    assert len(BIG) > 1_500_000
    fake, result = edit("flux-kontext-pro-replicate-edit", BIG)
    assert list(fake.uploads.values()) == [BIG]  # uploaded once, byte for byte, with the Bearer key
    assert fake.inputs == [("input_image", "file", BIG)]  # the prediction read it from urls.get
    assert fake.large_data_uris == 0
    sent = result.sent_params["input"]["input_image"]
    assert sent["bytes"] == len(BIG) and sent["uploaded"] is True


def test_a_small_reference_stays_a_data_uri_on_replicate():
    small = png_bytes("96x96", "ref")
    fake, result = edit("flux-kontext-pro-replicate-edit", small)
    assert fake.uploads == {}
    assert fake.inputs == [("input_image", "data_uri", small)]
    assert "uploaded" not in result.sent_params["input"]["input_image"]


def test_together_gets_a_large_reference_re_encoded_under_the_limit():
    fake, result = edit("flux-kontext-pro-together-edit", BIG)
    [call] = fake.calls
    value = call.body["image_url"]
    assert value.startswith("data:image/jpeg;base64,")
    sent = base64.b64decode(value.split(",", 1)[1])
    assert len(sent) <= 1_000_000
    with Image.open(io.BytesIO(sent)) as image:
        assert image.format == "JPEG" and image.size[0] == image.size[1] <= 740
    record = result.sent_params["image_url"]
    assert record["bytes"] == len(sent) and record["reencoded_from"]["bytes"] == len(BIG)
