"""Win/loss/tie counts of the published vote set, per model pair and per (use case x capability) cell.

Counted by one GROUP BY over the published votes and cached per snapshot, so the model pages' win-rate tables
and heat maps cost nothing per request once a snapshot has been read. Ties count half a win in win rates,
as they do in the ratings.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import Connection, func, select

from arena.leaderboard.published import VoteSet

__all__ = ["Record", "Tallies", "TallyCache", "count_tallies"]

_OUTCOME = {"model_a": 0, "model_b": 1}


@dataclass
class Record:
    """Outcomes from one model's side."""

    wins: int = 0
    losses: int = 0
    ties: int = 0

    @property
    def votes(self) -> int:
        """All votes counted."""
        return self.wins + self.losses + self.ties

    @property
    def win_rate(self) -> float | None:
        """(wins + ties / 2) / votes, or None without votes."""
        return (self.wins + self.ties / 2) / self.votes if self.votes else None


@dataclass
class Tallies:
    """Per model: a record against each opponent and a record per taxonomy cell."""

    opponents: dict[str, dict[str, Record]] = field(default_factory=lambda: defaultdict(dict))
    cells: dict[str, dict[tuple[str, str], Record]] = field(default_factory=lambda: defaultdict(dict))
    votes: int = 0


def count_tallies(conn: Connection, votes: VoteSet) -> Tallies:
    """Count the published votes of one snapshot: one GROUP BY, the cohort rule per group, then numpy sums
    (with many models nearly every vote is its own group, so the per-group work must not be Python)."""
    sub = votes.query().order_by(None).subquery()
    cols = (sub.c.model_a, sub.c.model_b, sub.c.winner, sub.c.use_case, sub.c.capability, sub.c.methodology)
    groups = conn.execute(select(*cols, func.count()).group_by(*cols)).all()
    tallies = Tallies()
    if not groups:
        return tallies
    a_col, b_col, winner, uc, cap, meth, n = (list(c) for c in zip(*groups, strict=True))
    keep = votes.keep(a_col, b_col, meth)
    models = sorted(set(a_col) | set(b_col))
    index = {m: k for k, m in enumerate(models)}
    cells = sorted(set(zip(uc, cap, strict=True)))
    cell_index = {c: k for k, c in enumerate(cells)}
    a = np.fromiter((index[m] for m in a_col), np.int64, len(a_col))[keep]
    b = np.fromiter((index[m] for m in b_col), np.int64, len(b_col))[keep]
    c = np.fromiter((cell_index[x] for x in zip(uc, cap, strict=True)), np.int64, len(uc))[keep]
    outcome = np.fromiter((_OUTCOME.get(w, 2) for w in winner), np.int64, len(winner))[keep]
    count = np.asarray(n, dtype=np.int64)[keep]
    k = len(models)
    # outcome from a's side: 0 win, 1 loss, 2 tie; b's side swaps win and loss
    pair = np.zeros((k, k, 3), np.int64)
    np.add.at(pair, (a, b, outcome), count)
    np.add.at(pair, (b, a, np.array([1, 0, 2])[outcome]), count)
    cell = np.zeros((k, len(cells), 3), np.int64)
    np.add.at(cell, (a, c, outcome), count)
    np.add.at(cell, (b, c, np.array([1, 0, 2])[outcome]), count)
    for i, j in zip(*np.nonzero(pair.sum(axis=2)), strict=True):
        w, lo, t = (int(x) for x in pair[i, j])
        tallies.opponents[models[i]][models[j]] = Record(w, lo, t)
    for i, j in zip(*np.nonzero(cell.sum(axis=2)), strict=True):
        w, lo, t = (int(x) for x in cell[i, j])
        tallies.cells[models[i]][cells[j]] = Record(w, lo, t)
    tallies.votes = int(count.sum())
    return tallies


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
        tallies = count_tallies(conn, votes)
        with self._lock:
            self._items[votes] = tallies
            while len(self._items) > self.size:
                self._items.pop(next(iter(self._items)))
        return tallies
