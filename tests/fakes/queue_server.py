"""A fake submit-and-poll queue API with scriptable jobs, for adapter tests and timing runs.

    POST /v1/jobs            -> {"id", "status": "queued", "polling_url"}
    GET  /v1/jobs/{id}       -> {"status": "processing"} until the job's delay has passed, then
                                {"status": "completed", "result": {"url" | "b64"}} or {"status": "failed", "error"}
    GET  /v1/jobs/{id}/result -> {"images": [{"url"}]} once done (a separate result document, as fal.ai has)
    GET  /files/{id}.png     -> the image (optionally delayed, truncated or not an image)

Matching adapter params: `FakeQueueServer.params()`.
"""

from __future__ import annotations

import base64
import itertools
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.fakes.http import FakeHTTPServer, Reply, Request
from tests.fakes.images import png_bytes

Kind = Literal[
    "url",
    "b64",
    "rate_limited",
    "server_error",
    "poll_error",
    "missing_id",
    "refused",
    "failed",
    "never",
    "truncated_download",
    "not_image_download",
]


@dataclass(frozen=True)
class JobBehaviour:
    """How one submitted job behaves: `delay_s` after the submit it completes (or fails); `download_delay_s`
    before the image download answers; `retry_after` for a 429 on submit; the first `slow_polls` status polls
    answer only after `poll_delay_s` (a status request that times out); the status polls numbered in
    `throttled_polls` (1-based) answer 429 with `Retry-After: poll_retry_after`.
    """

    kind: Kind = "url"
    delay_s: float = 0.0
    download_delay_s: float = 0.0
    retry_after: str | None = "3"
    slow_polls: int = 0
    poll_delay_s: float = 0.0
    throttled_polls: tuple[int, ...] = ()
    poll_retry_after: str = "1"


@dataclass
class Job:
    """A submitted job and what the server saw of it."""

    id: str
    behaviour: JobBehaviour
    body: dict[str, Any]
    headers: dict[str, str]
    submitted_at: float
    polls: list[float] = field(default_factory=list)


class FakeQueueServer(FakeHTTPServer):
    """Jobs follow a queue of behaviours (then `default`); `jobs` records each submission and its polls."""

    def __init__(self, default: JobBehaviour | None = None) -> None:
        super().__init__()
        self.default = default or JobBehaviour()
        self.jobs: dict[str, Job] = {}
        self._script: deque[JobBehaviour] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def push(self, *behaviours: JobBehaviour) -> None:
        """The next submissions behave like these, in order."""
        with self._lock:
            self._script.extend(behaviours)

    def params(self, **overrides: Any) -> dict[str, Any]:
        """`submit_poll` adapter params pointing at this server."""
        return {
            "submit_url": f"{self.url}/v1/jobs",
            "status_url": f"{self.url}/v1/jobs/{{id}}",
            "result_b64_field": "result.b64",
            **overrides,
        }

    def _next(self) -> JobBehaviour:
        with self._lock:
            return self._script.popleft() if self._script else self.default

    def handle(self, request: Request) -> Reply:
        parts = request.path.strip("/").split("/")
        if request.method == "POST" and parts == ["v1", "jobs"]:
            return self._submit(request)
        if request.method == "GET" and len(parts) == 3 and parts[:2] == ["v1", "jobs"]:
            return self._status(parts[2])
        if (
            request.method == "GET"
            and len(parts) == 4
            and parts[:2] == ["v1", "jobs"]
            and parts[3] == "result"
        ):
            return self._result(parts[2])
        if request.method == "GET" and len(parts) == 2 and parts[0] == "files":
            return self._download(parts[1].removesuffix(".png"))
        return Reply.json({"detail": "not found"}, 404)

    def _submit(self, request: Request) -> Reply:
        b = self._next()
        if b.kind == "rate_limited":
            headers = {"Retry-After": b.retry_after} if b.retry_after is not None else {}
            return Reply.json({"detail": "Too many requests"}, 429, headers=headers)
        if b.kind == "server_error":
            return Reply.json({"detail": "internal error"}, 500)
        job_id = f"job-{next(self._ids)}"
        self.jobs[job_id] = Job(job_id, b, request.json(), request.headers, request.received_at)
        if b.kind == "missing_id":
            return Reply.json({"status": "queued"})
        return Reply.json(
            {
                "id": job_id,
                "status": "queued",
                "polling_url": f"{self.url}/v1/jobs/{job_id}",
                "response_url": f"{self.url}/v1/jobs/{job_id}/result",
            }
        )

    def _status(self, job_id: str) -> Reply:
        job = self.jobs.get(job_id)
        if job is None:
            return Reply.json({"detail": "unknown job"}, 404)
        now = time.perf_counter()
        job.polls.append(now)
        b = job.behaviour
        if b.kind == "poll_error":
            return Reply.json({"detail": "bad gateway"}, 502)
        if len(job.polls) in b.throttled_polls:
            headers = {"Retry-After": b.poll_retry_after}
            return Reply.json({"detail": "Too many requests"}, 429, headers=headers)
        if len(job.polls) <= b.slow_polls:
            return Reply.json({"id": job_id, "status": "processing"}, delay_s=b.poll_delay_s)
        if b.kind == "never" or now - job.submitted_at < b.delay_s:
            return Reply.json({"id": job_id, "status": "processing"})
        if b.kind == "refused":
            return Reply.json(
                {"id": job_id, "status": "failed", "error": "Blocked by the NSFW safety filter"}
            )
        if b.kind == "failed":
            return Reply.json({"id": job_id, "status": "failed", "error": "worker crashed (CUDA OOM)"})
        image = png_bytes(f"{job.body.get('width', 64)}x{job.body.get('height', 64)}", str(job.body))
        if b.kind == "b64":
            return Reply.json(
                {"id": job_id, "status": "completed", "result": {"b64": base64.b64encode(image).decode()}}
            )
        return Reply.json(
            {"id": job_id, "status": "completed", "result": {"url": f"{self.url}/files/{job_id}.png"}}
        )

    def _result(self, job_id: str) -> Reply:
        """The separate result document some queues serve once a job is done (fal.ai's response_url)."""
        job = self.jobs.get(job_id)
        if job is None or time.perf_counter() - job.submitted_at < job.behaviour.delay_s:
            return Reply.json({"detail": "not ready"}, 400)
        return Reply.json(
            {"images": [{"url": f"{self.url}/files/{job_id}.png", "content_type": "image/png"}]}
        )

    def _download(self, job_id: str) -> Reply:
        job = self.jobs.get(job_id)
        if job is None:
            return Reply(404, b"expired")
        b = job.behaviour
        image = png_bytes(f"{job.body.get('width', 64)}x{job.body.get('height', 64)}", str(job.body))
        if b.kind == "not_image_download":
            image = b"<html>not an image</html>"
        reply = Reply(200, image, {"Content-Type": "image/png"}, delay_s=b.download_delay_s)
        if b.kind == "truncated_download":
            reply.truncate_to = len(image) // 2
        return reply
