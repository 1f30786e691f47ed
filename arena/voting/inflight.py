"""Matchups a process has picked but not yet committed, so the variety rules count them without holding the
serve lock over the insert.

A serve reads the window from the database, picks a pair, and inserts the matchup. Holding one lock over all
three made serves strictly sequential, each waiting for its own commit (on PostgreSQL under load, a round trip
and a WAL flush: about a hundred serves a second at most). Now the lock covers the read and the pick; the pick
is noted here until its insert has committed, and the next serve's read adds what is noted. The rules still
see every matchup of the process: a noted matchup is either not yet visible in the database (counted here
once) or, between its commit and the removal, briefly counted twice, which only makes a cap stricter.
"""

from __future__ import annotations

from dataclasses import replace

from arena.voting.matchmaking import FIRST_MATCHUPS, NO_REPEAT, Pair, Recent


class InFlight:
    """Picked, not yet committed matchups by id. Not locked itself: callers hold the service's serve lock.

    Reads that do not hold a lock until their pick (the event-loop path on PostgreSQL, whose reads overlap) take
    a ticket with `begin_read`: a matchup committed after a read began may be missing from that read, so it is
    kept (`committed` instead of `discard`) and counted for that read until every read that began before its
    commit has ended."""

    def __init__(self) -> None:
        self._picked: dict[str, tuple[str, str, Pair]] = {}
        self._committed: dict[str, tuple[int, str, str, Pair]] = {}  # id -> (ticket at commit, modality, ...)
        self._ticket = 0
        self._reading: dict[int, int] = {}  # tickets of reads in progress (value: how many)

    def __len__(self) -> int:
        return len(self._picked) + len(self._committed)

    def add(self, matchup_id: str, modality: str, session_id: str, pair: Pair) -> None:
        """Note a picked matchup (before its insert)."""
        self._picked[matchup_id] = (modality, session_id, pair)

    def discard(self, matchup_id: str) -> None:
        """Forget a matchup once its insert committed (or failed)."""
        self._picked.pop(matchup_id, None)

    def begin_read(self) -> int:
        """A ticket for a read about to start (see the class)."""
        self._ticket += 1
        self._reading[self._ticket] = self._reading.get(self._ticket, 0) + 1
        return self._ticket

    def end_read(self, ticket: int) -> None:
        """The read of `ticket` has been used (or failed)."""
        left = self._reading[ticket] - 1
        if left:
            self._reading[ticket] = left
        else:
            del self._reading[ticket]
        self._prune()

    def committed(self, matchup_id: str) -> None:
        """A picked matchup's insert committed: reads that began before now may still lack it."""
        noted = self._picked.pop(matchup_id, None)
        if noted is not None and self._reading:
            self._committed[matchup_id] = (self._ticket, *noted)

    def _prune(self) -> None:
        oldest = min(self._reading, default=self._ticket + 1)
        for matchup_id in [k for k, (at, *_) in self._committed.items() if at < oldest]:
            del self._committed[matchup_id]

    def merged(self, recent: Recent, modality: str, session_id: str, ticket: int | None = None) -> Recent:
        """`recent` (read from the database) with the noted matchups of `modality` added: to the window counts,
        and, for `session_id`'s own, to its first and last pairs (they are newer than any it has stored). With
        the `ticket` of the read, also the matchups committed after that read began."""
        picked = [(session, pair) for mod, session, pair in self._picked.values() if mod == modality]
        if ticket is not None:
            picked += [
                (session, pair)
                for at, mod, session, pair in self._committed.values()
                if at >= ticket and mod == modality
            ]
        if not picked:
            return recent
        window = dict(recent.window)
        for _, pair in picked:
            window[pair] = window.get(pair, 0) + 1
        mine = [pair for session, pair in picked if session == session_id]
        if not mine:
            return replace(recent, window=window)
        first = [*recent.session_first, *mine][:FIRST_MATCHUPS]
        last = [*recent.session_last, *mine][-NO_REPEAT:]
        return Recent(window, first, last, len(first))
