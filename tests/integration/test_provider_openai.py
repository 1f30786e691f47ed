"""The OpenAI Images adapter against a fake Images API over real HTTP: results, timing, edits, typed errors."""

import asyncio
import base64
import io
import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image

from arena.generation.providers import (
    BadResponse,
    ContentRefused,
    GenerationRequest,
    MissingApiKey,
    ProviderTimeout,
    RateLimited,
    ServerError,
    UnsupportedRequest,
    build_provider,
)
from tests.fakes.images import png_bytes
from tests.fakes.openai_server import Behaviour, FakeOpenAIServer

KEY_ENV = "ARENA_TEST_IMAGES_KEY"
SECRET = "sk-test-do-not-store-me-0123456789"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv(KEY_ENV, SECRET)
    with FakeOpenAIServer() as fake:
        yield fake


def params(server: FakeOpenAIServer, **overrides) -> dict:
    return {
        "model": "fake-image-1",
        "base_url": server.base_url,
        "api_key_env": KEY_ENV,
        "sizes": ["512x512", "1024x1024", "1536x1024"],
        "timeout_s": 10,
        **overrides,
    }


def call(server, request=None, *behaviours, adapter="openai_compatible", http_client=None, **overrides):
    """Script the server, make one call through a fresh provider, close it; returns the result."""
    server.push(*behaviours)

    async def go():
        provider = build_provider(adapter, params(server, **overrides), slug="fake", http_client=http_client)
        try:
            return await provider.generate(request or GenerationRequest(prompt="a red fox in the snow"))
        finally:
            await provider.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("adapter", ["openai", "openai_compatible"])
def test_a_generation_returns_the_image_and_records_what_was_sent_without_the_key(server, adapter):
    result = call(
        server, None, Behaviour("b64"), adapter=adapter, defaults={"quality": "high", "moderation": "low"}
    )
    with Image.open(io.BytesIO(result.image)) as image:
        assert image.size == (1024, 1024)
    sent = server.calls[-1]
    assert sent.endpoint == "generations"
    assert sent.headers["authorization"] == f"Bearer {SECRET}"
    assert sent.fields == {
        "model": "fake-image-1",
        "prompt": "a red fox in the snow",
        "size": "1024x1024",
        "n": 1,
        "quality": "high",
        "moderation": "low",
    }
    assert result.sent_params == {**sent.fields, "endpoint": "images.generate"}
    assert SECRET not in json.dumps(result.sent_params) + json.dumps(result.raw_metadata)
    assert "b64_json" not in result.raw_metadata["data"][0]
    assert result.raw_metadata["delivery"] == "b64_json"


@pytest.mark.parametrize(("supports_seed", "expected"), [(True, 42), (False, None)])
def test_the_seed_is_sent_only_when_the_model_supports_it(server, supports_seed, expected):
    result = call(server, None, Behaviour("b64"), supports_seed=supports_seed)
    assert server.calls[-1].fields.get("seed") == expected
    assert result.sent_params.get("seed") == expected


def test_timing_runs_from_the_request_to_the_last_byte_and_is_at_least_the_injected_delay(server):
    result = call(server, None, Behaviour("b64", delay_s=0.4))
    timing = result.timing
    assert 0.4 <= timing.first_byte - timing.started <= timing.total_seconds < 0.9


def test_first_byte_is_when_the_headers_arrive_before_a_slow_body(server):
    timing = call(server, None, Behaviour("b64", body_delay_s=0.5)).timing
    # the hook can run a little after the headers land on a busy machine, so the gap gets some slack
    assert timing.last_byte - timing.first_byte >= 0.3
    assert 0.5 <= timing.total_seconds < 1.0


def test_a_url_response_is_downloaded_and_the_download_counts_in_the_time(server):
    result = call(server, None, Behaviour("url", delay_s=0.2, download_delay_s=0.3), response_format="url")
    assert server.calls[-1].fields["response_format"] == "url"
    assert result.raw_metadata["delivery"] == "url"
    assert 0.5 <= result.timing.total_seconds < 1.0
    assert result.timing.first_byte - result.timing.started < result.timing.total_seconds - 0.3
    Image.open(io.BytesIO(result.image)).verify()


def test_a_rate_limit_is_retryable_and_carries_retry_after(server):
    with pytest.raises(RateLimited) as info:
        call(server, None, Behaviour("rate_limited", retry_after="7"))
    assert info.value.retry_after == 7.0 and info.value.retryable


def test_a_server_error_is_retryable(server):
    with pytest.raises(ServerError) as info:
        call(server, None, Behaviour("server_error"))
    assert info.value.retryable and "500" in str(info.value)


