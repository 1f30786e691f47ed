"""What callers of the vote service pass and catch: who is asking, the choices, and the two ways a call ends
without storing anything (refused, or would have had to wait)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CHOICES", "VoteError", "Voter", "WouldWait"]

CHOICES: tuple[str, ...] = ("left", "right", "tie", "both_bad")


class WouldWait(Exception):
    """Raised instead of waiting, by a call with `wait=False`, when it would have had to wait for SQLite's write
    lock (held by another writer) or for a first pool load; nothing was stored. The caller retries with
    `wait=True` where waiting is harmless (a vote-path thread rather than the event loop)."""


class VoteError(Exception):
    """A request the service refuses: HTTP status and a message for the client. Nothing was stored."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Voter:
    """Who is asking: the session id, a keyed hash of the client address, and the source of the vote."""

    session_id: str
    client_hash: str | None = None
    source: str = "human"
