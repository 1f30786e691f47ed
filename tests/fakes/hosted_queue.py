"""Fakes of the queue-style image APIs, each in its documented shape: Black Forest Labs' FLUX API, fal's queue
API, Replicate's predictions API, and the generic queue of the `submit_poll` adapter's defaults.
A job answers "still working" to its first poll and its final state after that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.fakes.hosted_base import ProviderFake, Scenario
from tests.fakes.http import Reply, Request


@dataclass
class Job:
    scenario: Scenario
    body: dict[str, Any]
    polls: int = 0


class QueueFake(ProviderFake):
    """Jobs by id; `poll` counts status requests."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: dict[str, Job] = {}

    def submit(self, request: Request) -> tuple[str, Job] | Reply:
        """Record the call; a 429 for a rate-limited scenario, else a new job."""
        body = request.json()
        self.record(request, body)
        scenario = self.next_scenario()
        if scenario == "rate_limited":
            return self.rate_limited()
        job_id = self.new_id()
        self.jobs[job_id] = Job(scenario, body)
        return job_id, self.jobs[job_id]

    def rate_limited(self) -> Reply:
        return Reply.json({"detail": "Too Many Requests"}, 429, headers={"Retry-After": "1"})

    def poll(self, job_id: str) -> Job | None:
        job = self.jobs.get(job_id)
        if job is not None:
            job.polls += 1
        return job


class FakeBFL(QueueFake):
    """docs.bfl.ml: POST /v1/{model} (x-key) -> {id, polling_url}; GET polling_url -> Pending, then Ready with
    result.sample (a signed URL valid 10 minutes), or Error / Content Moderated; 429 when too many tasks."""

    name = "bfl"
    hosts = ("api.bfl.ai",)

    def rate_limited(self) -> Reply:
        return Reply.json({"detail": "You have exceeded the number of active tasks (24)."}, 429)

    def api(self, request: Request) -> Reply:
        if request.method == "POST" and request.path.startswith("/v1/"):
            out = self.submit(request)
            if isinstance(out, Reply):
                return out
            job_id, _ = out
            return Reply.json(
                {"id": job_id, "polling_url": f"{self.url}/v1/get_result?id={job_id}", "cost": 4.0}
            )
        if request.method == "GET" and request.path == "/v1/get_result":
            job_id = request.query.get("id", [""])[0]
            job = self.poll(job_id)
            if job is None:
                return Reply.json({"id": job_id, "status": "Task not found"})
            if job.polls < 2:
                return Reply.json({"id": job_id, "status": "Pending", "progress": 0.5})
            if job.scenario == "failed":
                return Reply.json(
                    {"id": job_id, "status": "Error", "details": {"error": "generation failed"}}
                )
            size = (job.body.get("width", 1024), job.body.get("height", 1024))
            url = self.file_url(self.image(*size, seed=job_id), expired=job.scenario == "expired")
            return Reply.json(
                {"id": job_id, "status": "Ready", "result": {"sample": url, "seed": job.body.get("seed")}}
            )
        return Reply.json({"detail": "Not Found"}, 404)


class FakeFal(QueueFake):
    """fal.ai queue: POST queue.fal.run/{model_id} (Authorization: Key) -> {request_id, status_url,
    response_url}; status IN_QUEUE (202) then COMPLETED (200); response_url -> {images: [{url, ...}], seed};
    a failed request's response_url answers with an error status."""

    name = "fal"
    hosts = ("queue.fal.run",)

    def api(self, request: Request) -> Reply:
        parts = request.path.strip("/").split("/")
        if request.method == "POST":
            out = self.submit(request)
            if isinstance(out, Reply):
                return out
            job_id, _ = out
            app = "/".join(parts[:2])  # status and result URLs use only owner/app
            base = f"{self.url}/{app}/requests/{job_id}"
            return Reply.json(
                {
                    "request_id": job_id,
                    "status": "IN_QUEUE",
                    "status_url": f"{base}/status",
                    "response_url": base,
                    "cancel_url": f"{base}/cancel",
                }
            )
        if request.method == "GET" and "requests" in parts:
            job_id = parts[parts.index("requests") + 1]
            if parts[-1] == "status":
                job = self.poll(job_id)
                if job is None:
                    return Reply.json({"detail": "Request not found"}, 404)
                if job.polls < 2:
                    return Reply.json({"status": "IN_QUEUE", "queue_position": 0}, 202)
                return Reply.json({"status": "COMPLETED", "logs": None})
            job = self.jobs.get(job_id)
            if job is None:
                return Reply.json({"detail": "Request not found"}, 404)
            if job.scenario == "failed":
                return Reply.json({"detail": "Internal error while running the model"}, 500)
            size = job.body.get("image_size", {"width": 1024, "height": 1024})
            w, h = (size["width"], size["height"]) if isinstance(size, dict) else (1024, 1024)
            url = self.file_url(self.image(w, h, seed=job_id), expired=job.scenario == "expired")
            return Reply.json(
                {
                    "images": [{"url": url, "width": w, "height": h, "content_type": "image/png"}],
                    "seed": job.body.get("seed"),
                    "has_nsfw_concepts": [False],
                    "prompt": job.body.get("prompt"),
                }
            )
        return Reply.json({"detail": "Not Found"}, 404)


