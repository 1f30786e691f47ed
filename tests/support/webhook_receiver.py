"""A webhook receiver for the tests: a real HTTP server on 127.0.0.1 (a free port) that answers each POST with the
next scripted status (then 200) and keeps every request it got."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    """One request as the receiver saw it: path, headers and the raw body."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """The running server's base URL, the statuses still to answer, and what it received."""

    url: str
    script: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@contextmanager
def webhook_receiver(script: list[int] | None = None) -> Iterator[Receiver]:
    """Serve on 127.0.0.1 until the block ends."""
    state = Receiver(url="", script=list(script or []))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the http.server name
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with state.lock:
                state.received.append(
                    Received(self.path, {k.title(): v for k, v in self.headers.items()}, body)
                )
                status = state.script.pop(0) if state.script else 200
            self.send_response(status)
            if status == 429:
                self.send_header("Retry-After", "0")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *_args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
