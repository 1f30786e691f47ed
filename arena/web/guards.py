"""Request guards that run before any route: a cap on the requests one client address has in flight (429
beyond it), a deadline on receiving the body (408, connection closed), request-body limits per route (read and
counted before parsing, so a chunked body cannot slip past a missing Content-Length), a bound on concurrent
requests (a request waits a few seconds for a slot, then gets 503 with Retry-After), refusal of NUL bytes in
the path or query and of JSON bodies holding lone UTF-16 surrogates, and the security headers every response
carries. A body is received before the request takes a slot, so clients sending slowly hold no slot at all;
slow request headers are cut off earlier, by the HTTP protocol (arena.web.protocol)."""

from __future__ import annotations

import asyncio
import json
import re
import types
from collections.abc import Awaitable, Callable, Generator, Mapping, MutableMapping
from typing import Any
from urllib.parse import unquote_to_bytes

from arena.voting.sessions import forwarded_client

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Voting bodies are a few hundred bytes; everything else (operator forms and JSON) is bounded by the setting,
# except routes that name their own limit (the prompt import's 2 MiB: arena.web.console.prompts.BODY_LIMITS).
SMALL_BODY_ROUTES = {"/api/v1/votes": 4096, "/api/v1/matchups": 4096}
# A request waits this long for one of the concurrent slots before it is answered 503.
QUEUE_SECONDS = 5.0
# Cheap routes that must answer even when the app is saturated.
UNBOUNDED_PREFIXES = ("/static/", "/healthz", "/readyz", "/metrics")
# Probes and scrapes, which monitoring sends from one address, do not count against that address's cap.
UNCAPPED_PREFIXES = ("/healthz", "/readyz", "/metrics")
# A JSON escape of a UTF-16 surrogate (\ud800-\udfff); only bodies holding one are parsed here.
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
SURROGATE_DETAIL = (
    "the JSON body holds a lone UTF-16 surrogate escape (such as \\ud800), which is not text: "
    "send valid Unicode"
)
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


def _holds_surrogate(value: Any) -> bool:
    """Whether decoded JSON holds a string (key or value) with a lone surrogate, which no UTF-8 can encode."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def lone_surrogate(body: bytes) -> bool:
    """Whether `body` is JSON whose text holds a lone UTF-16 surrogate (`"\\ud800"`): valid JSON, but no string
    the database, the logs or a template can write. Bodies that are not JSON are left to the route's parser."""
    if not _ESCAPED_SURROGATE.search(body):
        return False
    try:
        return _holds_surrogate(json.loads(body))
    except (ValueError, RecursionError):
        return False


def _started(receive: Receive) -> tuple[Message | None, Awaitable[Message] | None]:
    """Run `receive()` up to its first wait: (the message, None) when it was already there, as a body that came
    with its headers is, else (None, an awaitable of the rest). So a complete body is taken without the timer
    of a deadline, and a body still arriving is awaited under its deadline from the same moment as before."""
    steps = receive().__await__()
    try:
        waiting_on = steps.send(None)
    except StopIteration as done:
        return done.value, None
    return None, _resumed(steps, waiting_on)


@types.coroutine
def _resumed(steps: Generator[Any, Any, Message], waiting_on: Any) -> Generator[Any, Any, Message]:
    """The rest of an awaitable that `_started` ran to its first wait: passes what it waits on to the event loop,
    and what comes back (a value, or an exception such as a deadline's cancellation) to it, as `await` does."""
    while True:
        try:
            value = yield waiting_on
        except BaseException as exc:  # every exception, cancellation included, goes to the awaitable
            try:
                waiting_on = steps.throw(exc)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                waiting_on = steps.send(value)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]


async def _answer(
    send: Send,
    status: int,
    detail: str,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    body = json.dumps({"detail": detail, **(extra or {})}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw + SECURITY_HEADERS})
    await send({"type": "http.response.body", "body": body})


