"""Refusals and request errors typed by the provider's documented status and code, over real HTTP against fakes
that answer as each provider documents (tests/fakes/hosted_sync.py and hosted_queue.py cite the doc section or
SDK file of every field list and error body). Issue 29, items 1 and 2: an OpenAI 400 unknown_parameter whose
message names `moderation` is a request error, not a refusal; OpenAI's moderation_blocked, Ideogram's 422, BFL's
Request Moderated, fal's content_policy_violation, Stability's content_moderation, Gemini's blockReason and
Imagen's raiFilteredReason are refusals; the fakes refuse undocumented fields and a wrongly sent key."""

from __future__ import annotations

import httpx
import pytest

from arena.generation.providers import BadResponse, ContentRefused
from tests.integration.test_provider_presets import HTTP_PRESETS, PRESETS, SECRET, call, ids, keys, started
from tests.support.presets import documents_refusal, fake_class_for

__all__ = ["keys"]  # the fixture, re-exported for pytest

REFUSING = [e for e in HTTP_PRESETS if documents_refusal(e)]
KEYED = [e for e in HTTP_PRESETS if e.params.get("api_key_env")]


def preset(slug: str):
    return next(e for e in PRESETS if e.slug == slug)


def with_params(slug: str, **change):
    entry = preset(slug)
    return entry.model_copy(update={"params": {**entry.params, **change}})


@pytest.mark.parametrize("entry", REFUSING, ids=ids(REFUSING))
def test_each_documented_refusal_is_a_content_refusal_and_never_retried(entry, keys):
    fake = started(entry)
    try:
        fake.push("refused")
        with pytest.raises(ContentRefused) as info:
            call(entry, fake)
        assert not info.value.retryable
        assert call(entry, fake).image.startswith(b"\x89PNG")
    finally:
        fake.stop()


def test_the_refusing_fakes_cover_every_provider_that_documents_a_refusal():
    """Together, xAI, Recraft and Replicate document no refusal status or code: their fakes send none."""
    refusing = {fake_class_for(e).__name__ for e in REFUSING}
    assert refusing == {
        "FakeOpenAIImages",
        "FakeGoogle",
        "FakeBFL",
        "FakeFal",
        "FakeStability",
        "FakeIdeogram",
        "FakeGenericQueue",
    }
    assert {e.slug for e in REFUSING} >= {"gpt-image-1", "gpt-image-1-edit", "ideogram-3", "flux-1-1-pro"}


def test_the_gpt_image_edit_preset_sends_only_fields_of_the_sdk_edit_params(keys):
    """openai-python image_edit_params.py has no `moderation`; the preset no longer sends it, and the fake (which
    takes only the SDK's fields on /images/edits) answers it."""
    entry = preset("gpt-image-1-edit")
    assert "moderation" not in entry.params.get("defaults", {})
    fake = started(entry)
    try:
        call(entry, fake)
    finally:
        fake.stop()
    assert fake.calls[0].path == "/v1/images/edits"
    assert "moderation" not in fake.calls[0].body


def test_an_openai_unknown_parameter_is_a_request_error_even_when_it_names_moderation(keys):
    """The old preset (moderation on an edit): OpenAI's 400 code unknown_parameter, message "Unknown parameter:
    'moderation'." — a BadResponse, not a refusal (the words "moderat" used to make it one)."""
    old = with_params("gpt-image-1-edit", defaults={"moderation": "low"})
    fake = started(old)
    try:
        with pytest.raises(BadResponse, match="unknown_parameter") as info:
            call(old, fake)
    finally:
        fake.stop()
    assert not isinstance(info.value, ContentRefused)
    assert "moderation" in str(info.value)


