"""Ratings over time: every stored snapshot of a board, as per-model series with intervals, and the points where
the way boards are computed changed (methodology version, filters, cohort, anchor, interval rule).

Snapshots are only ever inserted, so a board's history is a pure function of the newest snapshot id; the reader
caches it per (modality, board, newest id).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from arena.db.tables import RatingSnapshot

__all__ = ["BoardHistory", "Change", "HistoryPoint", "board_history"]


@dataclass(frozen=True)
class HistoryPoint:
    """One model's published row in one snapshot."""

    created_at: datetime
    rating: float
    ci_low: float | None
    ci_high: float | None
    rank: int
    votes: int


@dataclass(frozen=True)
class Change:
    """A snapshot whose ratings are not comparable with the one before it in some way, and why."""

    created_at: datetime
    what: str


@dataclass(frozen=True)
class BoardHistory:
    """Snapshot times, per-model series and change marks of one board, oldest first."""

    times: list[datetime] = field(default_factory=list)
    series: dict[str, list[HistoryPoint]] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)

    def for_models(self, models: Iterable[str]) -> BoardHistory:
        """The same history restricted to `models` (those with at least one point)."""
        wanted = [m for m in models if m in self.series]
        return BoardHistory(self.times, {m: self.series[m] for m in wanted}, self.changes)


def _finite(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _changes(before: Any, after: Any) -> list[str]:
    if before is None:
        return []
    out = []
    if before.methodology_version != after.methodology_version:
        out.append(f"methodology {before.methodology_version} → {after.methodology_version}")
    if before.filter_version != after.filter_version:
        out.append("vote filters changed")
    old, new = before.params or {}, after.params or {}
    if sorted(old.get("current_cohort", ())) != sorted(new.get("current_cohort", ())):
        out.append("current cohort changed")
    if old.get("anchor") != new.get("anchor") or old.get("anchor_rating") != new.get("anchor_rating"):
        out.append(f"anchor {old.get('anchor')} → {new.get('anchor')}")
    if old.get("uncertainty") != new.get("uncertainty") or old.get("interval") != new.get("interval"):
        out.append("interval rule changed")
    return out


def board_history(conn: Connection, modality: str, board: str) -> BoardHistory:
    """Every snapshot of one board, oldest first."""
    records = conn.execute(
        select(  # not the stored differences: the history needs only the rows
            RatingSnapshot.created_at,
            RatingSnapshot.methodology_version,
            RatingSnapshot.filter_version,
            RatingSnapshot.params,
            RatingSnapshot.rows,
        )
        .where(RatingSnapshot.modality == modality, RatingSnapshot.board == board)
        .order_by(RatingSnapshot.created_at, RatingSnapshot.id)  # type: ignore[arg-type]
    ).all()
    history = BoardHistory()
    previous = None
    for record in records:
        when = record.created_at
        history.times.append(when)
        history.changes.extend(Change(when, what) for what in _changes(previous, record))
        for row in record.rows or []:
            history.series.setdefault(str(row["model"]), []).append(
                HistoryPoint(
                    created_at=when,
                    rating=float(row["rating"]),
                    ci_low=_finite(row.get("ci_low")),
                    ci_high=_finite(row.get("ci_high")),
                    rank=int(row.get("rank", 0)),
                    votes=int(row.get("votes", 0)),
                )
            )
        previous = record
    return history