class GuardMiddleware:
    """Pure ASGI middleware (no BaseHTTPMiddleware buffering): see the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        max_concurrent: int,
        max_per_address: int | None = None,
        body_seconds: float | None = None,
        trusted_proxies: str = "",
        route_limits: Mapping[str, int] | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.slots = asyncio.Semaphore(max_concurrent)
        self.max_per_address = max_per_address
        self.body_seconds = body_seconds
        self.trusted = frozenset(p.strip() for p in trusted_proxies.split(",") if p.strip())
        self.route_limits = {**SMALL_BODY_ROUTES, **(route_limits or {})}
        self.in_flight: dict[str, int] = {}  # client address -> its requests being read, queued or handled

    def body_limit(self, path: str) -> int:
        """The largest request body accepted on `path`."""
        key = path.rstrip("/") or "/"
        if key in SMALL_BODY_ROUTES:
            return SMALL_BODY_ROUTES[key]
        return max(self.route_limits.get(key, 0), self.max_body_bytes)

    def client(self, scope: Scope) -> str:
        """The client address, named as `VoterSessions.client_address` names it."""
        peer = (scope.get("client") or ("unknown", 0))[0]
        forwarded = None
        if peer in self.trusted:
            values = [v for k, v in scope.get("headers") or [] if k == b"x-forwarded-for"]
            forwarded = b",".join(values).decode("latin-1") if values else None
        return forwarded_client(peer, forwarded, self.trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        raw = scope.get("raw_path") or path.encode()
        if b"\x00" in unquote_to_bytes(raw) or b"\x00" in unquote_to_bytes(scope.get("query_string", b"")):
            await _answer(send, 400, "NUL bytes are not allowed in the path or query")
            return
        if self.max_per_address is None or path.startswith(UNCAPPED_PREFIXES):
            await self._bounded(scope, receive, send)
            return
        address = self.client(scope)
        if self.in_flight.get(address, 0) >= self.max_per_address:
            await _answer(
                send,
                429,
                f"more than {self.max_per_address} requests at once from your address; retry shortly",
                {"Retry-After": "1"},
            )
            return
        self.in_flight[address] = self.in_flight.get(address, 0) + 1
        try:
            await self._bounded(scope, receive, send)
        finally:
            left = self.in_flight[address] - 1
            if left:
                self.in_flight[address] = left
            else:
                del self.in_flight[address]

    async def _bounded(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Receive the body (holding no slot), then run the request in a slot unless its path is exempt."""
        body = await self._read_body(scope, receive, send)
        if body is None:  # already answered (413, 408, 400) or the client left
            return
        if lone_surrogate(body):
            await _answer(
                send, 422, SURROGATE_DETAIL, extra={"errors": [{"loc": ["body"], "msg": SURROGATE_DETAIL}]}
            )
            return
        if scope.get("path", "").startswith(UNBOUNDED_PREFIXES):
            await self._run(scope, receive, send, body)
            return
        if self.slots.locked():  # wait for a slot, at most QUEUE_SECONDS
            try:
                await asyncio.wait_for(self.slots.acquire(), QUEUE_SECONDS)
            except TimeoutError:
                await _answer(send, 503, "the server is busy; retry shortly", {"Retry-After": "1"})
                return
        else:  # a slot is free: take it now, without the task and timer that wait_for makes (3.11) for nothing
            await self.slots.acquire()
        try:
            await self._run(scope, receive, send, body)
        finally:
            self.slots.release()

    async def _read_body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The whole request body within its size limit and deadline; None once answered or disconnected."""
        limit = self.body_limit(scope.get("path", ""))
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > limit
            except ValueError:
                await _answer(send, 400, "invalid Content-Length")
                return None
            if too_big:
                await _answer(send, 413, f"request body larger than {limit} bytes")
                return None
        if scope.get("method") in {"GET", "HEAD", "OPTIONS"} and declared is None:
            return b""
        seconds = self.body_seconds
        deadline = None if seconds is None else asyncio.get_running_loop().time() + seconds
        try:
            first, pending = _started(receive)
            if first is not None and not first.get("more_body", False):  # all there already: no timer to arm
                return await self._collect(first, None, receive, send, limit)
            async with asyncio.timeout_at(deadline):
                return await self._collect(first, pending, receive, send, limit)
        except TimeoutError:
            await _answer(
                send,
                408,
                f"the request body did not arrive within {self.body_seconds:g} s",
                {"Connection": "close"},
            )
            return None

    async def _collect(
        self,
        message: Message | None,
        pending: Awaitable[Message] | None,
        receive: Receive,
        send: Send,
        limit: int,
    ) -> bytes | None:
        """The body from `message` (or else what `pending` gives) and the messages after it, within `limit`;
        None once answered 413 or disconnected."""
        chunks: list[bytes] = []
        size = 0
        while True:
            if message is None:
                message = await (pending or receive())
                pending = None
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _answer(send, 413, f"request body larger than {limit} bytes")
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)
            message = None

    async def _run(self, scope: Scope, receive: Receive, send: Send, body: bytes) -> None:
        """Call the app with the body already read and the security headers added to its answer."""
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
