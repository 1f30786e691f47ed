"""One timed generation call: request sent to last byte of the image on disk, or a typed failure.

The clock starts when the first HTTP request of the call is handed to the socket (a request hook on the
runner's own client; an SDK's time spent building the request is client overhead, not provider time) or,
without HTTP, at the provider's own start stamp. It stops at the provider's last-byte stamp (inline body, or
the URL download) plus the time to write the bytes to a temp file and fsync it. The adapter's image validation
between the two is our work, not the provider's, and is left out. A failed or timed-out call is a failure with
its kind, never a time; nothing is retried.

Python's cyclic garbage collector is run just before the clock starts and held off until it stops: a full
collection in a process that has imported the provider SDKs takes ~100 ms, and one landing inside the timed
window was the largest error bench/bench_timing.py found (reference counting still frees memory meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

import httpx
from PIL import Image

from arena.generation.providers.base import GenerationRequest, Provider, ProviderError
from arena.generation.providers.http_common import adapter_timeout

PerfCounter = Callable[[], float]


@dataclass
class SendStamp:
    """perf_counter() when the call's first HTTP request was sent; filled by `stamp_request_sent`."""

    at: float | None = None


_CURRENT: ContextVar[SendStamp | None] = ContextVar("arena_timing_send", default=None)


async def stamp_request_sent(request: httpx.Request) -> None:
    """httpx request hook: runs just before a request is sent; records only inside a `measure` call."""
    stamp = _CURRENT.get()
    if stamp is not None and stamp.at is None:
        stamp.at = time.perf_counter()


def timing_client(timeout: float) -> httpx.AsyncClient:
    """An HTTP client for timed calls: the adapter's timeouts, and the hook that starts the clock."""
    return httpx.AsyncClient(
        timeout=adapter_timeout(timeout),
        event_hooks={"request": [stamp_request_sent]},
    )


@dataclass(frozen=True)
class Measurement:
    """The outcome of one timed call: status "ok" with seconds, or "failed" with the error kind."""

    status: str
    seconds: float | None = None
    first_byte_seconds: float | None = None
    width: int | None = None
    height: int | None = None
    error_kind: str | None = None
    error_message: str | None = None
    disk_seconds: float | None = None  # the write + fsync part of `seconds` (diagnostics; not stored)

    @classmethod
    def failure(cls, kind: str, message: str) -> Measurement:
        """A failed call: no time is recorded."""
        return cls("failed", error_kind=kind, error_message=message[:2000])


_GC_LOCK = threading.Lock()
_gc_holds = 0
_gc_was_enabled = True


@contextlib.contextmanager
def collector_held() -> Iterator[None]:
    """Collect now, then keep the cyclic GC off until every overlapping timed call has left this block."""
    global _gc_holds, _gc_was_enabled
    gc.collect()
    with _GC_LOCK:
        if _gc_holds == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_holds += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_holds -= 1
            if _gc_holds == 0 and _gc_was_enabled:
                gc.enable()


def write_fsynced(directory: Path, data: bytes, perf_counter: PerfCounter = time.perf_counter) -> float:
    """Seconds to create a temp file in `directory`, write `data` and fsync it; the file is removed after."""
    directory.mkdir(parents=True, exist_ok=True)
    started = perf_counter()
    fd, path = tempfile.mkstemp(dir=directory, suffix=".img")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return perf_counter() - started
    finally:
        os.unlink(path)


def image_size(data: bytes) -> tuple[int | None, int | None]:
    """(width, height) from the image header, (None, None) when unreadable."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.width, image.height
    except (OSError, ValueError):
        return None, None


async def measure(
    provider: Provider,
    request: GenerationRequest,
    *,
    scratch_dir: Path,
    timeout: float,
    perf_counter: PerfCounter = time.perf_counter,
) -> Measurement:
    """Time one `provider.generate(request)` plus the write to disk; every failure becomes a failed Measurement."""
    with collector_held():
        sent = SendStamp()
        token = _CURRENT.set(sent)
        try:
            async with asyncio.timeout(timeout):
                result = await provider.generate(request)
        except TimeoutError:
            return Measurement.failure("timeout", f"no image within {timeout:g} s")
        except ProviderError as exc:
            return Measurement.failure(exc.kind, str(exc))
        except Exception as exc:  # an adapter bug still yields a failure, never a time
            return Measurement.failure("error", f"{type(exc).__name__}: {exc}")
        finally:
            _CURRENT.reset(token)
        try:
            disk = await asyncio.to_thread(write_fsynced, scratch_dir, result.image, perf_counter)
        except OSError as exc:
            return Measurement.failure("error", f"could not write the image to disk: {exc}")
    timing = result.timing
    started = (
        sent.at if sent.at is not None and timing.started <= sent.at <= timing.last_byte else timing.started
    )
    first = None if timing.first_byte is None else timing.first_byte - started
    width, height = image_size(result.image)
    return Measurement("ok", timing.last_byte - started + disk, first, width, height, disk_seconds=disk)


__all__ = [
    "Measurement",
    "PerfCounter",
    "SendStamp",
    "collector_held",
    "image_size",
    "measure",
    "stamp_request_sent",
    "timing_client",
    "write_fsynced",
]
