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
    """Picked, not yet committed matchups by id. Not locked itself: callers hold the service's serve lock."""

    def __init__(self) -> None:
        self._picked: dict[str, tuple[str, str, Pair]] = {}

    def __len__(self) -> int:
        return len(self._picked)

    def add(self, matchup_id: str, modality: str, session_id: str, pair: Pair) -> None:
        """Note a picked matchup (before its insert)."""
        self._picked[matchup_id] = (modality, session_id, pair)

    def discard(self, matchup_id: str) -> None:
        """Forget a matchup once its insert committed (or failed)."""
        self._picked.pop(matchup_id, None)

    def merged(self, recent: Recent, modality: str, session_id: str) -> Recent:
        """`recent` (read from the database) with the noted matchups of `modality` added: to the window counts,
        and, for `session_id`'s own, to its first and last pairs (they are newer than any it has stored)."""
        picked = [(session, pair) for mod, session, pair in self._picked.values() if mod == modality]
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
