"""Win/loss/tie counts of the published vote set, per model pair and per (use case x capability) cell.

Stored with each snapshot (from the grouped votes the snapshot counted), so a model page reads a few kilobytes
instead of counting votes; snapshots stored without them (older ones) are counted by one GROUP BY over the
published votes. Either way they are cached per snapshot. Ties count half a win in win rates,
as they do in the ratings.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from sqlalchemy import Connection, func, select

from arena.leaderboard.snapshot_counts import Record, Tallies, arrays, stored_tallies, tallies_of

if TYPE_CHECKING:
    from arena.leaderboard.published_votes import VoteSet

__all__ = ["Record", "Tallies", "TallyCache", "count_tallies"]


def count_tallies(conn: Connection, votes: VoteSet) -> Tallies:
    """Count the published votes of one snapshot: one GROUP BY, the cohort rule per group, then numpy sums
    (the slow path, for snapshots stored without their tallies)."""
    sub = votes.query().order_by(None).subquery()
    cols = (sub.c.model_a, sub.c.model_b, sub.c.winner, sub.c.use_case, sub.c.capability, sub.c.methodology)
    groups = conn.execute(select(*cols, func.count()).group_by(*cols)).all()
    if not groups:
        return Tallies()
    a_col, b_col, winner, uc, cap, meth, n = (list(c) for c in zip(*groups, strict=True))
    return tallies_of(*arrays(a_col, b_col, winner, uc, cap, n, votes.keep(a_col, b_col, meth)))


class TallyCache:
    """Tallies per vote set (one entry per modality and snapshot; old ones dropped)."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._items: dict[VoteSet, Tallies] = {}
        self._lock = threading.Lock()

    def get(self, conn: Connection, votes: VoteSet) -> Tallies:
        """The tallies of `votes`, counted on first use."""
        with self._lock:
            found = self._items.get(votes)
        if found is not None:
            return found
        tallies = stored_tallies(conn, votes.modality, votes.until) or count_tallies(conn, votes)
        with self._lock:
            self._items[votes] = tallies
            while len(self._items) > self.size:
                self._items.pop(next(iter(self._items)))
        return tallies
