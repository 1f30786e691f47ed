"""One timed call: provider time plus the write to disk, or a failure with its kind and never a time."""

import asyncio
import gc
import io
import time

import httpx
import pytest
from PIL import Image

from arena.generation.providers import GenerationResult, RateLimited, ServerError, Timing
from scheduler.measure import collector_held, measure, stamp_request_sent, write_fsynced
from scheduler.timing import timing_request


def png(size=32):
    out = io.BytesIO()
    Image.new("RGB", (size, size), (1, 2, 3)).save(out, "PNG")
    return out.getvalue()


class Scripted:
    """A provider double: returns a fixed timing, raises an error, or never answers."""

    def __init__(self, *, error=None, hang=False, timing=Timing(10.0, 10.4, 11.5), image=None):
        self.error, self.hang, self.timing, self.image = error, hang, timing, image or png()
        self.requests = []

    async def generate(self, request):
        self.requests.append(request)
        if self.hang:
            await asyncio.sleep(3600)
        if self.error is not None:
            raise self.error
        return GenerationResult(self.image, self.timing, {})

    async def warm_up(self):
        return None

    async def aclose(self):
        return None


def run(provider, tmp_path, **kwargs):
    kwargs.setdefault("timeout", 5)
    return asyncio.run(measure(provider, timing_request("a fresh prompt"), scratch_dir=tmp_path, **kwargs))


def test_the_time_is_request_to_last_byte_plus_the_write_to_disk(tmp_path):
    ticks = iter([100.0, 100.25])  # the fake perf counter around the write: 0.25 s on disk
    result = run(Scripted(image=png(48)), tmp_path, perf_counter=lambda: next(ticks))
    assert result.status == "ok"
    assert result.seconds == pytest.approx(1.5 + 0.25)
    assert result.first_byte_seconds == pytest.approx(0.4)
    assert (result.width, result.height) == (48, 48)
    assert list(tmp_path.iterdir()) == []  # the temp file is gone


def test_the_request_asks_for_1024_square_or_the_smallest_supported_square_above():
    request = timing_request("p")
    assert (request.width, request.height, request.extra) == (
        1024,
        1024,
        {"resolution": "requested", "timing": True},
    )


@pytest.mark.parametrize(
    ("error", "kind"),
    [(ServerError("boom"), "server_error"), (RateLimited("slow down", retry_after=3), "rate_limited")],
)
def test_a_provider_error_is_a_failure_with_its_kind_and_no_time(tmp_path, error, kind):
    result = run(Scripted(error=error), tmp_path)
    assert (result.status, result.error_kind, result.seconds, result.first_byte_seconds) == (
        "failed",
        kind,
        None,
        None,
    )


def test_a_call_running_past_the_timeout_is_a_timeout_failure(tmp_path):
    result = run(Scripted(hang=True), tmp_path, timeout=0.05)
    assert (result.status, result.error_kind, result.seconds) == ("failed", "timeout", None)


def test_an_unexpected_adapter_exception_is_a_failure_not_a_crash(tmp_path):
    result = run(Scripted(error=KeyError("data")), tmp_path)
    assert (result.status, result.error_kind) == ("failed", "error")
    assert "KeyError" in result.error_message


def test_the_write_is_fsynced_and_timed_with_the_given_counter(tmp_path):
    ticks = iter([5.0, 5.125])
    assert write_fsynced(tmp_path / "scratch", b"x" * 1000, lambda: next(ticks)) == 0.125
    assert list((tmp_path / "scratch").iterdir()) == []


class SlowToBuild:
    """A provider whose SDK spends 5 s building the request before sending it over HTTP."""

    def __init__(self, client):
        self.client = client

    async def generate(self, request):
        started = time.perf_counter() - 5.0  # the adapter's stamp, taken before the SDK built the request
        await self.client.get("http://provider.test/generate")
        return GenerationResult(png(), Timing(started, None, time.perf_counter()), {})


def test_the_clock_starts_when_the_request_is_sent_not_while_an_sdk_builds_it(tmp_path):
    async def go():
        transport = httpx.MockTransport(lambda request: httpx.Response(200, content=b"ok"))
        async with httpx.AsyncClient(
            transport=transport, event_hooks={"request": [stamp_request_sent]}
        ) as client:
            return await measure(SlowToBuild(client), timing_request("p"), scratch_dir=tmp_path, timeout=5)

    result = asyncio.run(go())
    assert result.status == "ok" and 0 <= result.seconds < 1.0


class GcProbe(Scripted):
    """Records whether the cyclic garbage collector was enabled while the timed call ran."""

    async def generate(self, request):
        self.gc_during = gc.isenabled()
        return await super().generate(request)


@pytest.mark.parametrize("error", [None, ServerError("boom")], ids=["ok", "failed"])
def test_the_garbage_collector_is_held_off_during_the_timed_call_and_restored_after(tmp_path, error):
    assert gc.isenabled()
    probe = GcProbe(error=error)
    run(probe, tmp_path)
    assert probe.gc_during is False
    assert gc.isenabled()


def test_overlapping_timed_calls_restore_the_collector_only_when_the_last_one_ends():
    with collector_held():
        with collector_held():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_held():
            pass
        assert not gc.isenabled()  # an application that runs without the collector keeps it off
    finally:
        gc.enable()
