"""Fakes of the synchronous image APIs, each in its documented shape: Google (Gemini generateContent with an
inline image part, Imagen :predict), Stability AI (multipart, JSON with base64), Ideogram (multipart, an
ephemeral URL), the OpenAI Images shape (OpenAI, Recraft, self-hosted servers), Together and xAI.
For a synchronous API the job-failure answer is its documented 5xx.
"""

from __future__ import annotations

import re
from typing import Any

from tests.fakes.hosted_base import ProviderFake
from tests.fakes.http import Reply, Request

GEMINI_PATH = re.compile(r"^/v1(beta)?/models/[A-Za-z0-9._-]+:generateContent$")
IMAGEN_PATH = re.compile(r"^/v1beta1/publishers/google/models/[A-Za-z0-9._-]+:predict$")


class FakeGoogle(ProviderFake):
    """ai.google.dev/api: POST /v1beta/models/{model}:generateContent (x-goog-api-key) -> candidates[0].content
    .parts with inlineData; Imagen in Vertex express mode POST /v1beta1/publishers/google/models/{model}:predict
    (the path google-genai's Vertex client builds) -> predictions[].bytesBase64Encoded. Any other path is 404.
    Errors are google.rpc Status JSON: 429 RESOURCE_EXHAUSTED with a RetryInfo detail, 503 UNAVAILABLE, 401
    UNAUTHENTICATED. Refusals come in a 200 answer, not as an error: Gemini's promptFeedback.blockReason
    (https://ai.google.dev/api/generate-content#PromptFeedback), Imagen's raiFilteredReason, present when the
    request sets includeRaiReason (cloud.google.com/vertex-ai/generative-ai/docs/model-reference/imagen-api)."""

    name = "google"
    hosts = ("generativelanguage.googleapis.com", "aiplatform.googleapis.com")
    delivery = "inline"
    auth_header = "x-goog-api-key"
    auth_scheme = ""
    documented_refusal = True

    def auth_error(self) -> Reply:
        return self._status(401, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key.")

    def api(self, request: Request) -> Reply:
        gemini = bool(GEMINI_PATH.match(request.path))
        if request.method != "POST" or not (gemini or IMAGEN_PATH.match(request.path)):
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
        if not gemini:
            if scenario == "refused":
                if not body.get("parameters", {}).get("includeRaiReason"):
                    return Reply.json({})  # a filtered image without includeRaiReason: simply absent
                reason = "Unable to show generated images. All images were filtered out."
                return Reply.json({"predictions": [{"raiFilteredReason": reason}]})
            return Reply.json(
                {"predictions": [{"mimeType": "image/png", "bytesBase64Encoded": self.b64_image(seed=model)}]}
            )
        usage = {"promptTokenCount": 12, "candidatesTokenCount": 1290, "totalTokenCount": 1302}
        if scenario == "refused":
            return Reply.json({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": usage})
        parts = [
            {"text": "Here is the image."},
            {"inlineData": {"mimeType": "image/png", "data": self.b64_image(seed=model)}},
        ]
        return Reply.json(
            {
                "candidates": [
                    {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
                ],
                "usageMetadata": usage,
                "modelVersion": model,
            }
        )

    def _status(self, code: int, status: str, message: str, details: list[Any] | None = None) -> Reply:
        error: dict[str, Any] = {"code": code, "message": message, "status": status}
        if details:
            error["details"] = details
        return Reply.json({"error": error}, code)


# The form fields of the v2beta generate endpoints as Stability AI's own ComfyUI nodes send them
# (github.com/Stability-AI/ComfyUI-SAI_API stability_api.py, commit 2988e7a8: StabilityCore, StabilityImageUltra,
# StabilitySD3 INPUT_SPEC, plus the `mode` the nodes set to image-to-image when an image is given). The nodes'
# own extras (`style`, `api_key_override`) are node inputs, not API fields, and are left out.
STABILITY_FIELDS = {
    "core": frozenset({"prompt", "negative_prompt", "seed", "output_format", "aspect_ratio", "style_preset"}),
    "ultra": frozenset(
        {"prompt", "image", "negative_prompt", "seed", "strength", "aspect_ratio", "output_format"}
    ),
    "sd3": frozenset(
        {
            "model",
            "mode",
            "prompt",
            "image",
            "negative_prompt",
            "cfg_scale",
            "seed",
            "strength",
            "aspect_ratio",
            "output_format",
        }
    ),
}


class FakeStability(ProviderFake):
    """platform.stability.ai: POST /v2beta/stable-image/generate/{core|ultra|sd3} multipart (Bearer, Accept:
    application/json) -> {image (base64), finish_reason, seed}; 429 rate_limit_exceeded; 500 internal error.
    Error bodies are {id, name, errors} (the `name` values unauthorized, payment_required and bad_request with an
    `errors` list are the ones Stability's ComfyUI nodes, commit 2988e7a8, read). Each endpoint takes only its
    STABILITY_FIELDS; another field is answered 400 name bad_request. The refusal is 403 name content_moderation
    (the API reference's 403 response of the generate endpoints; neither that page nor the nodes were read for
    its wording, so the text here is the fake's)."""

    name = "stability"
    hosts = ("api.stability.ai",)
    delivery = "inline"
    documented_refusal = True

    def auth_error(self) -> Reply:
        return Reply.json({"id": self.new_id(), "name": "unauthorized", "errors": ["authorization"]}, 401)

    def accepted_fields(self, request: Request) -> frozenset[str] | None:
        return STABILITY_FIELDS.get(request.path.rsplit("/", 1)[-1])

    def unknown_field(self, name: str) -> Reply:
        errors = [f"{name}: unrecognized field"]
        return Reply.json({"id": self.new_id(), "name": "bad_request", "errors": errors}, 400)

    def api(self, request: Request) -> Reply:
        fields, files = request.form()
        self.record(request, dict(fields), files)
        unknown = self.unknown_fields(request, {**fields, **files})
        if unknown:
            return self.unknown_field(unknown[0])
        scenario = self.next_scenario()
        if scenario == "refused":
            errors = ["Your request was flagged by our content moderation system."]
            return Reply.json({"id": self.new_id(), "name": "content_moderation", "errors": errors}, 403)
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


# developer.ideogram.ai/api-reference/api-reference/generate-v3 (request form fields; the names as the page's
# mirrors print them beside the same descriptions).
IDEOGRAM_GENERATE_FIELDS = frozenset(
    {
        "prompt",
        "seed",
        "resolution",
        "aspect_ratio",
        "rendering_speed",
        "magic_prompt",
        "negative_prompt",
        "num_images",
        "color_palette",
        "style_codes",
        "style_type",
        "style_reference_images",
        "character_reference_images",
        "character_reference_images_mask",
    }
)


# developer.ideogram.ai/v1/api-reference/edit-images/remix-v3.md ("Remix with Ideogram 3.0", Body): image (file),
# prompt, image_weight, seed, resolution, aspect_ratio, rendering_speed, magic_prompt, negative_prompt were read; the
# excerpt read stops there, so the rest is taken to be generate-v3's fields (an assumption, not read).
IDEOGRAM_REMIX_FIELDS = IDEOGRAM_GENERATE_FIELDS | {"image", "image_weight"}


class FakeIdeogram(ProviderFake):
    """developer.ideogram.ai: POST /v1/ideogram-v3/{generate|remix} multipart (Api-Key) -> {created, data:
    [{url (ephemeral), is_image_safe, seed, resolution, prompt}]}; 429; 500. The API reference lists 422 as the
    safety rejection of the prompt or image; its body {"error": "..."} is as third-party guides quote it (the
    official page's body was not read for this fake). generate-v3 takes only IDEOGRAM_GENERATE_FIELDS and remix-v3
    only IDEOGRAM_REMIX_FIELDS; another field is answered 400 {"error": ...} (the shape of Ideogram's errors; the
    exact text is the fake's)."""

    name = "ideogram"
    hosts = ("api.ideogram.ai",)
    auth_header = "api-key"
    auth_scheme = ""
    documented_refusal = True

    def auth_error(self) -> Reply:
        return Reply.json({"error": "Unauthorized"}, 401)

    def accepted_fields(self, request: Request) -> frozenset[str] | None:
        if request.path.endswith("/remix"):
            return IDEOGRAM_REMIX_FIELDS
        return IDEOGRAM_GENERATE_FIELDS if request.path.endswith("/generate") else None

    def api(self, request: Request) -> Reply:
        fields, files = request.form()
        self.record(request, dict(fields), files)
        unknown = self.unknown_fields(request, {**fields, **files})
        if unknown:
            return Reply.json({"error": f"Invalid input: unknown field '{unknown[0]}'"}, 400)
        scenario = self.next_scenario()
        if scenario == "refused":
            return Reply.json({"error": "Prompt or provided image failed the safety checks"}, 422)
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


# The text fields of openai-python 3.57.0 (the SDK the adapter runs): src/openai/types/image_generate_params.py
# (ImageGenerateParams) and image_edit_params.py (ImageEditParamsBase + stream); the older copies read for issue 29
# (commits 04448952, 01a7709e) are subsets. `moderation` is a generation field only, in every version read. The
# edit's files are image / image[] and mask.
OPENAI_GENERATE_FIELDS = frozenset(
    {
        "background",
        "complexity",
        "effort",
        "frame_count",
        "frame_duration_ms",
        "model",
        "moderation",
        "n",
        "output_compression",
        "output_format",
        "partial_images",
        "prompt",
        "quality",
        "reasoning",
        "response_format",
        "safety_identifier",
        "size",
        "stream",
        "style",
        "svg",
        "user",
    }
)
OPENAI_EDIT_FIELDS = frozenset(
    {
        "background",
        "complexity",
        "effort",
        "frame_count",
        "frame_duration_ms",
        "input_fidelity",
        "markup",
        "model",
        "n",
        "output_compression",
        "output_format",
        "partial_images",
        "prompt",
        "quality",
        "reasoning",
        "response_format",
        "safety_identifier",
        "size",
        "stream",
        "svg",
        "user",
    }
)


# Recraft's request fields as its OpenAPI document (version 0.0.1) declares them, read in the client generated from
# it in Recraft's own MCP server (github.com/recraft-ai/mcp-recraft-server): src/api/models/GenerateImageRequest.ts
# (commit a22a4bf2) for POST /v1/images/generations (JSON) and ImageToImageRequest in src/api/apis/ImageApi.ts
# (commit 3abe9bee) for POST /v1/images/imageToImage (multipart, `image` a file). recraft.ai/docs/api-reference/usage
# ("Generate image") prints a subset of the first list (no random_seed, block_nsfw, calculate_features, image_format).
RECRAFT_GENERATE_FIELDS = frozenset(
    {
        "prompt",
        "n",
        "response_format",
        "image_format",
        "size",
        "style_id",
        "style",
        "substyle",
        "controls",
        "model",
        "random_seed",
        "text_layout",
        "block_nsfw",
        "calculate_features",
        "negative_prompt",
    }
)
RECRAFT_IMAGE_TO_IMAGE_FIELDS = (RECRAFT_GENERATE_FIELDS - {"size"}) | {"image", "strength", "expire"}


class FakeOpenAIImages(ProviderFake):
    """The OpenAI Images shape (platform.openai.com, and Recraft's OpenAI-compatible /v1/images/generations):
    {created, data: [{b64_json | url}]}; 429 rate_limit_exceeded with Retry-After; 500 server_error.

    The dialect follows the host it stands in for. api.openai.com: Bearer key; the fields of the SDK's
    ImageGenerateParams / ImageEditParams only (OPENAI_*_FIELDS), another field answered 400 with code
    unknown_parameter, the error object the SDK's APIError reads code, param and type from
    (openai-python src/openai/_exceptions.py); a wrong key 401 invalid_api_key; the refusal a 400 with code
    moderation_blocked and type image_generation_user_error (the body gpt-image answers, as logged in public
    issue threads; OpenAI's reference pages do not print it). external.api.recraft.ai: Bearer key
    (recraft.ai/docs/api-reference/usage, "Authentication"), the fields of Recraft's OpenAPI document only
    (RECRAFT_*_FIELDS), another field answered 400 without a code (Recraft's error body is not in what was read;
    this one is the fake's), no documented refusal. 127.0.0.1:9000 (a self-hosted server): no key, any field.

    Edits are multipart, checked as documented: OpenAI's /v1/images/edits takes `image`, or several input images
    as repeated `image[]` parts (gpt-image models, up to 16; dall-e-2 exactly one)
    (https://platform.openai.com/docs/api-reference/images/createEdit); Recraft's /v1/images/imageToImage takes
    one `image` file, `prompt` and a required `strength` in [0, 1]
    (https://www.recraft.ai/docs/api-reference/tools/image-to-image). A request breaking these gets a 400."""

    name = "openai"
    hosts = ("api.openai.com", "external.api.recraft.ai", "127.0.0.1:9000")
    delivery = "inline"

    def __init__(self, *, host: str = "api.openai.com", key: str | None = None) -> None:
        super().__init__(key=key)
        self.host = host
        self.documented_refusal = host == "api.openai.com"

    def requires_auth(self, request: Request) -> bool:
        return self.host != "127.0.0.1:9000"

    def auth_error(self) -> Reply:
        error = {
            "message": "Incorrect API key provided.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
        return Reply.json({"error": error}, 401)

    def accepted_fields(self, request: Request) -> frozenset[str] | None:
        if self.host == "external.api.recraft.ai":
            edit = request.path.endswith("/images/imageToImage")
            return RECRAFT_IMAGE_TO_IMAGE_FIELDS if edit else RECRAFT_GENERATE_FIELDS
        if self.host != "api.openai.com":
            return None
        return OPENAI_EDIT_FIELDS if request.path.endswith("/images/edits") else OPENAI_GENERATE_FIELDS

    def unknown_field(self, name: str) -> Reply:
        if self.host == "external.api.recraft.ai":
            error = {"message": f"unknown field '{name}'", "type": "invalid_request_error", "param": name}
            return Reply.json({"error": {**error, "code": None}}, 400)
        error = {
            "message": f"Unknown parameter: '{name}'.",
            "type": "invalid_request_error",
            "param": name,
            "code": "unknown_parameter",
        }
        return Reply.json({"error": error}, 400)

    def refused_reply(self) -> Reply:
        error = {
            "message": "Your request was rejected by the safety system. If you believe this is an error, "
            "contact us and include the request ID.",
            "type": "image_generation_user_error",
            "param": None,
            "code": "moderation_blocked",
        }
        return Reply.json({"error": error}, 400)

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
        unknown = self.unknown_fields(request, body)
        if unknown:
            return self.unknown_field(unknown[0])
        invalid = self._invalid_edit(request, body) if edit else None
        if invalid:
            error = {"message": invalid, "type": "invalid_request_error", "param": "image", "code": None}
            return Reply.json({"error": error}, 400)
        scenario = self.next_scenario()
        if scenario == "refused" and self.documented_refusal:
            return self.refused_reply()
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


# github.com/togethercomputer/openapi openapi.yaml (commit 090263aa, 2026-04-28): the request body properties of
# POST /images/generations.
TOGETHER_FIELDS = frozenset(
    {
        "disable_safety_checker",
        "guidance_scale",
        "height",
        "image_loras",
        "image_url",
        "model",
        "n",
        "negative_prompt",
        "output_format",
        "prompt",
        "reference_images",
        "response_format",
        "seed",
        "steps",
        "width",
    }
)


class FakeTogether(ProviderFake):
    """docs.together.ai images: POST /v1/images/generations (Bearer) {model, prompt, width, height, steps, seed,
    response_format "base64" | "url", disable_safety_checker} -> {id, model, object: list, data: [{index,
    b64_json | url}]}; 429 rate limit; 503 overloaded. Editing goes through the same endpoint: Kontext takes one
    image as the string `image_url`, FLUX.2 and Google models a `reference_images` list
    (https://docs.together.ai/docs/inference/images/reference-images); another shape gets a 400. The body takes
    only the properties of POST /images/generations in Together's OpenAPI spec (TOGETHER_FIELDS), another answered
    400 in the spec's ErrorData shape. Together documents no refusal status or code, so no "refused"."""

    name = "together"
    hosts = ("api.together.xyz",)

    def accepted_fields(self, request: Request) -> frozenset[str] | None:
        return TOGETHER_FIELDS

    def unknown_field(self, name: str) -> Reply:
        error = {"message": f"unknown field '{name}'", "type": "invalid_request_error", "param": name}
        return Reply.json({"error": error}, 400)

    delivery = "inline"

    def api(self, request: Request) -> Reply:
        body = request.json()
        self.record(request, body)
        unknown = self.unknown_fields(request, body)
        if unknown:
            return self.unknown_field(unknown[0])
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


# xai-sdk-python src/xai_sdk/proto/v6/image_pb2.pyi (commit 5d3a6436): GenerateImageRequest's fields prompt, model,
# n, user, format, aspect_ratio, resolution, image and images, under their REST names (format is response_format;
# image / images are {url} objects there, as docs.x.ai's image pages print them). The SDK's image.py (commit ddc27ddf)
# strips a "...base64," prefix from a base64 answer, which is why b64_json carries a data: URL.
XAI_GENERATE_FIELDS = frozenset(
    {"prompt", "model", "n", "user", "response_format", "aspect_ratio", "resolution"}
)
XAI_EDIT_FIELDS = XAI_GENERATE_FIELDS | {"image", "images"}


class FakeXAI(ProviderFake):
    """docs.x.ai image generation: POST /v1/images/generations (Bearer) {model, prompt, n, aspect_ratio,
    resolution, response_format} -> {data: [{b64_json (a data: URL) | url, mime_type, revised_prompt}]};
    size and style are not supported; 429; 500. Editing: POST /v1/images/edits (JSON) with one source image as
    `image: {url}` or up to three as `images: [{url}, ...]` (mutually exclusive), each a public URL or a base64
    data URI (https://docs.x.ai/developers/model-capabilities/images,
    https://docs.x.ai/developers/model-capabilities/images/multi-image-editing); another shape gets a 400. A field
    outside XAI_*_FIELDS (the SDK's request fields) gets a 400 too; the error body {code, error} is the one these
    fakes used before this check, not read on an xAI page. xAI documents no refusal status or code."""

    name = "xai"
    hosts = ("api.x.ai",)
    delivery = "inline"

    def accepted_fields(self, request: Request) -> frozenset[str] | None:
        return XAI_EDIT_FIELDS if request.path.endswith("/images/edits") else XAI_GENERATE_FIELDS

    def unknown_field(self, name: str) -> Reply:
        reason = f"{name} is not supported" if name in ("size", "style") else f"unknown field '{name}'"
        return Reply.json({"code": "Client specified an invalid argument", "error": reason}, 400)

    def api(self, request: Request) -> Reply:
        body = request.json()
        self.record(request, body)
        unknown = self.unknown_fields(request, body)
        if unknown:
            return self.unknown_field(unknown[0])
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
