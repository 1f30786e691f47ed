"""The timing clock against in-process HTTP servers with known injected delays (sync and submit-and-poll,
inline bytes and URL download), through the real adapters: the recorded time covers the injected delay and
stays within a generous margin of it (the tight p99 claim is measured by bench/bench_timing.py, since tests
never assert tight wall-clock numbers), and a failed or timed-out call is a failure, never a time."""

import asyncio

import pytest
from sqlalchemy import select

from arena.db.tables import LatencySample, Model, utcnow
from arena.leaderboard.latency import latency_stats
from scheduler.measure import measure
from scheduler.timing import open_provider, run_timing, timing_request, warm_up
from tests.fakes.openai_server import Behaviour, FakeOpenAIServer
from tests.fakes.queue_server import FakeQueueServer, JobBehaviour
from tests.fakes.scheduling import timing_world
from tests.fakes.timed import Timed, TimedQueueServer, TimedSyncServer

MARGIN = 0.5  # seconds: loopback, JSON and base64 work, the write to disk, a loaded 2-core machine

CASES = [
    ("openai_compatible", Timed("b64", 0.15)),
    ("openai_compatible", Timed("url", 0.1, download_delay_s=0.1)),
    ("submit_poll", Timed("b64", 0.2)),
    ("submit_poll", Timed("url", 0.3, download_delay_s=0.05)),
]


def model(slug, adapter, params):
    return Model(
        slug=slug,
        display_name=slug,
        organization="t",
        modality="text_to_image",
        adapter=adapter,
        params=params,
    )


async def timed_calls(adapter, server, calls, tmp_path, **overrides):
    params = server.params(timeout_s=10, **overrides)
    m = model("timed", adapter, params)
    provider, client = await open_provider(m, None)
    try:
        await warm_up(provider, client, m)
        results = []
        for i, call in enumerate(calls):
            server.push(call)
            results.append(
                await measure(provider, timing_request(f"prompt {i}"), scratch_dir=tmp_path, timeout=10)
            )
        return results
    finally:
        await provider.aclose()
        await client.aclose()
        await asyncio.sleep(0.05)  # let the server see the connection close before it stops


@pytest.mark.parametrize(("adapter", "call"), CASES, ids=["sync-b64", "sync-url", "poll-b64", "poll-url"])
def test_the_recorded_time_covers_the_injected_delay_and_little_more(adapter, call, tmp_path):
    server_cls = TimedSyncServer if adapter == "openai_compatible" else TimedQueueServer
    extra = {"response_format": "url"} if adapter == "openai_compatible" and call.delivery == "url" else {}
    with server_cls() as server:
        results = asyncio.run(timed_calls(adapter, server, [call] * 2, tmp_path, **extra))
    for result in results:
        assert result.status == "ok", result.error_message
        assert call.total_s <= result.seconds < call.total_s + MARGIN
        assert (result.width, result.height) == (1024, 1024)
        if adapter == "openai_compatible":
            assert call.delay_s <= result.first_byte_seconds <= result.seconds


def test_the_client_is_warmed_up_before_the_timed_request(tmp_path):
    with TimedSyncServer() as server:
        asyncio.run(timed_calls("openai_compatible", server, [Timed("b64", 0.01)], tmp_path))
    paths = [r.path for r in server.requests]
    assert paths.index("/v1/models") < paths.index("/v1/images/generations")


def test_polling_adds_at_most_about_one_interval_to_a_job_ending_between_polls(tmp_path):
    with TimedQueueServer() as server:
        [result] = asyncio.run(timed_calls("submit_poll", server, [Timed("b64", 0.25)], tmp_path))
    job_polls = [r for r in server.requests if r.path.startswith("/v1/jobs/")]
    assert result.status == "ok" and 0.25 <= result.seconds < 0.25 + 0.1 + MARGIN
    assert 3 <= len(job_polls) <= 5  # about every 100 ms


@pytest.mark.parametrize(
    ("behaviour", "kind"),
    [
        (Behaviour("server_error", delay_s=0.05), "server_error"),
        (Behaviour("truncated_download"), "bad_response"),
        (Behaviour("refused"), "content_refused"),
        (Behaviour("b64", delay_s=3.0), "timeout"),
    ],
)
def test_a_failed_or_timed_out_sync_call_is_a_failure_not_a_time(behaviour, kind, tmp_path):
    with FakeOpenAIServer() as server:
        server.push(behaviour)
        overrides = {"timeout_s": 0.5, "response_format": "url" if "download" in behaviour.kind else None}
        m = model("f", "openai_compatible", server.params(**{k: v for k, v in overrides.items() if v}))

        async def go():
            provider, client = await open_provider(m, None)
            try:
                return await measure(provider, timing_request("p"), scratch_dir=tmp_path, timeout=10)
            finally:
                await provider.aclose()
                await client.aclose()
                await asyncio.sleep(0.05)

        result = asyncio.run(go())
    assert (result.status, result.error_kind, result.seconds) == ("failed", kind, None)


@pytest.fixture
def http_world(engine):
    """Four models behind fake servers: two that answer, one that fails, one whose job never finishes."""
    sync, queue, broken, stuck = TimedSyncServer(), TimedQueueServer(), FakeOpenAIServer(), FakeQueueServer()
    for server in (sync, queue, broken, stuck):
        server.start()
    sync.default = Timed("url", 0.1, download_delay_s=0.05)
    queue.default = Timed("b64", 0.2)
    broken.default = Behaviour("server_error")
    stuck.default = JobBehaviour("never")
    entries = {
        "http-sync": ("openai_compatible", {**sync.params(), "response_format": "url"}),
        "http-queue": ("submit_poll", queue.params()),
        "http-broken": ("openai_compatible", broken.params()),
        "http-stuck": ("submit_poll", stuck.params(timeout_s=0.4)),
    }
    toml = "".join(
        f"""
[[models]]
slug = "{slug}"
display_name = "{slug}"
organization = "t"
modality = "text_to_image"
adapter = "{adapter}"
params = {inline(params)}
"""
        for slug, (adapter, params) in entries.items()
    )
    yield timing_world(engine, toml)
    for server in (sync, queue, broken, stuck):
        server.stop()


def inline(params):
    items = ", ".join(f"{k} = {value(v)}" for k, v in params.items())
    return "{ " + items + " }"


def value(v):
    return f'"{v}"' if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)


def test_a_run_records_times_for_answers_and_failures_with_their_kind(settings, http_world):
    report = asyncio.run(run_timing(http_world, settings, run_id="run-1"))
    assert sorted(report.planned) == ["http-broken", "http-queue", "http-stuck", "http-sync"]
    with http_world.connect() as conn:
        rows = {r.model_slug: r for r in conn.execute(select(LatencySample))}
    assert 0.15 <= rows["http-sync"].seconds < 0.15 + MARGIN
    assert 0.2 <= rows["http-queue"].seconds < 0.2 + MARGIN
    assert (rows["http-broken"].status, rows["http-broken"].error_kind, rows["http-broken"].seconds) == (
        "failed",
        "server_error",
        None,
    )
    assert (rows["http-stuck"].status, rows["http-stuck"].error_kind, rows["http-stuck"].seconds) == (
        "failed",
        "timeout",
        None,
    )
    assert all(r.run_id == "run-1" and r.timing_prompt_id for r in rows.values())
    stats = latency_stats(http_world, utcnow())
    assert (stats["http-sync"].samples, stats["http-sync"].failures) == (1, 0)
    broken = stats["http-broken"]
    assert (broken.samples, broken.failures, broken.failure_rate, broken.median) == (0, 1, 1.0, None)
