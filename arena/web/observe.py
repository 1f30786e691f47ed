"""Per-request context and observability: the audit source ("web"), a request id (kept from a well-formed
`X-Request-ID` or made fresh, echoed in the response), request count and latency by route template (never the
raw path, so ids cannot explode the series) and one JSON access-log line per request (`/metrics` is
`arena.web.metrics`).
All in one pure ASGI middleware: Starlette's `@app.middleware("http")` (BaseHTTPMiddleware) costs a task group
and memory streams per request."""

from __future__ import annotations

import logging
import re
import secrets
import time

from prometheus_client import Counter, Histogram

from arena.ops import audit
from arena.runtime.observability import LATENCY, REQUESTS, request_id
from arena.web.guards import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("arena.access")
_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


def _route(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    if path:
        return str(path)
    return "/static" if scope.get("path", "").startswith("/static/") else "unmatched"


class ObserveMiddleware:
    """Outermost middleware: sets the request id for every log line of the request, then counts and logs it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        # (route, method, status) -> its request counter and latency histogram: `labels` checks and locks each
        # call, and returns the same children every time
        self.series: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        rid = given if _ID.match(given) else secrets.token_hex(8)
        token = request_id.set(rid)
        audit.SOURCE.set("web")  # audit rows written while serving a request say "web"
        status = 500
        started = time.perf_counter()

        async def tagged(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, tagged)
        finally:
            elapsed = time.perf_counter() - started
            route, method = _route(scope), scope.get("method", "")
            series = self.series.get((route, method, status))
            if series is None:
                series = REQUESTS.labels(route, method, str(status)), LATENCY.labels(route, method)
                self.series[route, method, status] = series
            series[0].inc()
            series[1].observe(elapsed)
            if log.isEnabledFor(logging.INFO):  # the record made directly: `log.info` also walks the stack
                extra = {"method": method, "route": route, "status": status, "ms": round(elapsed * 1000, 1)}
                log.handle(
                    log.makeRecord(log.name, logging.INFO, __file__, 0, "%s %s %d", (method, route, status), None,
                                   extra=extra)
                )  # fmt: skip
            request_id.reset(token)