@pytest.mark.parametrize(
    ("slug", "field", "answer"),
    [
        ("gpt-image-1", "safety_tolerance", "unknown_parameter"),  # not in ImageGenerateParams
        ("flux-1-1-pro", "guidance", "extra_forbidden"),  # not in FLUX 1.1 [pro]'s request body
        ("flux-kontext-pro-edit", "width", "extra_forbidden"),  # Kontext takes aspect_ratio, not width
        ("flux-1-schnell-together", "moderation", "unknown field"),  # not in Together's OpenAPI body
        ("ideogram-3", "moderation", "unknown field"),  # not a generate-v3 form field
        ("ideogram-3-remix", "strength", "unknown field"),  # remix-v3 weighs the image with image_weight
        ("stable-image-core", "safety_tolerance", "bad_request"),  # not a generate/core form field
        ("sd3-5-large-edit", "style_preset", "bad_request"),  # a core field, not an sd3 one
        ("recraft-v3", "quality", "unknown field"),  # an OpenAI Images field Recraft does not take
        ("recraft-v3-edit", "input_fidelity", "unknown field"),  # an OpenAI edits field, not imageToImage's
        ("grok-imagine-image", "quality", "unknown field"),  # not a GenerateImageRequest field in xai-sdk
        ("grok-imagine-image-edit", "mask", "unknown field"),  # nor is a mask
    ],
)
def test_a_field_outside_the_documented_list_is_refused_as_a_request_error(slug, field, answer, keys):
    """Where a fake cites the provider's field list, an undocumented field gets the provider's error: a
    BadResponse, never a refusal, whatever the field is called."""
    entry = preset(slug)
    broken = with_params(slug, defaults={**entry.params.get("defaults", {}), field: 1})
    fake = started(broken)
    try:
        with pytest.raises(BadResponse, match=answer) as info:
            call(broken, fake)
    finally:
        fake.stop()
    assert not isinstance(info.value, ContentRefused) and not info.value.retryable


@pytest.mark.parametrize("entry", KEYED, ids=ids(KEYED))
def test_the_fakes_refuse_a_missing_key_and_a_wrong_scheme(entry):
    """The key must be in the documented header with the documented scheme: the key alone in Authorization,
    `Bearer <key>` where the API wants `Key <key>` or a bare x-key, and no header at all are all refused."""
    fake = started(entry)
    cls = type(fake)
    wrong_scheme = "Token " if fake.auth_scheme else "Bearer "
    attempts = [
        {},
        {fake.auth_header: f"{wrong_scheme}{SECRET}"},
        {fake.auth_header: fake.auth_scheme + "not-the-key"},
    ]
    if fake.auth_header != "authorization":
        attempts.append({"Authorization": f"Bearer {SECRET}"})
    try:
        for headers in attempts:
            response = httpx.post(f"{fake.url}/v1/anything:generateContent", headers=headers, json={})
            assert response.status_code in (401, 403), (cls.__name__, headers)
        assert fake.calls == []
    finally:
        fake.stop()


def test_a_preset_sending_its_key_the_wrong_way_gets_a_request_error(monkeypatch):
    """BFL wants the bare key in x-key; sent as `Authorization: Bearer` the API answers 403, typed BadResponse."""
    monkeypatch.setenv("BFL_API_KEY", SECRET)
    broken = with_params("flux-1-1-pro", auth_header="Authorization", auth_prefix="Bearer ")
    fake = started(broken)
    try:
        with pytest.raises(BadResponse, match="403"):
            call(broken, fake)
    finally:
        fake.stop()


def test_the_replicate_fake_answers_in_the_models_own_output_shape(keys):
    """Kontext [pro] on Replicate returns one URI: a preset reading `output.0` gets no URL, whatever the preset
    says (the fake no longer takes its output shape from the preset under test)."""
    broken = with_params("flux-kontext-pro-replicate-edit", result_url_field="output.0")
    fake = started(broken)
    try:
        with pytest.raises(BadResponse, match="no result URL"):
            call(broken, fake)
    finally:
        fake.stop()


def test_the_google_fake_serves_only_the_documented_paths():
    entry = preset("gemini-2-5-flash-image")
    fake = started(entry)
    try:
        headers = {"x-goog-api-key": SECRET}
        for path in (
            "/v1beta/anything:else",
            "/v1beta/models/m:predict",
            "/v1/tunedModels/m:generateContent",
        ):
            assert httpx.post(f"{fake.url}{path}", headers=headers, json={}).status_code == 404, path
        ok = httpx.post(f"{fake.url}/v1beta/models/m:generateContent", headers=headers, json={})
        assert ok.status_code == 200
    finally:
        fake.stop()
