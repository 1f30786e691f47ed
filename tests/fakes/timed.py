"""Fake provider servers whose client-observed delay is known exactly, for clock-accuracy tests and the bench.

Why not the general fakes: they render a fresh PNG per request (~30 ms of server work on top of the injected
delay) and return tiny images. Here the image is encoded once (a realistic ~0.27 MB 1024x1024 PNG) and every
delay is injected on the response path, counted from the moment the request arrived, so what the client can
observe is the injected delay plus loopback transfer, nothing else.

- `TimedSyncServer`: OpenAI-compatible. POST /v1/images/generations answers `delay_s` after the request
  arrived, with `b64_json` or a `url`; GET /files/... answers `download_delay_s` after it arrived.
- `TimedQueueServer`: submit-and-poll. POST /v1/jobs answers at once; GET /v1/jobs/{id} says "processing"
  until `delay_s` after the submit arrived, then "completed" (b64 or url); the download as above.
  The adapter polls every 100 ms from the submit response, so a job delay that is a multiple of 100 ms is
  seen by the poll that lands just after it: the client observes the delay plus loopback time. A delay
  between two polls is observed at the next poll (up to 100 ms late): that is the methodology's poll
  granularity, which `bench/bench_timing.py` reports separately.
"""

from __future__ import annotations

import base64
import functools
import io
import itertools
import json
import threading
import time
from dataclasses import dataclass
from typing import Literal

import numpy as np
from PIL import Image

from tests.fakes.http import FakeHTTPServer, Reply, Request

Delivery = Literal["b64", "url"]


@functools.cache
def realistic_png(size: int = 1024, seed: int = 7) -> bytes:
    """A 1024x1024 PNG of gradients with coarse noise: about 0.27 MB, the size of a typical compressed generated
    image. Made once."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    base = np.stack([x * 200 + 30, y * 180 + 40, (1 - x) * 160 + 50], axis=-1)
    noise = rng.normal(0, 6, (size // 2, size // 2, 3)).repeat(2, axis=0).repeat(2, axis=1)
    pixels = (np.clip(base + noise, 0, 255).astype(np.uint8) // 32) * 32
    out = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(out, "PNG", compress_level=1)
    return out.getvalue()


@functools.cache
def realistic_b64() -> str:
    """`realistic_png()` as base64 text."""
    return base64.b64encode(realistic_png()).decode()


@functools.cache
def _b64_body(kind: str) -> bytes:
    """The JSON body carrying the image inline, serialized once (not on the timed path)."""
    if kind == "sync":
        return json.dumps({"created": 1, "data": [{"b64_json": realistic_b64()}]}).encode()
    return json.dumps({"status": "completed", "result": {"b64": realistic_b64()}}).encode()


def _json_bytes(body: bytes, *, delay_s: float = 0.0) -> Reply:
    return Reply(200, body, {"Content-Type": "application/json"}, delay_s=delay_s)


@dataclass(frozen=True)
class Timed:
    """One call's injected delays and delivery; `status` other than 200 answers with that error instead."""

    delivery: Delivery = "b64"
    delay_s: float = 0.0
    download_delay_s: float = 0.0
    status: int = 200

    @property
    def total_s(self) -> float:
        """The delay the client should observe (URL delivery adds the download delay)."""
        return self.delay_s + (self.download_delay_s if self.delivery == "url" else 0.0)


def _after(request: Request, seconds: float) -> float:
    """The reply delay that makes the answer leave `seconds` after the request arrived."""
    return max(0.0, seconds - (time.perf_counter() - request.received_at))


