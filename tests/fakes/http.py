"""A tiny HTTP/1.1 server on a real 127.0.0.1 socket, run in its own thread, for testing adapters end to end.

Written on raw asyncio streams (not an ASGI app) so a reply can do what real providers sometimes do: wait before
the headers, wait between headers and body, or promise a Content-Length and hang up early.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.parser
import email.policy
import inspect
import json
import threading
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests"}


SPIN_S = 0.002  # the last part of a delay is waited out by yielding in a loop, not by the selector's timeout


async def precise_sleep(seconds: float) -> None:
    """Sleep `seconds` to within ~0.1 ms: the event loop's own timer wakes up to a millisecond late (the
    selector rounds its timeout up to whole milliseconds), which would count as client error in the timing
    bench. The last `SPIN_S` is spent yielding to the loop until the deadline."""
    deadline = time.perf_counter() + seconds
    if seconds > SPIN_S:
        await asyncio.sleep(seconds - SPIN_S)
    while time.perf_counter() < deadline:
        await asyncio.sleep(0)


@dataclass
class Request:
    """One request as received: method, path, query, lower-cased headers, body and arrival time."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    received_at: float = field(default_factory=time.perf_counter)
    file_parts: dict[str, list[bytes]] = field(default_factory=dict)  # every file part by field name (form())

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)

    def form(self) -> tuple[dict[str, str], dict[str, bytes]]:
        """A multipart/form-data body as (text fields, file fields -> bytes); a repeated file field keeps its
        last part (see `form_files` for all of them)."""
        head = f"Content-Type: {self.headers['content-type']}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + self.body)
        fields: dict[str, str] = {}
        files: dict[str, bytes] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True) or b""
            if part.get_filename() is not None:
                files[name] = payload
                self.file_parts.setdefault(name, []).append(payload)
            else:
                fields[name] = payload.decode()
        return fields, files


@dataclass
class Reply:
    """What to send back, and how: delays before the headers / before the body, or a body cut short."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    body_delay_s: float = 0.0
    truncate_to: int | None = None

    @classmethod
    def json(cls, data: Any, status: int = 200, **kwargs: Any) -> Reply:
        """A JSON reply."""
        headers = {"Content-Type": "application/json", **kwargs.pop("headers", {})}
        return cls(status=status, body=json.dumps(data).encode(), headers=headers, **kwargs)


class FakeHTTPServer:
    """Subclass and override `handle`. Use as a context manager; `url` is the base URL once started."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name=type(self).__name__)
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self.port}"

    def handle(self, request: Request) -> Reply | Awaitable[Reply]:
        """The reply to one request (may be async)."""
        return Reply(status=404, body=b"not found")

    def start(self) -> FakeHTTPServer:
        """Listen on a free loopback port in a background thread."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        """Close the listener and every open connection, then the loop and its thread."""
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def __enter__(self) -> FakeHTTPServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await self._server.wait_closed()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while await self._one_exchange(reader, writer):
                pass
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()

    async def _one_exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection should close."""
        head = await reader.readuntil(b"\r\n\r\n")
        received_at = time.perf_counter()
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        parts = urlsplit(target)
        request = Request(method, parts.path, parse_qs(parts.query), headers, body, received_at)
        self.requests.append(request)
        reply = self.handle(request)
        if inspect.isawaitable(reply):
            reply = await reply
        await precise_sleep(reply.delay_s)
        status_line = f"HTTP/1.1 {reply.status} {REASONS.get(reply.status, 'Status')}\r\n"
        out_headers = {"Content-Length": str(len(reply.body)), **reply.headers}
        if reply.truncate_to is not None:
            out_headers["Connection"] = "close"
        writer.write(
            (status_line + "".join(f"{k}: {v}\r\n" for k, v in out_headers.items()) + "\r\n").encode()
        )
        await writer.drain()
        if reply.body_delay_s:
            await precise_sleep(reply.body_delay_s)
        if reply.truncate_to is not None:
            writer.write(reply.body[: reply.truncate_to])
            await writer.drain()
            return False
        writer.write(reply.body)
        await writer.drain()
        return headers.get("connection", "").lower() != "close"
