"""Adapter params are refused with field and reason; the size choice and Retry-After parsing follow the rules."""

import email.utils
import time

import httpx
import pytest

from arena.generation.providers import GenerationRequest, describe_defaults, validate_params
from arena.generation.providers.base import (
    BadResponse,
    ContentRefused,
    ProviderTimeout,
    RateLimited,
    ServerError,
)
from arena.generation.providers.http_common import dotted, error_for_status, pick_size, retry_after_seconds

QUEUE = {"submit_url": "https://q.example/v1/jobs", "status_url": "https://q.example/v1/jobs/{id}"}


@pytest.mark.parametrize(
    ("adapter", "params", "message"),
    [
        ("telepathy", {}, "field 'adapter': unknown adapter 'telepathy'"),
        ("openai", {}, "field 'params.model': required"),
        (
            "openai",
            {"model": "m", "colour": 1},
            "field 'params.colour': unknown parameter for adapter 'openai'",
        ),
        (
            "openai_compatible",
            {"model": "m"},
            "field 'params.base_url': required for adapter 'openai_compatible'",
        ),
        ("openai", {"model": "m", "base_url": "ftp://x"}, "field 'params.base_url': must be an http"),
        ("openai", {"model": "m", "sizes": ["1024"]}, "field 'params.sizes': '1024' is not WIDTHxHEIGHT"),
        (
            "openai",
            {"model": "m", "sizes": ["1536x1024"]},
            "field 'params.sizes': must include a square size",
        ),
        (
            "openai",
            {"model": "m", "defaults": {"seed": 1}},
            "field 'params.defaults': 'seed' is set by the adapter",
        ),
        ("openai", {"model": "m", "response_format": "png"}, "field 'params.response_format'"),
        ("openai", {"model": "m", "timeout_s": 0}, "field 'params.timeout_s'"),
        ("submit_poll", {"submit_url": "https://q.example"}, "field 'params.status_url': set status_url"),
        ("submit_poll", {**QUEUE, "status_url": "https://q.example/jobs"}, "must contain '{id}'"),
        ("submit_poll", {**QUEUE, "poll_interval_ms": 0}, "field 'params.poll_interval_ms'"),
        ("sandbox", {"palette": "plaid"}, "field 'params.palette': unknown palette 'plaid'"),
        ("sandbox", {"palette": ["#ffffff"]}, "field 'params.palette': a custom palette is 2 to 8"),
        ("sandbox", {"text_fidelity": "poetic"}, "field 'params.text_fidelity'"),
        ("sandbox", {"native_size": 64}, "field 'params.native_size'"),
        ("sandbox", {"latency_ms": {"median": 900, "p95": 100}}, "field 'params.latency_ms.p95'"),
        ("sandbox", {"latency_ms": {"median": 9, "p95": 10, "sigma": 1}}, "field 'params.latency_ms.p95'"),
        ("sandbox", {"latency_ms": {"p95": 10}}, "field 'params.latency_ms.median': required"),
    ],
)
def test_bad_params_are_refused_naming_the_field_and_the_reason(adapter, params, message):
    with pytest.raises(ValueError) as info:
        validate_params(adapter, params)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("adapter", "params"),
    [
        ("openai", {"model": "gpt-image-1"}),
        ("openai_compatible", {"model": "m", "base_url": "http://127.0.0.1:9000/v1", "api_key_env": ""}),
        ("submit_poll", QUEUE),
        ("submit_poll", {"submit_url": "https://q.example/v1/jobs", "status_url_field": "polling_url"}),
        ("sandbox", {}),
        ("sandbox", {"palette": ["#000000", "#ffffff"], "latency_ms": {"median": 0}}),
    ],
)
def test_minimal_params_are_accepted(adapter, params):
    validate_params(adapter, params)


def test_describe_defaults_lists_what_a_default_request_sends_without_the_prompt():
    described = describe_defaults(
        "openai",
        {"model": "m", "sizes": ["512x512", "1024x1024"], "supports_seed": True, "defaults": {"q": 1}},
    )
    assert described == {"model": "m", "size": "1024x1024", "n": 1, "q": 1, "seed": 42}
    assert describe_defaults("submit_poll", {**QUEUE, "prompt_field": "text"}) == {
        "width": 1024,
        "height": 1024,
        "seed": 42,
    }


