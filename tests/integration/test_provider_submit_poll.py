"""The submit-and-poll adapter against a fake queue API over real HTTP: polling, timing, edits, typed errors."""

import asyncio
import base64
import json
import statistics
import time
from collections.abc import Iterator

import httpx
import pytest

from arena.generation.providers import (
    BadResponse,
    ContentRefused,
    GenerationRequest,
    MissingApiKey,
    ProviderTimeout,
    RateLimited,
    ServerError,
    build_provider,
)
from tests.fakes.images import png_bytes
from tests.fakes.queue_server import FakeQueueServer, JobBehaviour

KEY_ENV = "ARENA_TEST_QUEUE_KEY"
# The methodology's fixed 100 ms cadence, which a timing run can still ask for (the default backs off).
CADENCE = {"poll_interval_ms": 100, "poll_backoff": 1, "poll_jitter": False}
SECRET = "queue-secret-0123456789"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeQueueServer]:
    monkeypatch.setenv(KEY_ENV, SECRET)
    with FakeQueueServer() as fake:
        yield fake


def call(server, request=None, *behaviours, **overrides):
    """Script the next jobs, make one call through a fresh provider, close it; returns the result."""
    server.push(*behaviours)
    params = server.params(**{"api_key_env": KEY_ENV, "timeout_s": 10, **overrides})

    async def go():
        provider = build_provider("submit_poll", params, slug="queue")
        try:
            return await provider.generate(request or GenerationRequest(prompt="a lighthouse at dusk"))
        finally:
            await provider.aclose()

    return asyncio.run(go())


def only_job(server):
    [job] = server.jobs.values()
    return job


def test_a_job_is_submitted_polled_and_its_url_downloaded(server):
    result = call(server, None, JobBehaviour("url", delay_s=0.3))
    job = only_job(server)
    assert job.body == {"prompt": "a lighthouse at dusk", "width": 1024, "height": 1024, "seed": 42}
    assert job.headers["authorization"] == f"Bearer {SECRET}"
    assert result.image == png_bytes("1024x1024", str(job.body))
    assert result.sent_params == job.body
    assert result.raw_metadata["delivery"] == "url" and result.raw_metadata["polls"] == len(job.polls)
    assert SECRET not in json.dumps(result.sent_params) + json.dumps(result.raw_metadata)


def test_an_inline_base64_result_is_decoded_and_left_out_of_the_metadata(server):
    result = call(server, None, JobBehaviour("b64"))
    assert result.image == png_bytes("1024x1024", str(only_job(server).body))
    assert result.raw_metadata["delivery"] == "b64"
    assert "b64" not in result.raw_metadata["final"]["result"]


def test_a_fixed_100_ms_cadence_when_asked_and_the_time_covers_submit_to_last_byte(server):
    result = call(server, None, JobBehaviour("url", delay_s=0.6), **CADENCE)
    gaps = [b - a for a, b in zip(only_job(server).polls, only_job(server).polls[1:], strict=False)]
    assert 0.08 <= statistics.median(gaps) < 0.3
    assert 0.6 <= result.timing.total_seconds < 1.1


def test_polls_keep_to_a_fixed_grid_so_late_sleeps_do_not_add_up(server):
    asked: list[float] = []

    async def late_sleep(seconds: float) -> None:  # every sleep overshoots by 20 ms, as a busy loop may
        asked.append(seconds)
        await asyncio.sleep(seconds + 0.02)

    server.push(JobBehaviour("b64", delay_s=0.75))
    params = server.params(api_key_env=KEY_ENV, timeout_s=10, **CADENCE)

    async def go():
        provider = build_provider("submit_poll", params, slug="queue", sleep=late_sleep)
        try:
            return await provider.generate(GenerationRequest(prompt="a lighthouse at dusk"))
        finally:
            await provider.aclose()

    asyncio.run(go())
    assert len(asked) >= 6
    # On a grid each sleep makes up for the previous overshoot (asks ~80 ms); interval-after-poll sleeps would
    # ask ~100 ms minus the poll's own time every time and drift 20 ms per poll.
    assert sum(asked[1:]) <= 0.09 * len(asked[1:])


def test_the_result_download_counts_in_the_time(server):
    result = call(server, None, JobBehaviour("url", delay_s=0.2, download_delay_s=0.4))
    timing = result.timing
    assert 0.6 <= timing.total_seconds < 1.1
    assert timing.first_byte - timing.started >= 0.6


def test_a_rate_limited_submit_is_retryable_with_retry_after(server):
    with pytest.raises(RateLimited) as info:
        call(server, None, JobBehaviour("rate_limited", retry_after="3"))
    assert info.value.retry_after == 3.0 and info.value.retryable


def test_a_failing_submit_is_a_server_error(server):
    with pytest.raises(ServerError):
        call(server, None, JobBehaviour("server_error"))


