"""The diffusers adapter offline: a tiny Stable Diffusion pipeline built here from small configs with random
weights (no download) generates through the backfill, the timing run and the media store, on both databases.
Skipped only where torch / diffusers (the `local` extra) are not installed."""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlmodel import Session, select

pytest.importorskip("torch", reason="torch is not installed: the diffusers adapter needs the `local` extra")
pytest.importorskip("diffusers", reason="diffusers is not installed: the adapter needs the `local` extra")

from arena.db.tables import LatencySample, Output
from arena.generation.backfill import Backfill, plan_jobs
from arena.generation.providers import BadResponse, GenerationRequest, UnsupportedRequest, build_provider
from arena.generation.registry import ModelEntry, sync_registry
from arena.media.store import MediaStore
from scheduler.timing import run_timing
from tests.fakes.images import png_bytes
from tests.support.tiny_diffusers import build_tiny_pipeline


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    return str(build_tiny_pipeline(tmp_path_factory.mktemp("weights")))


def params(folder: str, **extra):
    return {"model": folder, "pipeline": "StableDiffusionPipeline", "steps": 2, "sizes": ["64x64"], **extra}


def generate(p, request):
    async def go():
        provider = build_provider("diffusers", p, slug="tiny")
        try:
            return await provider.generate(request)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def test_the_tiny_pipeline_generates_through_backfill_timing_and_the_media_store(tiny, initialized, settings):
    entry = ModelEntry(
        slug="tiny-sd",
        display_name="Tiny SD (local)",
        organization="Test",
        modality="text_to_image",
        adapter="diffusers",
        params=params(tiny),
    )
    with Session(initialized) as session:
        sync_registry(session, [entry])
        jobs = plan_jobs(session, settings.media_dir, model="tiny-sd", limit=2)
    assert len(jobs) == 2
    providers = {"tiny-sd": build_provider("diffusers", entry.params, slug="tiny-sd")}
    report = asyncio.run(Backfill(initialized, MediaStore(settings.media_dir), providers).run(jobs))
    assert (report.generated, report.failed) == (2, 0), report.failures
    with Session(initialized) as session:
        rows = session.exec(select(Output).where(Output.model_slug == "tiny-sd")).all()
    for row in rows:
        assert row.status == "ok" and (row.original_width, row.original_height) == (64, 64)
        assert row.sent_params["seed"] == 42 and row.sent_params["num_inference_steps"] == 2
        assert (settings.media_dir / "served" / f"{row.media_id}.jpg").is_file()
    timing = asyncio.run(
        run_timing(initialized, settings, run_id="t1", model="tiny-sd", rng=random.Random(1))
    )
    assert [s.status for s in timing.samples] == ["ok"], timing.skipped
    with Session(initialized) as session:
        [sample] = session.exec(select(LatencySample).where(LatencySample.model_slug == "tiny-sd")).all()
    assert sample.status == "ok" and sample.seconds > 0 and (sample.width, sample.height) == (64, 64)


def test_seed_42_makes_the_same_image_and_another_seed_a_different_one(tiny):
    async def go():
        provider = build_provider("diffusers", params(tiny), slug="tiny")
        try:
            prompt = "a red cube on a wooden table"
            first = await provider.generate(GenerationRequest(prompt=prompt))
            again = await provider.generate(GenerationRequest(prompt=prompt))
            other = await provider.generate(GenerationRequest(prompt=prompt, seed=7))
            return first, again, other
        finally:
            await provider.aclose()

    first, again, other = asyncio.run(go())
    assert first.image == again.image and first.image != other.image
    assert first.sent_params["seed"] == 42 and other.sent_params["seed"] == 7


def test_weights_are_never_downloaded_unless_allowed(tmp_path):
    with pytest.raises(BadResponse) as info:
        generate(
            params("black-forest-labs/FLUX.1-schnell"), GenerationRequest(prompt="a red cube on a table")
        )
    assert "downloads are off" in str(info.value)


def test_more_references_than_the_pipeline_takes_are_refused(tiny):
    request = GenerationRequest(
        prompt="put the hat on the cat",
        modality="image_editing",
        reference_image=png_bytes("64x64", "a"),
        extra_references=(png_bytes("64x64", "b"),),
    )
    with pytest.raises(UnsupportedRequest):
        generate(params(tiny), request)


def test_concurrent_calls_with_long_prompts_are_each_truncated(tiny):
    """Concurrent calls on one pipeline all succeed (they take turns). A full-suite run once sent a 101-token
    prompt to the 32-position text encoder during a two-job backfill; the suspected cause, overlapping calls on
    the shared tokenizer, did not reproduce here without the lock, so this test guards the behaviour, not the
    race."""
    prompts = [
        f"call {k}: " + "a long description of a drafting table with pencils and rulers " * 3
        for k in range(4)
    ]

    async def go():
        provider = build_provider("diffusers", params(tiny), slug="tiny")
        try:
            return await asyncio.gather(
                *(provider.generate(GenerationRequest(prompt=p, seed=k)) for k, p in enumerate(prompts))
            )
        finally:
            await provider.aclose()

    results = asyncio.run(go())
    assert len(results) == 4 and all(r.image.startswith(b"\x89PNG") for r in results)
