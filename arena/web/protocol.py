"""The HTTP protocol `arena serve` runs: uvicorn's h11 protocol with TCP_NODELAY (arena.web.nodelay) and a
deadline on request headers.

uvicorn bounds only the idle time between keep-alive requests; a client that opens a connection and sends
nothing, or sends its request line and headers a byte at a time (slowloris), holds the connection for as long
as it likes, and enough of them exhaust the process's file descriptors. Here a connection whose request
headers are not complete `header_seconds` after it opened, or after the first byte of a later keep-alive
request, is answered 408 and closed. Bodies are bounded by the request guard (arena.web.guards), which sees
them arrive; but once a request has been answered before its body was read (413, 429, 408), uvicorn would go
on reading and discarding the rest for as long as the client sends it, so such a connection is closed
`header_seconds` after the first byte that follows the answer (not at once: closing on unread data can reset
the connection before the client has read the answer; a client that sends nothing more meets uvicorn's
keep-alive timeout instead).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11

from arena.settings import Settings
from arena.web.nodelay import NoDelayH11Protocol

TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 36\r\nconnection: close\r\n\r\nthe request headers arrived too late"
)


class ArenaH11Protocol(NoDelayH11Protocol):
    """`NoDelayH11Protocol` that closes connections whose request headers take too long, or whose unread body
    goes on arriving after the answer (see the module)."""

    header_seconds: float | None = None  # None: ARENA_HEADER_TIMEOUT_SECONDS, read at the first connection

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timer: asyncio.TimerHandle | None = None

    @classmethod
    def deadline(cls) -> float:
        """Seconds a connection has to send complete request headers."""
        if cls.header_seconds is None:  # `--workers N`: each worker imports the class by name
            cls.header_seconds = Settings().header_timeout_seconds
        return cls.header_seconds

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._waiting():
            if self.header_timer is None:  # the first bytes of a request whose headers are still incomplete
                self._arm()
        else:
            self._disarm()

    def _answered(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _waiting(self) -> bool:
        """Whether the connection is in a state only the deadline ends: headers incomplete, or the unread body
        of a request already answered still arriving."""
        if self.transport.is_closing():
            return False
        state = self.conn.their_state
        return (state is h11.IDLE or state is h11.SEND_BODY) and self._answered()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self.header_timer = self.loop.call_later(self.deadline(), self._expired)

    def _disarm(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _expired(self) -> None:
        self.header_timer = None
        if not self._waiting():
            return  # a request is being handled; its body, if any, is the request guard's to time
        if self.conn.their_state is h11.IDLE:
            self.transport.write(TIMEOUT_RESPONSE)
        self.transport.close()


def protocol_for(settings: Settings) -> type[ArenaH11Protocol]:
    """The protocol class with this settings object's header deadline (one process, tests)."""
    return type("ArenaH11Protocol", (ArenaH11Protocol,), {"header_seconds": settings.header_timeout_seconds})


HTTP_PROTOCOL = "arena.web.protocol:ArenaH11Protocol"
