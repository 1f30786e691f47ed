"""Conformance: every commented preset of the shipped models.toml runs against an in-process fake of its
provider over real HTTP: `arena generate` and `arena latency run` unchanged (both databases), then each
provider's rate-limit, job-failure and expired-result-URL answers, and several reference images (all sent, or
refused). A preset without a fake fails `test_every_preset_in_the_file_is_covered`."""

from __future__ import annotations

import asyncio
import base64
import binascii
import json

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db.tables import LatencySample, Output
from arena.generation.providers import (
    BadResponse,
    GenerationRequest,
    RateLimited,
    ServerError,
    UnsupportedRequest,
    build_provider,
)
from arena.generation.registry import sync_registry
from tests.fakes.images import png_bytes
from tests.support.presets import NOT_HTTP, commented_presets, fake_class_for, fake_for, point_at

SECRET = "preset-secret-9f8e7d6c5b4a"
PRESETS = commented_presets()
HTTP_PRESETS = [e for e in PRESETS if e.adapter not in NOT_HTTP]
EDIT_PRESETS = [e for e in HTTP_PRESETS if e.modality == "image_editing"]
RAN: dict[str, set[str]] = {}


def ids(entries):
    return [e.slug for e in entries]


@pytest.fixture
def keys(monkeypatch):
    for entry in PRESETS:
        name = entry.params.get("api_key_env")
        if name:
            monkeypatch.setenv(name, SECRET)


def started(entry):
    fake = fake_for(entry, key=SECRET if entry.params.get("api_key_env") else None)
    fake.start()
    return fake


def call(entry, fake, request: GenerationRequest | None = None):
    """One generation through a fresh provider built from the preset pointed at the fake."""
    if request is None:
        request = (
            GenerationRequest(
                prompt="A lighthouse at dusk, warm light",
                modality="image_editing",
                reference_image=png_bytes("96x96", "ref"),
            )
            if entry.modality == "image_editing"
            else GenerationRequest(prompt="A lighthouse at dusk, warm light")
        )

    async def go():
        provider = build_provider(
            entry.adapter,
            point_at(entry, fake.url),
            slug=entry.slug,
            sleep=lambda s: asyncio.sleep(min(s, 0.01)),
        )
        try:
            return await provider.generate(request)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def received_images(fake_call) -> list[bytes]:
    """Every PNG the fake received in one call, in order: file parts, then base64 or data-URL strings anywhere in
    the JSON body (bare, in lists, or wrapped as {"url": ...})."""
    found = [part for parts in fake_call.file_lists.values() for part in parts if part.startswith(b"\x89PNG")]

    def walk(value) -> None:
        if isinstance(value, dict):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)
        elif isinstance(value, str) and len(value) > 64:
            data = value.split(",", 1)[1] if value.startswith("data:") else value
            try:  # standard or URL-safe alphabet (google-genai sends bytes URL-safe, as protobuf JSON allows)
                decoded = base64.b64decode(data.replace("-", "+").replace("_", "/"), validate=True)
            except (binascii.Error, ValueError):
                return
            if decoded.startswith(b"\x89PNG"):
                found.append(decoded)

    walk(fake_call.body)
    return found


def test_every_preset_in_the_file_is_covered(capsys):
    slugs = ids(PRESETS)
    assert len(slugs) == len(set(slugs)), "two presets share a slug"
    assert len(HTTP_PRESETS) >= 15
    hosts = {e.slug: fake_class_for(e).__name__ for e in HTTP_PRESETS}  # KeyError = a preset without a fake
    local = {e.slug: e.adapter for e in PRESETS if e.adapter in NOT_HTTP}
    assert set(local.values()) == {"diffusers", "external"}
    with capsys.disabled():
        print("\npresets in models.toml and what runs them:")
        for slug, fake in hosts.items():
            print(f"  {slug:<34} {fake}: generate + latency run, rate limit, job failure, expired URL")
        for slug, adapter in local.items():
            where = (
                "test_provider_diffusers (tiny pipeline)" if adapter == "diffusers" else "test_outputs_import"
            )
            print(f"  {slug:<34} {adapter}: params validated here; generation in {where}")


