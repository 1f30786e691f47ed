"""A fake OpenAI Images API (`/v1/images/generations`, `/v1/images/edits`, `/v1/models`, `/files/...`) with
scriptable behaviours per request, for adapter tests and timing runs with known injected delays.

    with FakeOpenAIServer() as server:
        server.push(Behaviour("url", delay_s=0.3, download_delay_s=0.2))
        ...  # point an adapter at server.base_url; server.calls records what it received
"""

from __future__ import annotations

import base64
import itertools
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from tests.fakes.http import FakeHTTPServer, Reply, Request
from tests.fakes.images import png_bytes

Kind = Literal[
    "b64",
    "url",
    "rate_limited",
    "server_error",
    "truncated",
    "truncated_download",
    "not_image",
    "not_image_download",
    "bad_base64",
    "malformed_json",
    "missing_data",
    "refused",
    "bad_request",
]


MODERATION_CATEGORIES = (
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/intent",
    "self-harm/instructions",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)


@dataclass(frozen=True)
class Behaviour:
    """How to answer one images request.

    delay_s: wait before the response headers (the "generation time"); body_delay_s: wait between headers and
    body; download_delay_s: wait before serving the URL download; retry_after: the 429's Retry-After header;
    code: the error code of a refusal (content_policy_violation or moderation_blocked).
    """

    kind: Kind = "b64"
    delay_s: float = 0.0
    body_delay_s: float = 0.0
    download_delay_s: float = 0.0
    retry_after: str | None = "2"
    code: str = "content_policy_violation"


@dataclass
class Call:
    """One images request as the server saw it: endpoint, headers, fields (JSON or form) and uploaded files."""

    endpoint: str
    headers: dict[str, str]
    fields: dict[str, object]
    files: dict[str, bytes] = field(default_factory=dict)
    received_at: float = 0.0
    file_lists: dict[str, list[bytes]] = field(default_factory=dict)  # repeated fields such as image[]


class FakeOpenAIServer(FakeHTTPServer):
    """Answers images requests from a queue of behaviours (then `default`), recording each call."""

    def __init__(self, default: Behaviour | None = None) -> None:
        super().__init__()
        self.default = default or Behaviour()
        self.calls: list[Call] = []
        self._script: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._downloads: dict[str, tuple[bytes, Behaviour]] = {}
        self._ids = itertools.count(1)
        # the moderation endpoint (POST /v1/moderations): a text containing one of these words is flagged with
        # the word's category; `moderation_down` answers 500 instead
        self.flag_words: dict[str, str] = {}
        self.moderation_down = False
        self.moderation_calls: list[dict[str, object]] = []

    @property
    def base_url(self) -> str:
        """What to pass as an OpenAI base_url."""
        return f"{self.url}/v1"

    def params(self, **overrides: object) -> dict[str, object]:
        """`openai_compatible` adapter params pointing at this server (no key needed unless overridden)."""
        return {"model": "fake-image-1", "base_url": self.base_url, "api_key_env": "", **overrides}

    def push(self, *behaviours: Behaviour) -> None:
        """Answer the next requests with these behaviours, in order."""
        with self._lock:
            self._script.extend(behaviours)

    def _next(self) -> Behaviour:
        with self._lock:
            return self._script.popleft() if self._script else self.default

    def handle(self, request: Request) -> Reply:
        if request.method == "GET" and request.path == "/v1/models":
            return Reply.json({"object": "list", "data": [{"id": "fake-image-1", "object": "model"}]})
        if request.method == "GET" and request.path.startswith("/files/"):
            return self._download(request.path.removeprefix("/files/"))
        if request.method == "POST" and request.path == "/v1/moderations":
            return self._moderate(request.json())
        if request.method != "POST" or request.path not in ("/v1/images/generations", "/v1/images/edits"):
            return Reply.json({"error": {"message": "no such route", "code": "not_found"}}, 404)
        if request.path.endswith("edits"):
            fields, files = request.form()
            call = Call(
                "edits", request.headers, dict(fields), files, request.received_at, request.file_parts
            )
        else:
            call = Call("generations", request.headers, request.json(), {}, request.received_at)
        self.calls.append(call)
        return self._answer(self._next(), call)

    def _answer(self, b: Behaviour, call: Call) -> Reply:
        timing = {"delay_s": b.delay_s, "body_delay_s": b.body_delay_s}
        size = str(call.fields.get("size", "64x64"))
        image = png_bytes(size, str(call.fields.get("prompt", "")))
        created = int(time.time())
        if b.kind in ("url", "truncated_download", "not_image_download"):
            token = f"img-{next(self._ids)}.png"
            payload = b"this is not an image" if b.kind == "not_image_download" else image
            self._downloads[token] = (payload, b)
            return Reply.json({"created": created, "data": [{"url": f"{self.url}/files/{token}"}]}, **timing)
        if b.kind == "rate_limited":
            headers = {"Retry-After": b.retry_after} if b.retry_after is not None else {}
            error = {
                "error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}
            }
            return Reply.json(error, 429, headers=headers, **timing)
        if b.kind == "server_error":
            return Reply.json(
                {"error": {"message": "The server had an error", "type": "server_error"}}, 500, **timing
            )
        if b.kind in ("refused", "bad_request"):
            code = b.code if b.kind == "refused" else "invalid_value"
            message = (
                "Your request was rejected by the safety system." if b.kind == "refused" else "Invalid size."
            )
            error = {"error": {"message": message, "type": "image_generation_user_error", "code": code}}
            return Reply.json(error, 400, **timing)
        if b.kind == "malformed_json":
            return Reply(200, b'{"created": 1, "data": [', {"Content-Type": "application/json"}, **timing)
        if b.kind == "missing_data":
            return Reply.json({"created": created}, **timing)
        b64 = {
            "not_image": base64.b64encode(b"GIF89a but not really an image").decode(),
            "bad_base64": "%%% this is not base64 %%%",
        }.get(b.kind, base64.b64encode(image).decode())
        body = {"created": created, "data": [{"b64_json": b64, "revised_prompt": call.fields.get("prompt")}]}
        reply = Reply.json(body, **timing)
        if b.kind == "truncated":
            reply.truncate_to = len(reply.body) // 2
        return reply

    def _moderate(self, body: dict[str, object]) -> Reply:
        """OpenAI's documented moderation answer: one result per input, every category with a boolean, a score
        and the input types it applied to."""
        self.moderation_calls.append(body)
        if self.moderation_down:
            return Reply.json({"error": {"message": "The server had an error", "type": "server_error"}}, 500)
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])  # type: ignore[call-overload]
        results = []
        for text in texts:
            hit = {self.flag_words[w] for w in self.flag_words if w in str(text).lower()}
            results.append(
                {
                    "flagged": bool(hit),
                    "categories": {c: c in hit for c in MODERATION_CATEGORIES},
                    "category_scores": {c: (0.97 if c in hit else 0.0004) for c in MODERATION_CATEGORIES},
                    "category_applied_input_types": {c: ["text"] for c in MODERATION_CATEGORIES},
                }
            )
        model = body.get("model") or "omni-moderation-latest"
        return Reply.json({"id": f"modr-{next(self._ids)}", "model": model, "results": results})

    def _download(self, token: str) -> Reply:
        if token not in self._downloads:
            return Reply(404, b"expired")
        payload, b = self._downloads[token]
        reply = Reply(200, payload, {"Content-Type": "image/png"}, delay_s=b.download_delay_s)
        if b.kind == "truncated_download":
            reply.truncate_to = len(payload) // 2
        return reply
