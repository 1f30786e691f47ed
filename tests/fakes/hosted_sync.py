"""Fakes of the synchronous image APIs, each in its documented shape: Google (Gemini generateContent with an
inline image part, Imagen :predict), Stability AI (multipart, JSON with base64), Ideogram (multipart, an
ephemeral URL), the OpenAI Images shape (OpenAI, Recraft, self-hosted servers), Together and xAI.
For a synchronous API the job-failure answer is its documented 5xx.
"""

from __future__ import annotations

from typing import Any

from tests.fakes.hosted_base import ProviderFake
from tests.fakes.http import Reply, Request


class FakeGoogle(ProviderFake):
    """ai.google.dev/api: POST /v1beta/models/{model}:generateContent (x-goog-api-key) -> candidates[0].content
    .parts with inlineData; Imagen (Vertex) POST .../models/{model}:predict -> predictions[].bytesBase64Encoded.
    Errors are google.rpc Status JSON: 429 RESOURCE_EXHAUSTED with a RetryInfo detail, 503 UNAVAILABLE."""

    name = "google"
    hosts = ("generativelanguage.googleapis.com", "aiplatform.googleapis.com")
    delivery = "inline"

    def api(self, request: Request) -> Reply:
        if request.method != "POST" or ":" not in request.path:
            return self._status(404, "NOT_FOUND", "Method not found.")
        body = request.json()
        self.record(request, body)
        scenario = self.next_scenario()
        if scenario == "rate_limited":
            detail = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}
            return self._status(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted.", [detail])
        if scenario == "failed":
            return self._status(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
        model = request.path.rsplit("/", 1)[-1].split(":")[0]
        if request.path.endswith(":predict"):
            return Reply.json(
                {"predictions": [{"mimeType": "image/png", "bytesBase64Encoded": self.b64_image(seed=model)}]}
            )
        parts = [
            {"text": "Here is the image."},
            {"inlineData": {"mimeType": "image/png", "data": self.b64_image(seed=model)}},
        ]
        return Reply.json(
            {
                "candidates": [
                    {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
                ],
                "usageMetadata": {
                    "promptTokenCount": 12,
                    "candidatesTokenCount": 1290,
                    "totalTokenCount": 1302,
                },
                "modelVersion": model,
            }
        )

    def _status(self, code: int, status: str, message: str, details: list[Any] | None = None) -> Reply:
        error: dict[str, Any] = {"code": code, "message": message, "status": status}
        if details:
            error["details"] = details
        return Reply.json({"error": error}, code)


class FakeStability(ProviderFake):
    """platform.stability.ai: POST /v2beta/stable-image/generate/{core|ultra|sd3} multipart (Bearer, Accept:
    application/json) -> {image (base64), finish_reason, seed}; 429 rate_limit_exceeded; 500 internal error."""

    name = "stability"
    hosts = ("api.stability.ai",)
    delivery = "inline"

    def api(self, request: Request) -> Reply:
        fields, files = request.form()
        self.record(request, dict(fields), files)
        scenario = self.next_scenario()
        if scenario == "rate_limited":
            errors = ["You have exceeded the rate limit of 150 requests within a 10 second period."]
            return Reply.json({"id": self.new_id(), "name": "rate_limit_exceeded", "errors": errors}, 429)
        if scenario == "failed":
            return Reply.json(
                {
                    "id": self.new_id(),
                    "name": "internal_error",
                    "errors": ["An unexpected server error occurred."],
                },
                500,
            )
        return Reply.json(
            {
                "image": self.b64_image(seed=fields.get("prompt", "")),
                "finish_reason": "SUCCESS",
                "seed": int(fields.get("seed", 0)),
            }
        )


class FakeIdeogram(ProviderFake):
    """developer.ideogram.ai: POST /v1/ideogram-v3/{generate|remix} multipart (Api-Key) -> {created, data:
    [{url (ephemeral), is_image_safe, seed, resolution, prompt}]}; 429; 500."""

    name = "ideogram"
    hosts = ("api.ideogram.ai",)

    def api(self, request: Request) -> Reply:
        fields, files = request.form()
        self.record(request, dict(fields), files)
        scenario = self.next_scenario()
        if scenario == "rate_limited":
            return Reply.json({"error": "Too many requests, please slow down."}, 429)
        if scenario == "failed":
            return Reply.json({"error": "Internal server error"}, 500)
        url = self.file_url(self.image(seed=fields.get("prompt", "")), expired=scenario == "expired")
        item = {
            "url": url,
            "is_image_safe": True,
            "seed": int(fields.get("seed", 0)),
            "resolution": "1024x1024",
            "prompt": fields.get("prompt"),
        }
        return Reply.json({"created": "2026-11-30T12:00:00Z", "data": [item]})

    def expired_reply(self) -> Reply:
        return Reply.json({"detail": "Not Found"}, 404)


class FakeOpenAIImages(ProviderFake):
    """The OpenAI Images shape (platform.openai.com, and Recraft's OpenAI-compatible /v1/images/generations):
    {created, data: [{b64_json | url}]}; 429 rate_limit_exceeded with Retry-After; 500 server_error.

    Edits are multipart, checked as documented: OpenAI's /v1/images/edits takes `image`, or several input images
    as repeated `image[]` parts (gpt-image models, up to 16; dall-e-2 exactly one)
    (https://platform.openai.com/docs/api-reference/images/createEdit); Recraft's /v1/images/imageToImage takes
    one `image` file, `prompt` and a required `strength` in [0, 1]
    (https://www.recraft.ai/docs/api-reference/tools/image-to-image). A request breaking these gets a 400."""

    name = "openai"
    hosts = ("api.openai.com", "external.api.recraft.ai", "127.0.0.1:9000")
    delivery = "inline"

    def api(self, request: Request) -> Reply:
        if request.method == "GET" and request.path.endswith("/models"):
            return Reply.json({"object": "list", "data": []})
        edit = request.path.endswith(("/images/edits", "/images/imageToImage"))
        if edit:
            fields, files = request.form()
            body: dict[str, Any] = dict(fields)
        else:
            body, files = request.json(), {}
        self.record(request, body, files)
        invalid = self._invalid_edit(request, body) if edit else None
        if invalid:
            error = {"message": invalid, "type": "invalid_request_error", "param": "image", "code": None}
            return Reply.json({"error": error}, 400)
        scenario = self.next_scenario()
        if scenario == "rate_limited":
            error = {
                "message": "Rate limit reached for images",
                "type": "requests",
                "code": "rate_limit_exceeded",
            }
            return Reply.json({"error": error}, 429, headers={"Retry-After": "2"})
        if scenario == "failed":
            return Reply.json(
                {
                    "error": {
                        "message": "The server had an error processing your request.",
                        "type": "server_error",
                    }
                },
                500,
            )
        w, h = (int(v) for v in str(body.get("size", "1024x1024")).split("x"))
        if body.get("response_format") == "url":
            url = self.file_url(self.image(w, h, seed=str(body.get("prompt"))), expired=scenario == "expired")
            return Reply.json({"created": 1764500000, "data": [{"url": url}]})
        return Reply.json(
            {
                "created": 1764500000,
                "data": [{"b64_json": self.b64_image(w, h, seed=str(body.get("prompt")))}],
            }
        )

    @staticmethod
    def _invalid_edit(request: Request, body: dict[str, Any]) -> str | None:
        """Why an edit request breaks the documented form, or None."""
        single = request.file_parts.get("image", [])
        several = request.file_parts.get("image[]", [])
        if not body.get("prompt"):
            return "prompt is required"
        if request.path.endswith("/images/imageToImage"):
            if len(single) != 1 or several:
                return "imageToImage takes exactly one 'image' file"
            try:
                strength = float(body["strength"])
            except (KeyError, ValueError):
                return "strength is required (a number in [0, 1])"
            return None if 0 <= strength <= 1 else "strength must be in [0, 1]"
        if single and several:
            return "send the input image as 'image' or the input images as 'image[]', not both"
        if len(single) > 1:
            return "several input images go as repeated 'image[]' parts"
        count = len(single) + len(several)
        if count == 0:
            return "image is required"
        if str(body.get("model", "")).startswith("dall-e") and count > 1:
            return "dall-e-2 edits take exactly one image"
        return None if count <= 16 else "at most 16 input images"


class FakeTogether(ProviderFake):
    """docs.together.ai images: POST /v1/images/generations (Bearer) {model, prompt, width, height, steps, seed,
    response_format "base64" | "url", disable_safety_checker} -> {id, model, object: list, data: [{index,
    b64_json | url}]}; 429 rate limit; 503 overloaded. Editing goes through the same endpoint: Kontext takes one
    image as the string `image_url`, FLUX.2 and Google models a `reference_images` list
    (https://docs.together.ai/docs/inference/images/reference-images); another shape gets a 400."""

    name = "together"
    hosts = ("api.together.xyz",)
    delivery = "inline"

    def api(self, request: Request) -> Reply:
        body = request.json()
        self.record(request, body)
        invalid = self._invalid_reference(body)
        if invalid:
            return Reply.json({"error": {"message": invalid, "type": "invalid_request_error"}}, 400)
        scenario = self.next_scenario()
        if scenario == "rate_limited":
            return Reply.json(
                {"error": {"message": "Rate limit exceeded", "type": "rate_limit_exceeded"}},
                429,
                headers={"Retry-After": "1"},
            )
        if scenario == "failed":
            return Reply.json(
                {"error": {"message": "The server is overloaded", "type": "service_unavailable"}}, 503
            )
        image = self.image(body.get("width", 1024), body.get("height", 1024), seed=body.get("prompt", ""))
        if body.get("response_format") == "url":
            item = {"index": 0, "url": self.file_url(image, expired=scenario == "expired")}
        else:
            item = {
                "index": 0,
                "b64_json": self.b64_image(
                    body.get("width", 1024), body.get("height", 1024), seed=body.get("prompt", "")
                ),
            }
        return Reply.json({"id": self.new_id(), "model": body.get("model"), "object": "list", "data": [item]})

    @staticmethod
    def _invalid_reference(body: dict[str, Any]) -> str | None:
        """Why the reference image fields break the documented shape, or None."""
        if "image_url" in body and not (
            isinstance(body["image_url"], str) and _is_image_url(body["image_url"])
        ):
            return "image_url must be one image URL (a string)"
        refs = body.get("reference_images", [])
        if not isinstance(refs, list) or not all(isinstance(r, str) and _is_image_url(r) for r in refs):
            return "reference_images must be a list of image URLs"
        return None


def _is_image_url(value: str) -> bool:
    """An http(s) URL or a base64 data: URL of an image."""
    return value.startswith(("http://", "https://", "data:image/")) and (
        not value.startswith("data:") or ";base64," in value
    )


class FakeXAI(ProviderFake):
    """docs.x.ai image generation: POST /v1/images/generations (Bearer) {model, prompt, n, aspect_ratio,
    resolution, response_format} -> {data: [{b64_json (a data: URL) | url, mime_type, revised_prompt}]};
    size and style are not supported; 429; 500. Editing: POST /v1/images/edits (JSON) with one source image as
    `image: {url}` or up to three as `images: [{url}, ...]` (mutually exclusive), each a public URL or a base64
    data URI (https://docs.x.ai/developers/model-capabilities/images,
    https://docs.x.ai/developers/model-capabilities/images/multi-image-editing); another shape gets a 400."""

    name = "xai"
    hosts = ("api.x.ai",)
    delivery = "inline"

    def api(self, request: Request) -> Reply:
        body = request.json()
        self.record(request, body)
        invalid = self._invalid_edit(body) if request.path.endswith("/images/edits") else None
        if invalid:
            return Reply.json({"code": "Client specified an invalid argument", "error": invalid}, 400)
        scenario = self.next_scenario()
        if scenario == "rate_limited":
            return Reply.json(
                {"code": "Too many requests", "error": "Rate limit exceeded for grok-imagine-image"}, 429
            )
        if scenario == "failed":
            return Reply.json({"code": "Internal error", "error": "Service temporarily unavailable"}, 500)
        if "size" in body:
            return Reply.json(
                {"code": "Client specified an invalid argument", "error": "size is not supported"}, 400
            )
        if body.get("response_format") == "b64_json":
            item = {
                "b64_json": "data:image/png;base64," + self.b64_image(seed=body.get("prompt", "")),
                "mime_type": "image/png",
            }
        else:
            item = {
                "url": self.file_url(self.image(seed=body.get("prompt", "")), expired=scenario == "expired"),
                "mime_type": "image/png",
            }
        return Reply.json(
            {"data": [{**item, "revised_prompt": ""}], "usage": {"cost_in_usd_ticks": 700000000}}
        )

    @staticmethod
    def _invalid_edit(body: dict[str, Any]) -> str | None:
        """Why an edit request breaks the documented shape, or None."""
        if not body.get("prompt"):
            return "prompt is required"
        if ("image" in body) == ("images" in body):
            return "give exactly one of image or images"
        sources = [body["image"]] if "image" in body else body["images"]
        if not isinstance(sources, list) or not 1 <= len(sources) <= 3:
            return "images takes one to three source images"
        for source in sources:
            if not isinstance(source, dict) or not isinstance(source.get("url"), str):
                return "each source image is an object with a url"
            if not _is_image_url(source["url"]):
                return "a source image url must be a public URL or a base64 data URI"
        return None