@pytest.mark.parametrize("entry", HTTP_PRESETS, ids=ids(HTTP_PRESETS))
def test_the_happy_path_returns_the_image_and_keeps_the_key_out_of_the_record(entry, keys):
    fake = started(entry)
    try:
        result = call(entry, fake)
    finally:
        fake.stop()
    assert result.image.startswith(b"\x89PNG")
    assert result.timing.last_byte > result.timing.started
    first = fake.calls[0]
    if entry.modality == "image_editing":
        assert received_images(first) == [png_bytes("96x96", "ref")], "the reference image did not arrive"
    if entry.params.get(
        "api_key_env", "unset"
    ):  # every preset but a keyless self-hosted server sends its key
        assert any(SECRET in value for value in first.headers.values()), "the key is not sent"
    assert SECRET not in json.dumps(result.sent_params) + json.dumps(result.raw_metadata, default=str)
    sent = json.dumps(result.sent_params)
    for switch in (
        "enable_safety_checker",
        "disable_safety_checker",
        "safety_tolerance",
        "BLOCK_NONE",
        "add_watermark",
        "moderation",
        "magic_prompt",
    ):
        if switch in json.dumps(entry.params) or (
            switch == "BLOCK_NONE" and entry.params.get("api") == "gemini"
        ):
            assert switch in sent, f"{switch} is configured but not recorded as sent"


@pytest.mark.parametrize("scenario", ["rate_limited", "failed", "expired"])
@pytest.mark.parametrize("entry", HTTP_PRESETS, ids=ids(HTTP_PRESETS))
def test_each_documented_failure_is_typed_and_the_next_call_recovers(entry, scenario, keys):
    fake = started(entry)
    try:
        fake.push(scenario)
        if scenario == "expired" and fake.delivery == "inline":
            # The preset takes the image inline: no result URL can expire, and the call simply succeeds.
            result = call(entry, fake)
            assert result.raw_metadata.get("delivery") != "url"
            outcome = "n/a (inline)"
        else:
            expected = RateLimited if scenario == "rate_limited" else ServerError
            with pytest.raises(expected) as info:
                call(entry, fake)
            assert info.value.retryable
            if scenario == "expired":
                assert "expired" in str(info.value)
            outcome = type(info.value).__name__
        again = call(entry, fake)
        assert again.image.startswith(b"\x89PNG")
    finally:
        fake.stop()
    RAN.setdefault(entry.slug, set()).add(f"{scenario}: {outcome}")


@pytest.mark.parametrize("entry", EDIT_PRESETS, ids=ids(EDIT_PRESETS))
def test_several_reference_images_are_all_sent_or_refused(entry, keys, capsys):
    """An edit with two references (a try-on: the person, then the garment): the provider receives both, in
    order and in the documented form, or the adapter refuses the request before anything is sent."""
    refs = (png_bytes("80x80", "person"), png_bytes("80x80", "garment"))
    request = GenerationRequest(
        prompt="Dress the person in the garment",
        modality="image_editing",
        reference_image=refs[0],
        extra_references=refs[1:],
    )
    fake = started(entry)
    try:
        try:
            result = call(entry, fake, request)
        except UnsupportedRequest as exc:
            assert fake.calls == [], "a refused request must not reach the provider"
            outcome = f"refused ({exc})"
        else:
            received = fake.calls[0]
            assert received_images(received) == list(refs), "both references must arrive, in order"
            assert json.dumps(result.sent_params).count('"sha256"') == 2, "both references must be recorded"
            if entry.adapter == "openai":  # the documented multipart form: repeated image[] parts
                assert received.file_lists.get("image[]") == list(refs) and "image" not in received.file_lists
            outcome = "both sent"
    finally:
        fake.stop()
    with capsys.disabled():
        print(f"\n  two references, {entry.slug}: {outcome}")