def call_with_short_http_timeout(server, behaviour, seconds):
    """One call whose HTTP requests time out after `seconds` (the job's own timeout_s stays 10 s)."""
    server.push(behaviour)
    params = server.params(api_key_env=KEY_ENV, timeout_s=10)

    async def go():
        async with httpx.AsyncClient(timeout=seconds) as client:
            provider = build_provider("submit_poll", params, slug="queue", http_client=client)
            return await provider.generate(GenerationRequest(prompt="a lighthouse at dusk"))

    return asyncio.run(go())


def test_a_status_poll_that_times_out_counts_against_the_poll_budget_and_polling_goes_on(server):
    result = call_with_short_http_timeout(server, JobBehaviour("b64", slow_polls=2, poll_delay_s=0.6), 0.2)
    assert result.image == png_bytes("1024x1024", str(only_job(server).body))
    assert len(only_job(server).polls) >= 3


def test_status_polls_that_keep_timing_out_end_in_a_timeout_after_the_budget(server):
    with pytest.raises(ProviderTimeout) as info:
        call_with_short_http_timeout(server, JobBehaviour("b64", slow_polls=9, poll_delay_s=0.6), 0.2)
    assert "status" in str(info.value) and info.value.retryable
    assert len(only_job(server).polls) == 3


def test_status_polls_that_keep_failing_end_in_a_server_error(server):
    with pytest.raises(ServerError) as info:
        call(server, None, JobBehaviour("poll_error"))
    assert "502" in str(info.value) and len(only_job(server).polls) == 3


def test_a_job_failed_for_safety_reasons_is_a_content_refusal(server):
    with pytest.raises(ContentRefused) as info:
        call(server, None, JobBehaviour("refused", delay_s=0.1))
    assert "NSFW" in str(info.value)


def test_a_job_failed_for_other_reasons_is_a_retryable_server_error(server):
    with pytest.raises(ServerError) as info:
        call(server, None, JobBehaviour("failed"))
    assert "CUDA OOM" in str(info.value) and info.value.retryable


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("truncated_download", "truncated body"),
        ("not_image_download", "not a readable image"),
        ("missing_id", "no job id"),
    ],
)
def test_a_malformed_answer_is_a_bad_response(server, kind, reason):
    with pytest.raises(BadResponse) as info:
        call(server, None, JobBehaviour(kind))
    assert reason in str(info.value)


def test_a_job_that_never_finishes_is_a_provider_timeout(server):
    started = time.perf_counter()
    with pytest.raises(ProviderTimeout):
        call(server, None, JobBehaviour("never"), timeout_s=0.4)
    assert 0.4 <= time.perf_counter() - started < 1.5


def test_an_edit_sends_the_reference_and_mask_as_base64_under_the_configured_names(server):
    reference, mask = png_bytes("128x128", "ref"), png_bytes("128x128", "mask")
    request = GenerationRequest(
        prompt="add a hat", modality="image_editing", reference_image=reference, mask=mask
    )
    result = call(server, request, JobBehaviour("b64"), image_field="input_image", mask_field="input_mask")
    body = only_job(server).body
    assert base64.b64decode(body["input_image"]) == reference
    assert base64.b64decode(body["input_mask"]) == mask
    assert result.sent_params["input_image"]["bytes"] == len(reference)
    assert "input_mask" in result.sent_params and len(json.dumps(result.sent_params)) < 1000


@pytest.mark.parametrize("supports_seed", [True, False])
def test_the_seed_is_sent_only_when_the_model_supports_it(server, supports_seed):
    call(server, None, JobBehaviour("b64"), supports_seed=supports_seed)
    assert ("seed" in only_job(server).body) is supports_seed


def test_auth_header_status_url_field_size_object_and_defaults_are_configurable(server):
    result = call(
        server,
        None,
        JobBehaviour("url"),
        auth_header="x-key",
        auth_prefix="",
        status_url_field="polling_url",
        size_field="image_size",
        defaults={"steps": 28, "guidance": 3.5},
    )
    job = only_job(server)
    assert job.headers["x-key"] == SECRET and "authorization" not in job.headers
    assert job.body["image_size"] == {"width": 1024, "height": 1024}
    assert job.body["steps"] == 28 and result.sent_params["guidance"] == 3.5


def test_a_separate_result_document_is_fetched_when_the_queue_names_one(server):
    result = call(
        server,
        None,
        JobBehaviour("url", delay_s=0.2),
        status_url_field="polling_url",
        result_json_url_field="response_url",
        result_url_field="images.0.url",
        done_values=["COMPLETED"],
    )
    assert [r.path.rsplit("/", 1)[-1] for r in server.requests][-2:] == ["result", "job-1.png"]
    assert result.raw_metadata["final"]["images"][0]["content_type"] == "image/png"
    assert result.timing.total_seconds >= 0.2


def test_sizes_pick_the_largest_supported_square(server):
    call(server, None, JobBehaviour("b64"), sizes=["768x768", "1440x1440", "1920x1080"])
    assert only_job(server).body["width"] == 1440


def test_a_missing_api_key_fails_before_anything_is_submitted(server, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(MissingApiKey):
        call(server, None, JobBehaviour("url"))
    assert server.jobs == {}