class FakeReplicate(QueueFake):
    """Replicate predictions: POST /v1/models/{owner}/{name}/predictions with {"input": {...}} (Bearer) ->
    201 prediction {id, status: starting, urls.get}; GET urls.get -> processing, then succeeded with `output`
    (a URL or a list of URLs, served for an hour) or failed with `error`; 429 throttled with Retry-After."""

    name = "replicate"
    hosts = ("api.replicate.com",)

    def __init__(self, *, list_output: bool = True) -> None:
        super().__init__()
        self.list_output = list_output

    def rate_limited(self) -> Reply:
        body = {"title": "Request was throttled.", "detail": "Expected available in 1 second.", "status": 429}
        return Reply.json(body, 429, headers={"Retry-After": "1"})

    def _prediction(self, job_id: str, job: Any, status: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": job_id,
            "status": status,
            "input": job.body.get("input", {}),
            "output": None,
            "error": None,
            "urls": {
                "get": f"{self.url}/v1/predictions/{job_id}",
                "cancel": f"{self.url}/v1/predictions/{job_id}/cancel",
            },
            **extra,
        }

    def api(self, request: Request) -> Reply:
        if request.method == "POST" and request.path.endswith("/predictions"):
            out = self.submit(request)
            if isinstance(out, Reply):
                return out
            job_id, job = out
            return Reply.json(self._prediction(job_id, job, "starting"), 201)
        if request.method == "GET" and request.path.startswith("/v1/predictions/"):
            job_id = request.path.rsplit("/", 1)[-1]
            job = self.poll(job_id)
            if job is None:
                return Reply.json({"detail": "Not found."}, 404)
            if job.polls < 2:
                return Reply.json(self._prediction(job_id, job, "processing"))
            if job.scenario == "failed":
                return Reply.json(self._prediction(job_id, job, "failed", error="CUDA error: out of memory"))
            url = self.file_url(self.image(seed=job_id), expired=job.scenario == "expired")
            output = [url] if self.list_output else url
            return Reply.json(self._prediction(job_id, job, "succeeded", output=output))
        return Reply.json({"detail": "Not found."}, 404)

    def expired_reply(self) -> Reply:
        return Reply.json({"detail": "Not found."}, 404)


class FakeGenericQueue(QueueFake):
    """The `submit_poll` adapter's default shape: POST {submit_url} -> {id}; GET .../jobs/{id} ->
    {status: processing | completed | failed, result.url, error}."""

    name = "queue"
    hosts = ("api.example.com",)

    def api(self, request: Request) -> Reply:
        if request.method == "POST":
            out = self.submit(request)
            if isinstance(out, Reply):
                return out
            return Reply.json({"id": out[0], "status": "queued"})
        if request.method == "GET" and request.path.startswith("/v1/jobs/"):
            job_id = request.path.rsplit("/", 1)[-1]
            job = self.poll(job_id)
            if job is None:
                return Reply.json({"detail": "unknown job"}, 404)
            if job.polls < 2:
                return Reply.json({"id": job_id, "status": "processing"})
            if job.scenario == "failed":
                return Reply.json({"id": job_id, "status": "failed", "error": "worker crashed"})
            url = self.file_url(self.image(seed=job_id), expired=job.scenario == "expired")
            return Reply.json({"id": job_id, "status": "completed", "result": {"url": url}})
        return Reply.json({"detail": "Not Found"}, 404)
