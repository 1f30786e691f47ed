"""SQLite: what the variety rules read, kept in memory and caught up from the database at each serve.

`queries.SERVE_READ` re-counted the modality's last WINDOW - 1 matchups and re-read the session's first and last
pairs and every vote it cast, on every serve: about 0.3 ms of SQLite's CPU per matchup, a third of the vote
path's SQL (bench/bench_votepath.py --floor). Here a process keeps, per modality, the newest WINDOW - 1 matchups
(by `served_at`, as the SQL orders them) with their pair counts, and per session its first FIRST_MATCHUPS and
last NO_REPEAT pairs and the outputs it voted on. Each serve first reads what was committed since the last one,
by any process: the matchups after the last `rowid` seen and the votes after the last vote id (one small
statement, two range scans on the tables' own b-trees).

That is exact because SQLite commits one writer at a time and gives a new row the table's largest rowid plus
one while it holds the write lock, so rows become visible in rowid order: a row with a rowid at or below the
last one read was visible at that read. Matchups are never deleted. A session or modality not in memory yet
is read whole, bounded by the rowids already caught up to, so no row is counted twice. If the database went
back (a restored file: the largest rowid below the one caught up to) or a catch-up finds more than
`MAX_CATCH_UP` rows (a process idle while others served), everything is dropped and read again.

PostgreSQL keeps `SERVE_READ`: its row ids are drawn from sequences before commit, so they do not tell what a
reader has already seen.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from arena.voting.matchmaking import FIRST_MATCHUPS, NO_REPEAT, WINDOW, Pair, Recent, pair_key
from arena.voting.raw import RawConnection

__all__ = ["MAX_CATCH_UP", "ServedHistory"]

#: More new rows than this in one catch-up: drop what is kept and read it again (cheaper than replaying).
MAX_CATCH_UP = 5_000
#: Sessions kept in memory (least recently served dropped first; a dropped one is read again when it returns).
MAX_SESSIONS = 20_000

Entry = tuple[str, int, Pair]  # (served_at as stored, rowid, pair): ordered as ORDER BY served_at

CATCH_UP = f"""
SELECT * FROM (SELECT 0, rowid, session_id, modality, left_model, right_model, served_at FROM matchups
               WHERE rowid > ? ORDER BY rowid LIMIT {MAX_CATCH_UP + 1})
UNION ALL
SELECT * FROM (SELECT 1, id, session_id, NULL, left_output_id, right_output_id, NULL FROM votes
               WHERE id > ? ORDER BY id LIMIT {MAX_CATCH_UP + 1})
UNION ALL
SELECT 2, (SELECT max(rowid) FROM matchups), (SELECT max(id) FROM votes), NULL, NULL, NULL, NULL
"""
WINDOW_ROWS = (
    "SELECT served_at, rowid, left_model, right_model FROM matchups WHERE modality = ? AND rowid <= ? "
    f"ORDER BY served_at DESC LIMIT {WINDOW - 1}"
)
SESSION_ROWS = (
    "SELECT * FROM (SELECT served_at, rowid, left_model, right_model FROM matchups "
    f"WHERE modality = ? AND session_id = ? AND rowid <= ? ORDER BY served_at LIMIT {FIRST_MATCHUPS}) "
    "UNION ALL "
    "SELECT * FROM (SELECT served_at, rowid, left_model, right_model FROM matchups "
    f"WHERE modality = ? AND session_id = ? AND rowid <= ? ORDER BY served_at DESC LIMIT {NO_REPEAT})"
)
SEEN_ROWS = "SELECT left_output_id, right_output_id FROM votes WHERE session_id = ? AND id <= ?"


@dataclass
class _Window:
    """One modality's newest WINDOW - 1 matchups, oldest first, and their pair counts."""

    entries: list[Entry] = field(default_factory=list)
    counts: dict[Pair, int] = field(default_factory=dict)

    def add(self, entry: Entry) -> None:
        if len(self.entries) >= WINDOW - 1:
            if entry <= self.entries[0]:
                return  # older than everything kept: not among the newest
            _, _, gone = self.entries.pop(0)
            left = self.counts[gone] - 1
            if left:
                self.counts[gone] = left
            else:
                del self.counts[gone]
        bisect.insort(self.entries, entry)
        pair = entry[2]
        self.counts[pair] = self.counts.get(pair, 0) + 1