@pytest.mark.parametrize("code", ["content_policy_violation", "moderation_blocked"])
def test_a_content_policy_refusal_is_typed_and_not_retried(server, code):
    with pytest.raises(ContentRefused) as info:
        call(server, None, Behaviour("refused", code=code))
    assert code in str(info.value) and not info.value.retryable


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("truncated", "truncated body"),
        ("not_image", "not a readable image"),
        ("bad_base64", "does not decode"),
        ("malformed_json", "malformed JSON"),
        ("missing_data", "no 'data'"),
        ("bad_request", "HTTP 400"),
        ("truncated_download", "truncated body"),
        ("not_image_download", "not a readable image"),
    ],
)
def test_a_malformed_response_is_a_bad_response_with_its_reason(server, kind, reason):
    with pytest.raises(BadResponse) as info:
        call(server, None, Behaviour(kind), response_format="url" if "download" in kind else None)
    assert reason in str(info.value) and not info.value.retryable


def test_a_response_slower_than_the_timeout_is_a_provider_timeout(server):
    started = time.perf_counter()
    with pytest.raises(ProviderTimeout):
        call(server, None, Behaviour("b64", delay_s=2.0), timeout_s=0.3)
    assert 0.3 <= time.perf_counter() - started < 1.5


def test_no_server_listening_is_a_server_error(server):
    with socket.socket() as sock:  # bind a free port, then release it: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ServerError) as info:
        call(server, None, base_url=f"http://127.0.0.1:{port}/v1", timeout_s=2)
    assert "connection failed" in str(info.value)


def test_an_edit_uploads_the_reference_image_and_mask_and_records_their_hashes(server):
    reference, mask = png_bytes("256x256", "reference"), png_bytes("256x256", "mask")
    request = GenerationRequest(
        prompt="make the sky purple", modality="image_editing", reference_image=reference, mask=mask
    )
    result = call(server, request, Behaviour("b64"), supports_seed=True)
    sent = server.calls[-1]
    assert sent.endpoint == "edits"
    assert sent.files == {"image": reference, "mask": mask}
    assert sent.fields["prompt"] == "make the sky purple" and sent.fields["seed"] == "42"
    assert result.sent_params["endpoint"] == "images.edit"
    assert result.sent_params["image"]["bytes"] == len(reference)
    assert len(result.sent_params["mask"]["sha256"]) == 64


def test_an_edit_region_becomes_an_openai_mask_when_configured(server):
    request = GenerationRequest(
        prompt="add a kite",
        modality="image_editing",
        reference_image=png_bytes("200x100"),
        edit_region=(0.5, 0.0, 1.0, 0.5),
    )
    call(server, request, Behaviour("b64"), region_as_mask=True)
    with Image.open(io.BytesIO(server.calls[-1].files["mask"])) as mask:
        alpha = mask.convert("RGBA").getchannel("A")
        assert mask.size == (200, 100)
        assert alpha.getpixel((150, 25)) == 0 and alpha.getpixel((50, 75)) == 255


def test_a_missing_api_key_fails_the_call_with_the_variable_name(server, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(MissingApiKey) as info:
        call(server, None, Behaviour("b64"))
    assert KEY_ENV in str(info.value) and not info.value.retryable
    assert server.calls == []


def test_a_passed_http_client_is_used_and_left_open_for_its_owner(server):
    async def go():
        async with httpx.AsyncClient(timeout=5) as client:
            provider = build_provider("openai_compatible", params(server), slug="fake", http_client=client)
            await provider.warm_up()
            result = await provider.generate(GenerationRequest(prompt="a boat"))
            await provider.aclose()
            assert not client.is_closed
            return result

    server.push(Behaviour("b64", delay_s=0.2))
    result = asyncio.run(go())
    assert [r.path for r in server.requests] == ["/v1/models", "/v1/images/generations"]
    assert result.timing.first_byte - result.timing.started >= 0.2


def test_the_image_bytes_are_returned_exactly_as_sent(server):
    result = call(server, None, Behaviour("b64"))
    assert result.image == png_bytes("1024x1024", "a red fox in the snow")
    assert base64.b64encode(result.image)


def test_an_edit_with_several_reference_images_sends_them_all(server):
    person, garment = png_bytes("256x256", "person"), png_bytes("128x128", "garment")
    request = GenerationRequest(
        prompt="put the person in the jacket",
        modality="image_editing",
        reference_image=person,
        extra_references=(garment,),
    )
    result = call(server, request, Behaviour("b64"))
    sent = server.calls[-1]
    assert sent.endpoint == "edits"
    assert sent.file_lists["image[]"] == [person, garment]
    assert [d["bytes"] for d in result.sent_params["image"]] == [len(person), len(garment)]


def test_dall_e_2_refuses_several_reference_images_instead_of_dropping_them(server):
    request = GenerationRequest(
        prompt="x",
        modality="image_editing",
        reference_image=png_bytes("64x64"),
        extra_references=(png_bytes("64x64"),),
    )
    with pytest.raises(UnsupportedRequest, match="one input image"):
        call(server, request, Behaviour("b64"), model="dall-e-2")
    assert server.calls == []
