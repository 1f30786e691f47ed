"""The per-app caches of rendered output: leaderboard pages by URL and data version, personal boards by their
inputs. `create_app` makes one of each (kept in `AppContext`); neither needs invalidating."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from arena.voting.personal import PersonalBoard
from arena.voting.record import CountedVote

BOARD_CACHE = 256  # personal boards kept per process (a fit with few votes takes up to about a second)


class PageCache:
    """Rendered pages by (URL, data version): a page is a pure function of both, so a repeat is a copy."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._pages: OrderedDict[tuple[str, tuple[object, ...]], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, tuple[object, ...]]) -> bytes | None:
        """The stored body, if any."""
        with self._lock:
            body = self._pages.get(key)
            if body is not None:
                self._pages.move_to_end(key)
            return body

    def put(self, key: tuple[str, tuple[object, ...]], body: bytes) -> None:
        """Store a rendered body (oldest entries go first)."""
        with self._lock:
            self._pages[key] = body
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)


class BoardCache:
    """Personal boards by everything they are a function of: the votes, the public board, the fit's settings.

    A reload (or a second process with the same inputs) gives the same digits whether or not the board was
    kept, so nothing needs invalidating; the cache only spares the bootstrap on repeat visits.
    """

    def __init__(self, size: int = BOARD_CACHE) -> None:
        self.size = size
        self._boards: OrderedDict[bytes, PersonalBoard] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(votes: Sequence[CountedVote], *parts: object) -> bytes:
        """A digest of the votes and the other inputs."""
        digest = hashlib.blake2b(digest_size=16)
        for v in votes:
            digest.update(f"{v.model_a}\t{v.model_b}\t{v.winner}\n".encode())
        digest.update(repr(parts).encode())
        return digest.digest()

    def get(self, key: bytes, fit: Callable[[], PersonalBoard]) -> PersonalBoard:
        """The kept board of `key`, or `fit()` kept for next time."""
        with self._lock:
            found = self._boards.get(key)
            if found is not None:
                self._boards.move_to_end(key)
                return found
        board = fit()
        with self._lock:
            self._boards[key] = board
            while len(self._boards) > self.size:
                self._boards.popitem(last=False)
        return board