class _TimedBase(FakeHTTPServer):
    def __init__(self) -> None:
        super().__init__()
        _b64_body("sync"), _b64_body("queue")  # encode before the first timed call, not during it
        self._lock = threading.Lock()
        self._next: list[Timed] = []
        self._ids = itertools.count(1)
        self._downloads: dict[str, Timed] = {}
        self.default = Timed()

    def push(self, *calls: Timed) -> None:
        """The next calls behave like these, in order (then `default`)."""
        with self._lock:
            self._next.extend(calls)

    def _take(self) -> Timed:
        with self._lock:
            return self._next.pop(0) if self._next else self.default

    def _download(self, request: Request, token: str) -> Reply:
        call = self._downloads.pop(token, None)
        if call is None:
            return Reply(404, b"expired")
        return Reply(
            200,
            realistic_png(),
            {"Content-Type": "image/png"},
            delay_s=_after(request, call.download_delay_s),
        )


class TimedSyncServer(_TimedBase):
    """An OpenAI-compatible images endpoint with exact response-path delays."""

    def params(self, **overrides: object) -> dict[str, object]:
        """`openai_compatible` adapter params pointing at this server."""
        return {"model": "timed-1", "base_url": f"{self.url}/v1", "api_key_env": "", **overrides}

    def handle(self, request: Request) -> Reply:
        if request.method == "GET" and request.path == "/v1/models":
            return Reply.json({"object": "list", "data": [{"id": "timed-1", "object": "model"}]})
        if request.method == "GET" and request.path.startswith("/files/"):
            return self._download(request, request.path.removeprefix("/files/"))
        if request.method != "POST" or request.path != "/v1/images/generations":
            return Reply.json({"error": {"message": "no such route"}}, 404)
        call = self._take()
        if call.status != 200:
            reply = Reply.json(
                {"error": {"message": "injected failure", "type": "server_error"}}, call.status
            )
        elif call.delivery == "url":
            token = f"img-{next(self._ids)}.png"
            self._downloads[token] = call
            reply = Reply.json({"created": 1, "data": [{"url": f"{self.url}/files/{token}"}]})
        else:
            reply = _json_bytes(_b64_body("sync"))
        reply.delay_s = _after(request, call.delay_s)  # last: building the reply is part of the delay
        return reply


class TimedQueueServer(_TimedBase):
    """A submit-and-poll queue whose jobs complete exactly `delay_s` after their submission arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: dict[str, tuple[Timed, float]] = {}

    def params(self, **overrides: object) -> dict[str, object]:
        """`submit_poll` adapter params pointing at this server."""
        return {
            "submit_url": f"{self.url}/v1/jobs",
            "status_url": f"{self.url}/v1/jobs/{{id}}",
            "result_b64_field": "result.b64",
            **overrides,
        }

    def handle(self, request: Request) -> Reply:
        parts = request.path.strip("/").split("/")
        if request.method == "POST" and parts == ["v1", "jobs"]:
            call = self._take()
            if call.status != 200:
                return Reply.json({"detail": "injected failure"}, call.status)
            job_id = f"job-{next(self._ids)}"
            self.jobs[job_id] = (call, request.received_at)
            return Reply.json({"id": job_id, "status": "queued"})
        if request.method == "GET" and len(parts) == 3 and parts[:2] == ["v1", "jobs"]:
            return self._status(request, parts[2])
        if request.method == "GET" and len(parts) == 2 and parts[0] == "files":
            return self._download(request, parts[1])
        return Reply.json({"detail": "not found"}, 404)

    def _status(self, request: Request, job_id: str) -> Reply:
        if job_id not in self.jobs:
            return Reply.json({"detail": "unknown job"}, 404)
        call, submitted = self.jobs[job_id]
        if request.received_at - submitted < call.delay_s:
            return Reply.json({"id": job_id, "status": "processing"})
        if call.delivery == "url":
            token = f"{job_id}.png"
            self._downloads[token] = call
            return Reply.json({"status": "completed", "result": {"url": f"{self.url}/files/{token}"}})
        return _json_bytes(_b64_body("queue"))


__all__ = ["Timed", "TimedQueueServer", "TimedSyncServer", "realistic_b64", "realistic_png"]
