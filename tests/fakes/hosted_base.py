"""What every hosted-provider fake shares: a script of scenarios, recorded calls, result files that can expire.

Scenarios (the same four for every provider, each answered in that provider's documented shape):
    "ok"            the image, after a short queue or at once
    "rate_limited"  the provider's 429 answer
    "failed"        the provider's job-failure answer (a failed job for queues, a 5xx for synchronous APIs)
    "expired"       the job succeeds but its result URL has expired by the time it is fetched
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

Scenario = Literal["ok", "rate_limited", "failed", "expired"]


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

    def __init__(self) -> None:
        super().__init__()
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

    def handle(self, request: Request) -> Reply:
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