@pytest.mark.parametrize(
    ("adapter", "params", "message"),
    [
        (
            "openai",
            {"model": "m", "edit_path": "images/edit"},
            "field 'params.edit_path': String should match",
        ),
        ("openai", {"model": "m", "edit_path": "/a b"}, "field 'params.edit_path': String should match"),
        ("submit_poll", {**QUEUE, "max_references": 0}, "field 'params.max_references': Input should be"),
        ("submit_poll", {**QUEUE, "max_references": 17}, "field 'params.max_references': Input should be"),
    ],
)
def test_edit_form_params_are_checked(adapter, params, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        validate_params(adapter, params)


def test_an_own_edit_endpoint_is_described_without_a_size():
    params = {"model": "m", "base_url": "https://x.example/v1", "edit_path": "/images/imageToImage"}
    assert "size" in describe_defaults("openai_compatible", params)
    assert describe_defaults("openai_compatible", params, modality="image_editing") == {"model": "m", "n": 1}


def test_the_largest_square_is_chosen_and_timing_runs_can_ask_for_the_requested_size():
    sizes = ["512x512", "2048x2048", "1024x1024", "1792x1024"]
    assert pick_size(sizes, GenerationRequest(prompt="x")) == (2048, 2048)
    timing = GenerationRequest(prompt="x", extra={"resolution": "requested"})
    assert pick_size(sizes, timing) == (1024, 1024)
    assert pick_size(["512x512"], timing) == (512, 512)
    assert pick_size(["1536x1536", "2048x2048"], timing) == (1536, 1536)


def test_retry_after_reads_seconds_milliseconds_and_http_dates():
    assert retry_after_seconds(httpx.Headers({"retry-after": "12"})) == 12.0
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "1500", "retry-after": "9"})) == 1.5
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < retry_after_seconds(httpx.Headers({"retry-after": later})) <= 30
    assert retry_after_seconds(httpx.Headers({"retry-after": "soon"})) is None
    assert retry_after_seconds(httpx.Headers()) is None


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (429, b"{}", RateLimited),
        (408, b"", ProviderTimeout),
        (503, b"upstream down", ServerError),
        (400, b'{"error": {"code": "moderation_blocked", "message": "no"}}', ContentRefused),
        (400, b'{"detail": "prompt flagged by the NSFW safety checker"}', ContentRefused),
        (400, b'{"error": {"code": "invalid_size", "message": "bad size"}}', BadResponse),
        (401, b'{"error": {"message": "Incorrect API key"}}', BadResponse),
    ],
)
def test_error_statuses_map_to_typed_errors(status, body, kind):
    assert type(error_for_status(status, httpx.Headers(), body, what="x")) is kind


UNKNOWN_MODERATION = (
    b'{"error": {"message": "Unknown parameter: \'moderation\'.", "type": "invalid_request_error",'
    b' "param": "moderation", "code": "unknown_parameter"}}'
)


@pytest.mark.parametrize(
    ("status", "body", "refusal_statuses", "kind"),
    [
        # OpenAI: the code decides, whatever words the message holds (openai-python _exceptions.py reads
        # code / param / type from the error object).
        (400, UNKNOWN_MODERATION, frozenset(), BadResponse),
        (
            400,
            b'{"error": {"code": "content_policy_violation", "message": "x"}}',
            frozenset(),
            ContentRefused,
        ),
        (400, b'{"error": {"message": "safety", "type": "invalid_request_error"}}', frozenset(), BadResponse),
        # Ideogram: 422 is its documented safety rejection; the same body on another status is not.
        (
            422,
            b'{"error": "Prompt or provided image failed the safety checks"}',
            frozenset({422}),
            ContentRefused,
        ),
        (422, b'{"error": "Prompt or provided image failed the safety checks"}', frozenset(), BadResponse),
        # fal: model errors are a detail list whose type is the code (fal.ai/docs .../model-apis/errors).
        (
            422,
            b'{"detail": [{"type": "content_policy_violation", "msg": "flagged"}]}',
            frozenset(),
            ContentRefused,
        ),
        (422, b'{"detail": [{"type": "extra_forbidden", "msg": "moderation"}]}', frozenset(), BadResponse),
        # Stability: {name, errors}; name content_moderation on a 403.
        (
            403,
            b'{"id": "1", "name": "content_moderation", "errors": ["flagged"]}',
            frozenset(),
            ContentRefused,
        ),
        (403, b'{"id": "1", "name": "unauthorized", "errors": ["safety"]}', frozenset(), BadResponse),
        # The last resort: a code-less 400 read by its words, unless they name a rejected field.
        (400, b'{"detail": "Unknown parameter: moderation"}', frozenset(), BadResponse),
        (400, b'{"detail": "safety_tolerance is not supported"}', frozenset(), BadResponse),
        (400, b"blocked by the safety system", frozenset(), ContentRefused),
        # A provider that documents its refusal status (Ideogram: 422) never has a 400 read by its words.
        (400, b'{"error": "Invalid input: moderation"}', frozenset({422}), BadResponse),
        (400, b'{"error": "Invalid input: unknown field moderation"}', frozenset(), BadResponse),
    ],
)
def test_errors_are_typed_by_documented_status_and_code_before_words(status, body, refusal_statuses, kind):
    error = error_for_status(status, httpx.Headers(), body, what="x", refusal_statuses=refusal_statuses)
    assert type(error) is kind, str(error)


def test_dotted_paths_walk_objects_and_lists_and_return_none_when_missing():
    data = {"result": {"images": [{"url": "u"}]}, "id": 0}
    assert dotted(data, "result.images.0.url") == "u"
    assert dotted(data, "id") == 0
    assert dotted(data, "result.images.3.url") is None and dotted(data, "nope.x") is None


@pytest.mark.parametrize(
    ("code", "status", "message", "kind"),
    [
        # google.rpc Status errors, as google-genai's errors.APIError parses them: a field the API does not know
        # is a request error even when it is named "safety...".
        (400, "INVALID_ARGUMENT", 'Invalid JSON payload received. Unknown name "safetySetting"', BadResponse),
        # Imagen's blocked prompt is a 400 told only by its text: the last resort reads it as a refusal.
        (
            400,
            "INVALID_ARGUMENT",
            "The prompt could not be submitted: it violates the safety policy",
            ContentRefused,
        ),
        (403, "PERMISSION_DENIED", "The caller does not have permission (safety settings)", BadResponse),
        (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", RateLimited),
    ],
)
def test_google_errors_are_typed_by_code_and_status_before_words(code, status, message, kind):
    pytest.importorskip("google.genai")
    from google.genai import errors

    from arena.generation.providers.google_genai import _typed

    error = errors.APIError(code, {"error": {"code": code, "message": message, "status": status}})
    assert type(_typed(error)) is kind
