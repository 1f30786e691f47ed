"""The request guard's body deadline: a body already there when the request starts is taken at once, and a body
that arrives late, whether nothing of it or its first part came with the headers, is answered 408 at the
deadline, while one that comes in time, slowly or in parts, reaches the app whole."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from arena.web.guards import GuardMiddleware

DEADLINE = 0.3


async def _serve(messages: list[tuple[float, dict[str, Any]]]) -> tuple[list[dict[str, Any]], bytes | None]:
    """Run one POST through the guard; `messages` are (seconds to wait before it, message) of the body."""
    seen: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    queue = list(messages)

    async def receive() -> dict[str, Any]:
        delay, message = queue.pop(0) if queue else (3600.0, {"type": "http.disconnect"})
        if delay:
            await asyncio.sleep(delay)
        return message

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    guard = GuardMiddleware(app, max_body_bytes=1000, max_concurrent=2, body_seconds=DEADLINE)
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/x",
        "raw_path": b"/x",
        "query_string": b"",
        "headers": [],
    }
    await guard(scope, receive, send)
    return sent, seen[0] if seen else None


def _part(body: bytes, more: bool) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


def test_a_body_that_is_already_there_reaches_the_app_whole() -> None:
    sent, body = asyncio.run(_serve([(0, _part(b'{"a": 1}', False))]))
    assert sent[0]["status"] == 200 and body == b'{"a": 1}'


def test_a_body_arriving_in_time_slowly_or_in_parts_reaches_the_app_whole() -> None:
    sent, body = asyncio.run(
        _serve([(0.05, _part(b"ab", True)), (0.05, _part(b"cd", True)), (0, _part(b"e", False))])
    )
    assert sent[0]["status"] == 200 and body == b"abcde"
    sent, body = asyncio.run(_serve([(0, _part(b"ab", True)), (0.1, _part(b"cd", False))]))
    assert sent[0]["status"] == 200 and body == b"abcd"


def test_a_late_body_is_answered_408_at_the_deadline() -> None:
    for messages in (
        [(5.0, _part(b"ab", False))],  # nothing came with the headers
        [(0, _part(b"ab", True)), (5.0, _part(b"cd", False))],  # its first part came, the rest is late
        [(0.2, _part(b"ab", True)), (0.2, _part(b"cd", False))],  # each part in time, the whole too late
    ):
        began = time.monotonic()
        sent, body = asyncio.run(_serve(messages))
        took = time.monotonic() - began
        assert sent[0]["status"] == 408 and body is None
        assert (b"connection", b"close") in sent[0]["headers"]
        assert DEADLINE <= took < DEADLINE + 0.5, took


def test_a_client_that_leaves_before_its_body_is_not_answered() -> None:
    sent, body = asyncio.run(_serve([(0, {"type": "http.disconnect"})]))
    assert sent == [] and body is None
    sent, body = asyncio.run(_serve([(0.05, {"type": "http.disconnect"})]))
    assert sent == [] and body is None


def test_a_body_over_the_limit_is_answered_413() -> None:
    sent, _ = asyncio.run(_serve([(0, _part(b"x" * 1001, False))]))
    assert sent[0]["status"] == 413
    sent, _ = asyncio.run(_serve([(0.01, _part(b"x" * 600, True)), (0.01, _part(b"x" * 600, False))]))
    assert sent[0]["status"] == 413
