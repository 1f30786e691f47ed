"""Slow clients cannot starve a normal one, over real HTTP against uvicorn with `arena serve`'s protocol.

The attack of issue 24: connections that send a small body a byte at a time each held one of the request slots
while the app waited for the body, so enough of them answered every page and matchup 503. Here one address
opens more slow-body connections than there are slots, and another keeps request headers incomplete
(slowloris); a third address then asks for the arena page and matchups, which must all be 200 while the slow
connections are still open; then every slow connection must have been cut off: 408 (or 429 beyond the
per-address cap) for slow bodies, 408 and closed for slow headers.

Every client runs on loopback, but each binds its own source address in 127.0.0.0/8 (127.0.0.2, .3, .4), so
the server sees three real, distinct peer addresses without any proxy header: the per-address cap is tested
as it works in production. Deadlines are shortened through the settings so the test takes seconds.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from arena.app import create_app
from tests.conftest import serve

SLOW_BODY_FROM, SLOW_HEADERS_FROM, NORMAL_FROM = "127.0.0.2", "127.0.0.4", "127.0.0.3"
SLOTS, PER_ADDRESS, DEADLINE = 4, 3, 8.0
SLOW_BODIES, SLOW_HEADERS = 8, 8  # twice the slots each
DRIP_SECONDS = 0.25  # one byte each time: a 4,000-byte body would take 1,000 s


class SlowClient(threading.Thread):
    """One connection that sends `head` at once, then `drip` a byte at a time, until the server answers or
    closes; keeps what the server sent and when."""

    def __init__(self, port: int, source: str, head: bytes, drip: bytes) -> None:
        super().__init__(daemon=True)
        self.port, self.source, self.head, self.drip = port, source, head, drip
        self.received = b""
        self.answered_at: float | None = None
        self.closed_by_server = False  # the server ended the connection while this client kept sending
        self.connected = threading.Event()

    def run(self) -> None:
        with socket.socket() as sock:
            sock.bind((self.source, 0))
            sock.settimeout(DRIP_SECONDS)
            sock.connect(("127.0.0.1", self.port))
            self.connected.set()
            try:
                sock.sendall(self.head)
                for byte in self.drip:
                    try:
                        chunk = sock.recv(4096)
                    except TimeoutError:
                        sock.sendall(bytes([byte]))
                        continue
                    self.received += chunk
                    break  # an answer, or b"" when the server closed the connection
                self.answered_at = time.monotonic()
                # keep sending the rest regardless of the answer, as an attacker would, until the server closes
                give_up = time.monotonic() + DEADLINE + 10
                while chunk and time.monotonic() < give_up:
                    try:
                        chunk = sock.recv(4096)
                        self.received += chunk
                    except TimeoutError:
                        sock.sendall(b" ")
                self.closed_by_server = not chunk
            except (ConnectionResetError, BrokenPipeError):
                self.answered_at = self.answered_at or time.monotonic()
                self.closed_by_server = True

    @property
    def status(self) -> int | None:
        """The HTTP status the server answered, or None when it closed without one."""
        if not self.received.startswith(b"HTTP/1.1 "):
            return None
        return int(self.received[9:12])


@pytest.fixture
def tight_server(settings, world, frozen) -> Iterator[tuple[str, int]]:
    tight = settings.model_copy(
        update={
            "max_concurrent_requests": SLOTS,
            "max_requests_per_address": PER_ADDRESS,
            "body_timeout_seconds": DEADLINE,
            "header_timeout_seconds": DEADLINE,
        }
    )
    with serve(create_app(tight, engine=world, clock=frozen)) as url:
        yield url, int(url.rsplit(":", 1)[1])


def test_slow_bodies_and_slow_headers_cannot_starve_a_normal_client(tight_server):
    url, port = tight_server
    body_head = (
        b"POST /api/v1/matchups HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
        b"Content-Length: 4000\r\n\r\n"
    )
    slow = [SlowClient(port, SLOW_BODY_FROM, body_head, b" " * 4000) for _ in range(SLOW_BODIES)]
    header_drip = b"User-Agent: " + b"x" * 4000 + b"\r\n\r\n"
    loris = [
        SlowClient(port, SLOW_HEADERS_FROM, b"GET / HTTP/1.1\r\nHost: arena\r\n", header_drip)
        for _ in range(SLOW_HEADERS)
    ]
    for client in slow + loris:
        client.start()
        assert client.connected.wait(10)
    time.sleep(1.0)  # every slow connection has sent its headers (or its first header bytes) and is dripping

    transport = httpx.HTTPTransport(local_address=NORMAL_FROM)
    with httpx.Client(base_url=url, timeout=30, transport=transport) as normal:
        answers = [normal.get("/")]
        for _ in range(SLOTS + 2):  # more requests than there are slots, one after another
            answers.append(normal.post("/api/v1/matchups", json={"modality": "text_to_image"}))
        answers.append(normal.get("/leaderboard"))
    still_open = [c for c in slow + loris if c.answered_at is None]
    assert [a.status_code for a in answers] == [200] * len(answers), [a.text[:80] for a in answers]
    # the normal client was served while the attack was under way, not after it had been cut off
    assert len(still_open) >= PER_ADDRESS + SLOW_HEADERS

    for client in slow + loris:
        client.join(2 * DEADLINE + 20)
        assert not client.is_alive()
    # every slow connection was ended by the server, also those answered (429) while their body kept coming
    assert all(c.closed_by_server for c in slow + loris), [(c.status, c.received[:20]) for c in slow + loris]
    body_statuses = sorted(c.status for c in slow)
    assert body_statuses == [408] * PER_ADDRESS + [429] * (SLOW_BODIES - PER_ADDRESS), body_statuses
    assert all(b"did not arrive within" in c.received for c in slow if c.status == 408)
    assert all(c.status in (408, None) for c in loris), [c.received[:40] for c in loris]
    assert any(c.status == 408 for c in loris)

    with httpx.Client(
        base_url=url, timeout=30, transport=httpx.HTTPTransport(local_address=SLOW_BODY_FROM)
    ) as after:
        assert after.get("/").status_code == 200  # the slow address's slots were given back
