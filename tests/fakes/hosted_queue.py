"""Fakes of the queue-style image APIs, each in its documented shape: Black Forest Labs' FLUX API, fal's queue
API, Replicate's predictions API, and the generic queue of the `submit_poll` adapter's defaults.
A job answers "still working" to its first poll and its final state after that.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any, ClassVar

from tests.fakes.hosted_base import ProviderFake, Scenario
from tests.fakes.http import Reply, Request


@dataclass
class Job:
    scenario: Scenario
    body: dict[str, Any]
    polls: int = 0
    model: str = ""


class QueueFake(ProviderFake):
    """Jobs by id; `poll` counts status requests."""

    def __init__(self, *, key: str | None = None) -> None:
        super().__init__(key=key)
        self.jobs: dict[str, Job] = {}

    def submit(self, request: Request) -> tuple[str, Job] | Reply:
        """Record the call; the documented answer to an undocumented field; a 429 for a rate-limited scenario,
        else a new job."""
        body = request.json()
        self.record(request, body)
        unknown = self.unknown_fields(request, body)
        if unknown:
            return self.unknown_field(unknown[0])
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


# docs.bfl.ai API reference, "Generate an image with FLUX 1.1 [pro]" (POST /v1/flux-pro-1.1, request body).
BFL_FIELDS = {
    "/v1/flux-pro-1.1": frozenset(
        {
            "prompt",
            "image_prompt",
            "width",
            "height",
            "prompt_upsampling",
            "seed",
            "safety_tolerance",
            "output_format",
            "webhook_url",
            "webhook_secret",
        }
    ),
    # docs.bfl.ai API reference, "Create an image with FLUX.1 Kontext [max]" (request body); the [pro] page's
    # OpenAPI excerpt read names the same endpoint family, and Comfy Router's schema of bfl/flux-kontext-pro lists
    # these same fields. input_image_2..4 are BFL's "Experimental Multiref"; the preset sends one image.
    "/v1/flux-kontext-pro": frozenset(
        {
            "prompt",
            "input_image",
            "input_image_2",
            "input_image_3",
            "input_image_4",
            "seed",
            "aspect_ratio",
            "output_format",
            "webhook_url",
            "webhook_secret",
            "prompt_upsampling",
            "safety_tolerance",
        }
    ),
}


class FakeBFL(QueueFake):
    """docs.bfl.ai: POST /v1/{model} with the key in x-key (no scheme) -> {id, polling_url}; GET polling_url ->
    Pending, then Ready with result.sample (a signed URL valid 10 minutes), or Error; 429 when too many tasks.
    The refusal is a status, not an HTTP error: {"id", "status": "Request Moderated", "result": null}
    (https://docs.bfl.ai/api_integration/errors, "Moderation Responses"). flux-pro-1.1 and flux-kontext-pro take
    only the fields of their request bodies (BFL_FIELDS), another answered 422 in FastAPI's validation shape;
    other models' field lists are not cited here, so they accept any field."""

    name = "bfl"
    hosts = ("api.bfl.ai",)
    auth_header = "x-key"
    auth_scheme = ""
    documented_refusal = True

    def auth_error(self) -> Reply:
        return Reply.json({"detail": "Not authenticated"}, 403)

    def accepted_fields(self, request: Request) -> frozenset[str] | None:
        return BFL_FIELDS.get(request.path)

    def unknown_field(self, name: str) -> Reply:
        item = {"loc": ["body", name], "msg": "Extra inputs are not permitted", "type": "extra_forbidden"}
        return Reply.json({"detail": [item]}, 422)

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
            if job.scenario == "refused":
                return Reply.json({"id": job_id, "status": "Request Moderated", "result": None})
            size = (job.body.get("width", 1024), job.body.get("height", 1024))
            url = self.file_url(self.image(*size, seed=job_id), expired=job.scenario == "expired")
            return Reply.json(
                {"id": job_id, "status": "Ready", "result": {"sample": url, "seed": job.body.get("seed")}}
            )
        return Reply.json({"detail": "Not Found"}, 404)


class FakeFal(QueueFake):
    """fal.ai queue: POST queue.fal.run/{model_id} (Authorization: Key) -> {request_id, status_url,
    response_url}; status IN_QUEUE (202) then COMPLETED (200); response_url -> {images: [{url, ...}], seed};
    a failed request's response_url answers with an error status. A refusal is the model error of
    https://fal.ai/docs/documentation/model-apis/errors: 422 with detail [{loc, msg, type:
    content_policy_violation, url, input}], answered at the response_url. No field list is cited (any field)."""

    name = "fal"
    hosts = ("queue.fal.run",)
    auth_scheme = "Key "
    documented_refusal = True

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
            if job.scenario == "refused":
                item = {
                    "loc": ["body", "prompt"],
                    "msg": "The content was flagged by a content checker.",
                    "type": "content_policy_violation",
                    "url": "https://docs.fal.ai/errors#content_policy_violation",
                    "input": job.body.get("prompt"),
                }
                return Reply.json({"detail": [item]}, 422)
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
    (a URL or a list of URLs, served for an hour) or failed with `error`; 429 throttled with Retry-After.
    The output's shape is the model's own (its output schema on replicate.com), looked up by the model in the
    request path, never taken from the preset under test: an unknown model gets a 404. Replicate documents no
    refusal status or code (a model's checker fails the prediction with its own text), so no "refused".

    Files API (https://replicate.com/docs/reference/http#files.create): POST /v1/files as multipart/form-data with
    the file in `content` -> 201 file object {id, name, content_type, size, checksums, urls: {get}}; a file's
    urls.get is what a prediction input takes for it (replicate-python uploads a file input and passes
    urls["get"]). The prediction resolves every input string under its own /v1/files/ (an unknown one: 422) and
    keeps the bytes in `inputs`; a data URI is decoded there too, so a test sees which way each image came.
    Replicate recommends data URIs only for files under 1 MB
    (https://replicate.com/docs/topics/predictions/input-files); it documents no rejection of larger ones, so the
    fake takes them and records them in `large_data_uris`."""

    name = "replicate"
    hosts = ("api.replicate.com",)
    # Output schemas as replicate.com shows them (model page, API tab): flux-schnell returns an array of URIs,
    # flux-kontext-pro a single URI. Not re-read from replicate.com in this session.
    LIST_OUTPUT: ClassVar[dict[str, bool]] = {
        "black-forest-labs/flux-schnell": True,
        "black-forest-labs/flux-kontext-pro": False,
    }

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

    def __init__(self, *, key: str | None = None) -> None:
        super().__init__(key=key)
        self.uploads: dict[str, bytes] = {}  # file id -> content
        self.inputs: list[tuple[str, str, bytes]] = []  # (input field, "file" | "data_uri", bytes)
        self.large_data_uris = 0

    def _create_file(self, request: Request) -> Reply:
        _, files = request.form()
        content = files.get("content")
        if not content:
            return Reply.json(
                {"title": "Invalid request", "detail": "content is required", "status": 422}, 422
            )
        file_id = f"file{len(self.uploads) + 1:04d}"
        self.uploads[file_id] = content
        url = f"{self.url}/v1/files/{file_id}"
        body = {
            "id": file_id,
            "name": "reference.png",
            "content_type": "image/png",
            "size": len(content),
            "checksums": {"sha256": hashlib.sha256(content).hexdigest()},
            "metadata": {},
            "urls": {"get": url},
        }
        return Reply.json(body, 201)

    def _resolve_inputs(self, body: dict[str, Any]) -> str | None:
        """Read every file URL and data URI of the input as the model would; the field of an unknown file."""
        for name, value in (body.get("input") or {}).items():
            if not isinstance(value, str):
                continue
            if value.startswith(f"{self.url}/v1/files/"):
                data = self.uploads.get(value.rsplit("/", 1)[-1])
                if data is None:
                    return name
                self.inputs.append((name, "file", data))
            elif value.startswith("data:") and "," in value:
                data = base64.b64decode(value.split(",", 1)[1])
                self.large_data_uris += len(data) >= 1_000_000
                self.inputs.append((name, "data_uri", data))
        return None

    def api(self, request: Request) -> Reply:
        if request.method == "POST" and request.path == "/v1/files":
            return self._create_file(request)
        if request.method == "POST" and request.path.endswith("/predictions"):
            model = request.path.removeprefix("/v1/models/").removesuffix("/predictions")
            if model not in self.LIST_OUTPUT:
                return Reply.json({"detail": "Not found."}, 404)
            missing = self._resolve_inputs(request.json())
            if missing is not None:
                detail = f"- input.{missing}: could not read the file at this URL"
                return Reply.json({"title": "Input validation failed", "detail": detail, "status": 422}, 422)
            out = self.submit(request)
            if isinstance(out, Reply):
                return out
            job_id, job = out
            job.model = model
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
            output = [url] if self.LIST_OUTPUT[job.model] else url
            return Reply.json(self._prediction(job_id, job, "succeeded", output=output))
        return Reply.json({"detail": "Not found."}, 404)

    def expired_reply(self) -> Reply:
        return Reply.json({"detail": "Not found."}, 404)


class FakeGenericQueue(QueueFake):
    """The `submit_poll` adapter's default shape: POST {submit_url} -> {id}; GET .../jobs/{id} ->
    {status: processing | completed | failed, result.url, error}. Its refusal is the one the adapter's defaults
    document (models.toml, the queue-model preset): a failed job whose error speaks of safety / moderation /
    nsfw, with no code, the case where words are the last resort."""

    name = "queue"
    hosts = ("api.example.com",)
    documented_refusal = True

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
            if job.scenario == "refused":
                reason = "the NSFW filter rejected the output"
                return Reply.json({"id": job_id, "status": "failed", "error": reason})
            url = self.file_url(self.image(seed=job_id), expired=job.scenario == "expired")
            return Reply.json({"id": job_id, "status": "completed", "result": {"url": url}})
        return Reply.json({"detail": "Not Found"}, 404)
