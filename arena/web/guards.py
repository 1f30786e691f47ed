"""Request guards that run before any route: a bound on concurrent requests (a request waits a few seconds
for a slot, then gets 503 with Retry-After), request-body limits per route
(read and counted before parsing, so a chunked body cannot slip past a missing Content-Length), refusal of
NUL bytes in the path or query, and the security headers every response carries."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote_to_bytes

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Voting bodies are a few hundred bytes; everything else (operator forms and JSON) is bounded by the setting.
SMALL_BODY_ROUTES = {"/api/v1/votes": 4096, "/api/v1/matchups": 4096}
# A request waits this long for one of the concurrent slots before it is answered 503.
QUEUE_SECONDS = 5.0
# Cheap routes that must answer even when the app is saturated.
UNBOUNDED_PREFIXES = ("/static/", "/healthz", "/readyz", "/metrics")
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


async def _answer(send: Send, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw + SECURITY_HEADERS})
    await send({"type": "http.response.body", "body": body})


class GuardMiddleware:
    """Pure ASGI middleware (no BaseHTTPMiddleware buffering): see the module docstring."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, max_concurrent: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.slots = asyncio.Semaphore(max_concurrent)

    def body_limit(self, path: str) -> int:
        """The largest request body accepted on `path`."""
        return SMALL_BODY_ROUTES.get(path.rstrip("/") or "/", self.max_body_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        raw = scope.get("raw_path") or path.encode()
        if b"\x00" in unquote_to_bytes(raw) or b"\x00" in unquote_to_bytes(scope.get("query_string", b"")):
            await _answer(send, 400, "NUL bytes are not allowed in the path or query")
            return
        if path.startswith(UNBOUNDED_PREFIXES):
            await self._guarded(scope, receive, send)
            return
        try:
            await asyncio.wait_for(self.slots.acquire(), QUEUE_SECONDS)
        except TimeoutError:
            await _answer(send, 503, "the server is busy; retry shortly", {"Retry-After": "1"})
            return
        try:
            await self._guarded(scope, receive, send)
        finally:
            self.slots.release()

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.body_limit(scope.get("path", ""))
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > limit
            except ValueError:
                await _answer(send, 400, "invalid Content-Length")
                return
            if too_big:
                await _answer(send, 413, f"request body larger than {limit} bytes")
                return
        chunks: list[bytes] = []
        size = 0
        if scope.get("method") not in {"GET", "HEAD", "OPTIONS"} or declared is not None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    await _answer(send, 413, f"request body larger than {limit} bytes")
                    return
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, replay, with_headers)