@pytest.mark.parametrize(("slug", "most"), [("gpt-image-1-edit", 16), ("grok-imagine-image-edit", 3)])
def test_the_documented_reference_limit_is_sent_and_one_more_is_refused(slug, most, keys):
    """OpenAI's edits take up to 16 input images for gpt-image models, xAI's up to 3: the limit arrives whole
    (xAI: as the images list, since one source image goes as image), one more is refused before sending."""
    entry = next(e for e in PRESETS if e.slug == slug)
    refs = [png_bytes("64x64", f"ref-{i}") for i in range(most + 1)]

    def edit(count: int) -> GenerationRequest:
        return GenerationRequest(
            prompt="Put every object on one table",
            modality="image_editing",
            reference_image=refs[0],
            extra_references=tuple(refs[1:count]),
        )

    fake = started(entry)
    try:
        call(entry, fake, edit(most))
        assert received_images(fake.calls[0]) == refs[:most]
        if entry.adapter == "submit_poll":
            assert len(fake.calls[0].body["images"]) == most and "image" not in fake.calls[0].body
        with pytest.raises(UnsupportedRequest):
            call(entry, fake, edit(most + 1))
        assert len(fake.calls) == 1, "the refused request reached the provider"
    finally:
        fake.stop()


@pytest.mark.parametrize(
    ("slug", "change", "reason"),
    [
        ("recraft-v3-edit", {"defaults": {"style": "realistic_image"}}, "strength is required"),
        ("grok-imagine-image-edit", {"image_object_key": None}, "an object with a url"),
        ("flux-kontext-pro-together-edit", {"images_field": "image_url"}, "image_url must be one image URL"),
    ],
)
def test_the_fakes_refuse_an_edit_that_breaks_the_documented_form(slug, change, reason, keys):
    """The fakes check what the docs require (so the presets' passing runs mean something): a preset altered to
    break it gets the provider's 400, typed as BadResponse and never retried."""
    entry = next(e for e in PRESETS if e.slug == slug)
    broken = entry.model_copy(update={"params": {**entry.params, **change}})
    fake = started(entry)
    try:
        with pytest.raises(BadResponse, match=reason) as info:
            call(broken, fake)
        assert not info.value.retryable
    finally:
        fake.stop()


@pytest.fixture
def run(settings, monkeypatch):
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    monkeypatch.setenv("ARENA_MODELS_FILE", str(settings.models_file))
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args), catch_exceptions=False)


def test_arena_generate_and_latency_run_work_unchanged_for_every_preset(
    initialized, run, settings, keys, capsys
):
    """One arena (per database) with every HTTP preset registered against its fake: `arena generate` and, for
    text to image, `arena latency run` exactly as an operator runs them."""
    ran = []
    for entry in HTTP_PRESETS:
        fake = started(entry)
        try:
            with Session(initialized) as session:
                sync_registry(session, [entry.model_copy(update={"params": point_at(entry, fake.url)})])
            result = run("generate", "--model", entry.slug, "--limit", "1", "--json")
            assert result.exit_code == 0, f"{entry.slug}: {result.output}"
            with Session(initialized) as session:
                rows = session.exec(select(Output).where(Output.model_slug == entry.slug)).all()
            assert [r.status for r in rows] == ["ok"], (entry.slug, [r.error_message for r in rows])
            assert (settings.media_dir / "served" / f"{rows[0].media_id}.jpg").is_file()
            assert rows[0].sent_params and rows[0].latency_s > 0
            if entry.modality == "image_editing":
                sent = [c.files or "image" in json.dumps(c.body) for c in fake.calls]
                assert any(sent), f"{entry.slug}: no reference image sent"
                ran.append(f"{entry.slug}: generate ok")
                continue
            timed = run("latency", "run", "--model", entry.slug, "--json")
            assert timed.exit_code == 0, f"{entry.slug}: {timed.output}"
            with Session(initialized) as session:
                samples = session.exec(
                    select(LatencySample).where(LatencySample.model_slug == entry.slug)
                ).all()
            assert [x.status for x in samples] == ["ok"], (entry.slug, [x.error_message for x in samples])
            assert samples[0].seconds > 0
            ran.append(f"{entry.slug}: generate ok, latency run ok ({samples[0].seconds:.3f} s)")
        finally:
            fake.stop()
    assert len(ran) == len(HTTP_PRESETS)
    with capsys.disabled():
        print("\nconformance over `arena generate` / `arena latency run`:\n  " + "\n  ".join(ran))
