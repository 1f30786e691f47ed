"""Uvicorn's HTTP protocol with TCP_NODELAY set on every accepted connection.

With `--workers N` uvicorn hands each worker a copy of the listening socket whose `proto` field is 0, so
asyncio's own check (`proto == IPPROTO_TCP`) skips TCP_NODELAY; Nagle's algorithm then holds each keep-alive
response's last segment until the client's delayed ACK, about 40 ms (uvicorn issue 3149). Setting the option
ourselves in `connection_made` makes every worker's connections send at once, with one worker or many.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


def set_nodelay(transport: Any) -> bool:
    """Turn Nagle's algorithm off on a transport's TCP socket; False when it has none (a Unix socket)."""
    sock = transport.get_extra_info("socket")
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return False
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return True


class NoDelayH11Protocol(H11Protocol):
    """`H11Protocol` whose connections never wait for Nagle's algorithm."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        set_nodelay(transport)
        super().connection_made(transport)  # type: ignore[arg-type]


HTTP_PROTOCOL = "arena.web.nodelay:NoDelayH11Protocol"