@dataclass
class _Session:
    """One session's first FIRST_MATCHUPS and last NO_REPEAT matchups of one modality, oldest first."""

    first: list[Entry] = field(default_factory=list)
    last: list[Entry] = field(default_factory=list)

    def add(self, entry: Entry) -> None:
        if len(self.first) < FIRST_MATCHUPS or entry < self.first[-1]:
            bisect.insort(self.first, entry)
            del self.first[FIRST_MATCHUPS:]
        bisect.insort(self.last, entry)
        del self.last[:-NO_REPEAT]

    def recent(self, window: dict[Pair, int]) -> Recent:
        first = [pair for _, _, pair in self.first]
        if len(first) < FIRST_MATCHUPS:
            return Recent(window, first, first[-NO_REPEAT:], len(first))
        return Recent(window, first, [pair for _, _, pair in self.last], len(first))


class ServedHistory:
    """The `Recent` view and voted-on outputs of the variety rules, from memory (see the module). Not locked
    itself: the service calls it under its serve lock."""

    def __init__(self, max_sessions: int = MAX_SESSIONS) -> None:
        self.max_sessions = max_sessions
        self.resets = 0  # times everything was dropped and read again (tests and the bench read it)
        self._clear()

    def _clear(self) -> None:
        self._matchup_rowid: int | None = None  # None: not caught up yet
        self._vote_id = 0
        self._windows: dict[str, _Window] = {}
        self._sessions: OrderedDict[tuple[str, str], _Session] = OrderedDict()
        self._seen: OrderedDict[str, set[int]] = OrderedDict()

    def recent(self, conn: RawConnection, modality: str, session_id: str) -> tuple[Recent, set[int]]:
        """What `queries.recent_and_seen(SERVE_READ rows)` returns, as of now, for any process's commits."""
        self._catch_up(conn)
        window = self._windows.get(modality)
        if window is None:
            window = self._windows[modality] = self._load_window(conn, modality)
        key = (modality, session_id)
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = self._load_session(conn, modality, session_id)
            if len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(key)
        seen = self._seen.get(session_id)
        if seen is None:
            seen = self._seen[session_id] = self._load_seen(conn, session_id)
            if len(self._seen) > self.max_sessions:
                self._seen.popitem(last=False)
        else:
            self._seen.move_to_end(session_id)
        return session.recent(window.counts), seen

    def _catch_up(self, conn: RawConnection) -> None:
        if self._matchup_rowid is None:
            top = conn.sql("SELECT (SELECT max(rowid) FROM matchups), (SELECT max(id) FROM votes)", ())
            self._matchup_rowid, self._vote_id = top[0][0] or 0, top[0][1] or 0
            return
        rows = conn.sql(CATCH_UP, (self._matchup_rowid, self._vote_id))
        new = [row for row in rows if row[0] != 2]
        top_matchup, top_vote = next((row[1] or 0, row[2] or 0) for row in rows if row[0] == 2)
        if top_matchup < self._matchup_rowid or top_vote < self._vote_id or len(new) > MAX_CATCH_UP:
            self.resets += 1
            self._clear()
            self._matchup_rowid, self._vote_id = top_matchup, top_vote
            return
        new.sort(key=lambda row: (row[0], row[1]))  # each table in commit (rowid) order
        for part, rowid, session_id, modality, a, b, served_at in new:
            if part == 0:
                self._matchup_rowid = rowid
                entry = (served_at, rowid, pair_key(a, b))
                window = self._windows.get(modality)
                if window is not None:
                    window.add(entry)
                session = self._sessions.get((modality, session_id))
                if session is not None:
                    session.add(entry)
            else:
                self._vote_id = rowid
                seen = self._seen.get(session_id)
                if seen is not None:
                    seen.update(i for i in (a, b) if i is not None)

    def _load_window(self, conn: RawConnection, modality: str) -> _Window:
        window = _Window()
        for served_at, rowid, a, b in reversed(conn.sql(WINDOW_ROWS, (modality, self._matchup_rowid))):
            window.add((served_at, rowid, pair_key(a, b)))
        return window

    def _load_session(self, conn: RawConnection, modality: str, session_id: str) -> _Session:
        session = _Session()
        bound = self._matchup_rowid
        rows = conn.sql(SESSION_ROWS, (modality, session_id, bound, modality, session_id, bound))
        for served_at, rowid, a, b in {tuple(r) for r in rows}:  # the two parts overlap for short sessions
            session.add((served_at, rowid, pair_key(a, b)))
        return session

    def _load_seen(self, conn: RawConnection, session_id: str) -> set[int]:
        rows: list[Any] = conn.sql(SEEN_ROWS, (session_id, self._vote_id))
        return {i for row in rows for i in row if i is not None}
