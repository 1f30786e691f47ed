"""Polling of the queue adapter over real HTTP: the status request rate stays bounded (a growing, jittered
interval instead of 100 ms), a 429 mid-poll is waited out per its Retry-After, and a status request that times out
is retried within the error budget instead of ending the job."""

import asyncio

import pytest

from arena.generation.providers import GenerationRequest, build_provider
from tests.fakes.queue_server import FakeQueueServer, JobBehaviour

KEY_ENV = "ARENA_TEST_POLL_KEY"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, "poll-secret-42")
    with FakeQueueServer() as fake:
        yield fake


def run_jobs(server, behaviours, **overrides):
    """Submit one job per behaviour at once through one provider (as the backfill's 4 calls per model do)."""
    server.push(*behaviours)
    params = server.params(**{"api_key_env": KEY_ENV, "timeout_s": 20, **overrides})

    async def go():
        provider = build_provider("submit_poll", params, slug="queue")
        try:
            request = GenerationRequest(prompt="a lighthouse at dusk")
            return await asyncio.gather(*(provider.generate(request) for _ in behaviours))
        finally:
            await provider.aclose()

    return asyncio.run(go())


def busiest_second(times: list[float]) -> int:
    """The most status requests seen in any one-second window."""
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t < start + 1.0) for i, start in enumerate(times))


def test_four_jobs_of_one_model_poll_at_a_bounded_rate_with_the_default_schedule(server, capsys):
    results = run_jobs(server, [JobBehaviour("b64", delay_s=3.0)] * 4)
    polls = [t for job in server.jobs.values() for t in job.polls]
    peak = busiest_second(polls)
    with capsys.disabled():
        print(f"\n4 jobs of 3 s: {len(polls)} status requests, at most {peak} in one second")
    assert len(results) == 4
    # Waits drawn in [half, all] of an interval starting at 0.5 s and growing x1.5: the shortest run is 0, 0.25,
    # 0.625, 1.19 s, so 3 polls per job in a second, 12 for four jobs; 16 leaves room for a late poll caught up on
    # its grid on a loaded machine (a 100 ms cadence makes 40 and more).
    assert peak <= 16
    for job in server.jobs.values():
        assert len(job.polls) <= 7
        gaps = [b - a for a, b in zip(job.polls, job.polls[1:], strict=False)]
        assert min(gaps) >= 0.2 and gaps[-1] > gaps[0]  # jittered, and growing


def test_a_429_mid_poll_is_waited_out_and_one_timed_out_poll_is_retried(server):
    behaviour = JobBehaviour(
        "b64", delay_s=1.0, slow_polls=1, poll_delay_s=1.0, throttled_polls=(2, 3, 4), poll_retry_after="1"
    )
    [result] = run_jobs(server, [behaviour], poll_interval_ms=100, poll_timeout_s=0.3)
    [job] = server.jobs.values()
    meta = result.raw_metadata
    assert meta["polls_failed"] == 1 and meta["polls_throttled"] == 3
    gaps = [b - a for a, b in zip(job.polls, job.polls[1:], strict=False)]
    # after each 429 the next poll waits for Retry-After (1 s), though the schedule's interval is shorter
    assert all(gap >= 0.95 for gap in gaps[1:4])
    assert meta["polls"] == len(job.polls) >= 5


def test_three_timed_out_polls_in_a_row_end_the_job_but_the_deadline_is_unchanged(server):
    from arena.generation.providers import ProviderTimeout

    with pytest.raises(ProviderTimeout) as info:
        run_jobs(server, [JobBehaviour("b64", slow_polls=9, poll_delay_s=1.0)], poll_timeout_s=0.2)
    assert "status" in str(info.value)
    [job] = server.jobs.values()
    assert len(job.polls) == 3


def test_a_timing_run_keeps_the_methodology_s_fixed_100_ms_grid(server):
    from scheduler.timing import timing_request

    server.push(JobBehaviour("b64", delay_s=0.8))
    params = server.params(api_key_env=KEY_ENV, timeout_s=10)

    async def go():
        provider = build_provider("submit_poll", params, slug="queue")
        try:
            return await provider.generate(timing_request("a lighthouse at dusk"))
        finally:
            await provider.aclose()

    result = asyncio.run(go())
    [job] = server.jobs.values()
    gaps = [b - a for a, b in zip(job.polls, job.polls[1:], strict=False)]
    assert len(gaps) >= 6 and all(0.05 <= gap <= 0.16 for gap in gaps)
    assert 0.8 <= result.timing.total_seconds < 1.3  # about one 100 ms step late at most, plus load
