"""What every hosted-provider fake shares: a script of scenarios, recorded calls, result files that can expire.

Scenarios (the same four for every provider, each answered in that provider's documented shape):
    "ok"            the image, after a short queue or at once
    "rate_limited"  the provider's 429 answer
    "failed"        the provider's job-failure answer (a failed job for queues, a 5xx for synchronous APIs)
    "expired"       the job succeeds but its result URL has expired by the time it is fetched
    "refused"       the provider's documented safety refusal (only fakes with `documented_refusal`)

Every fake also checks what its documentation requires of each request: the credential in the documented header
and scheme (`auth_header`, `auth_scheme`; a wrong one gets `auth_error()`, and the call is not recorded), and,
where the fake cites a field list (`accepted_fields`), no field outside it (`unknown_field()` names it).
"""

from __future__ import annotations

import base64
import itertools
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.fakes.http import FakeHTTPServer, Reply, Request
from tests.fakes.images import png_bytes

Scenario = Literal["ok", "rate_limited", "failed", "expired", "refused"]


@dataclass
class Call:
    """One API request as received: path, lower-cased headers, JSON body or form fields and files (the last part
    of each file field in `files`, every part in `file_lists`, e.g. OpenAI's repeated image[])."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)
    file_lists: dict[str, list[bytes]] = field(default_factory=dict)


class ProviderFake(FakeHTTPServer):
    """Subclasses set `name`, `hosts` (the real hosts they stand in for), `delivery` and implement `api`."""

    name = ""
    hosts: tuple[str, ...] = ()
    delivery: Literal["url", "inline"] = "url"
    auth_header = "authorization"  # lower-case header name the API documents for its key
    auth_scheme = "Bearer "  # what precedes the key in that header ("" for a bare key)
    documented_refusal = False  # True when the fake answers "refused" with the provider's documented body

    def __init__(self, *, key: str | None = None) -> None:
        super().__init__()
        self.key = key  # when set, the credential must be exactly this key
        self.calls: list[Call] = []
        self._script: deque[Scenario] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._files: dict[str, tuple[bytes, bool]] = {}

    def push(self, *scenarios: Scenario) -> None:
        """The next jobs follow these scenarios, in order (then "ok")."""
        with self._lock:
            self._script.extend(scenarios)

    def next_scenario(self) -> Scenario:
        with self._lock:
            return self._script.popleft() if self._script else "ok"

    def new_id(self) -> str:
        return f"{self.name}-{next(self._ids)}"

    def image(self, width: int = 1024, height: int = 1024, seed: str = "") -> bytes:
        return png_bytes(f"{width}x{height}", f"{self.name}:{seed}")

    def b64_image(self, width: int = 1024, height: int = 1024, seed: str = "") -> str:
        return base64.b64encode(self.image(width, height, seed)).decode()

    def file_url(self, data: bytes, *, expired: bool) -> str:
        """A result URL served by this fake; an expired one answers `expired_reply`."""
        token = self.new_id()
        self._files[token] = (data, expired)
        return f"{self.url}/files/{token}.png"

    def expired_reply(self) -> Reply:
        """How an expired signed URL answers (cloud storage: 403 with an XML error)."""
        body = (
            b"<?xml version='1.0'?><Error><Code>AuthenticationFailed</Code>"
            b"<Message>Signature expired</Message></Error>"
        )
        return Reply(403, body, {"Content-Type": "application/xml"})

    def record(self, request: Request, body: dict[str, Any], files: dict[str, bytes] | None = None) -> Call:
        call = Call(request.path, request.headers, body, files or {}, dict(request.file_parts))
        self.calls.append(call)
        return call

    def requires_auth(self, request: Request) -> bool:
        """Whether this request must carry the key (result files are signed URLs and need none)."""
        return True

    def auth_ok(self, request: Request) -> bool:
        """The key is in the documented header with the documented scheme (and is the expected key, if set)."""
        value = request.headers.get(self.auth_header)
        if value is None or not value.startswith(self.auth_scheme):
            return False
        token = value[len(self.auth_scheme) :]
        return bool(token.strip()) and (self.key is None or token == self.key)

    def auth_error(self) -> Reply:
        """The answer to a missing or wrongly sent key."""
        return Reply.json({"detail": "Unauthorized"}, 401)

    def unknown_fields(self, request: Request, body: dict[str, Any]) -> list[str]:
        """Fields of the request outside the documented list for its path (none when no list is cited)."""
        accepted = self.accepted_fields(request)
        return [] if accepted is None else sorted(set(body) - accepted)

    def accepted_fields(self, request: Request) -> frozenset[str] | None:
        """The documented request fields for this path, or None when the fake cites no list."""
        return None

    def unknown_field(self, name: str) -> Reply:
        """The provider's answer to a field it does not take."""
        return Reply.json({"detail": f"unknown field '{name}'"}, 422)

    def refused_reply(self) -> Reply:
        """The provider's documented refusal (only called when `documented_refusal`)."""
        raise NotImplementedError

    def handle(self, request: Request) -> Reply:
        signed_file = request.path.startswith("/files/")
        if not signed_file and self.requires_auth(request) and not self.auth_ok(request):
            return self.auth_error()
        if request.method == "GET" and request.path.startswith("/files/"):
            data, expired = self._files.get(
                request.path.removeprefix("/files/").removesuffix(".png"), (b"", True)
            )
            if expired or not data:
                return self.expired_reply()
            return Reply(200, data, {"Content-Type": "image/png"})
        return self.api(request)

    def api(self, request: Request) -> Reply:
        raise NotImplementedError
