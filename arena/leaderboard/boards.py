"""Reading what the snapshot job published: the latest stored board per (modality, board) and the models.

Pages and the API only read; nothing here fits. Snapshot rows are immutable once stored, so a parsed board is
cached by its id and a page request costs one indexed id look-up per board.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select

from arena.db.tables import Model, RatingSnapshot
from arena.leaderboard.differences import StoredDifferences
from arena.leaderboard.standing import settle_rows
from prompts_taxonomy import Taxonomy

__all__ = [
    "ModelInfo",
    "PublishedBoard",
    "SnapshotCache",
    "board_keys",
    "board_label",
    "load_models",
    "published_rows",
]


def _number(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class BoardEntry:
    """One model's published row on one board (intervals are None when unbounded).

    ``above``: the models whose lead over this one is significant (its rank is 1 + their number); None on
    boards published before ranks came from pairwise differences. ``rated``: settled (bounded interval and at
    least the snapshot's min_votes votes), ranked among the settled models only; an unrated model has rank None
    and ``unrated_reason`` (see `arena.leaderboard.standing`).
    """

    model: str
    rating: float
    ci_low: float | None
    ci_high: float | None
    rank: int | None
    votes: int
    wins: int
    losses: int
    ties: int
    provisional: bool
    above: tuple[str, ...] | None = None
    p_best: float | None = None  # certainty figures (ratings.certainty); None on older boards
    p_top3: float | None = None
    settled_below: bool | None = None  # pair with the next model down; None on the last row / older boards
    votes_to_settle: float | None = None  # None when unknown or never (equal ratings)
    rated: bool = True
    unrated_reason: str | None = None  # "3 of 300 votes", "interval unbounded"


@dataclass(frozen=True)
class PublishedBoard:
    """One stored board with everything needed to show it and to recompute it."""

    id: int
    modality: str
    board: str
    created_at: datetime
    vote_count: int
    filter_version: str
    methodology_version: str
    params: dict[str, Any]
    rows: tuple[BoardEntry, ...]
    by_model: dict[str, BoardEntry] = field(default_factory=dict, compare=False, repr=False)
    # standard errors of every pairwise difference (None on boards published before they were stored)
    differences: StoredDifferences | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.by_model.update({r.model: r for r in self.rows})

    @property
    def rating_range(self) -> tuple[float, float]:
        """Lowest and highest rating on the board."""
        ratings = [r.rating for r in self.rows]
        return (min(ratings), max(ratings)) if ratings else (0.0, 0.0)

    def ratings(self) -> dict[str, float]:
        """``{model: published rating}``."""
        return {r.model: r.rating for r in self.rows}

    def entry(self, model: str) -> BoardEntry | None:
        """The row of `model`, or None when it is not on this board."""
        return self.by_model.get(model)


@dataclass(frozen=True)
class ModelInfo:
    """What the leaderboard shows about a registered model (never its adapter parameters)."""

    slug: str
    display_name: str
    organization: str
    modality: str
    endpoint_kind: str
    cohort: str
    price_per_image_usd: float | None
    release_date: str | None
    anchor: bool
    active: bool

    @property
    def price_per_1000(self) -> float | None:
        """Price per 1,000 images in USD (the provider's price per image x 1000)."""
        return None if self.price_per_image_usd is None else round(self.price_per_image_usd * 1000, 6)


def board_keys(taxonomy: Taxonomy) -> list[str]:
    """Every board of a modality: overall, one per use case, one per capability (taxonomy order)."""
    return [
        "overall",
        *(f"use_case={u.slug}" for u in taxonomy.use_cases),
        *(f"capability={c.slug}" for c in taxonomy.capabilities),
    ]


def board_label(taxonomy: Taxonomy, key: str) -> str:
    """A board's name for people: "Overall", "Use case: Consumer", "Capability: Layout"."""
    if key == "overall":
        return "Overall"
    axis, _, slug = key.partition("=")
    name = taxonomy.label(axis, slug).name if taxonomy.has(axis, slug) else slug
    return f"{'Use case' if axis == 'use_case' else 'Capability'}: {name}"


def load_models(conn: Connection) -> dict[str, ModelInfo]:
    """Every registered model by slug."""
    rows = conn.execute(
        select(
            Model.slug,
            Model.display_name,
            Model.organization,
            Model.modality,
            Model.endpoint_kind,
            Model.cohort,
            Model.price_per_image_usd,
            Model.release_date,
            Model.anchor,
            Model.active,
        )
    ).all()
    return {r.slug: ModelInfo(*r) for r in rows}


def board_entry(r: dict[str, Any]) -> BoardEntry:
    """A stored board row (as `arena.leaderboard.snapshots` writes it) as a BoardEntry."""
    return BoardEntry(
        model=str(r["model"]),
        rating=float(r["rating"]),
        ci_low=_number(r.get("ci_low")),
        ci_high=_number(r.get("ci_high")),
        rank=int(r.get("rank", 0)),
        votes=int(r.get("votes", 0)),
        wins=int(r.get("wins", 0)),
        losses=int(r.get("losses", 0)),
        ties=int(r.get("ties", 0)),
        provisional=bool(r.get("provisional", False)),
        above=tuple(str(m) for m in r["above"]) if r.get("above") is not None else None,
        p_best=_number(r.get("p_best")),
        p_top3=_number(r.get("p_top3")),
        settled_below=r.get("settled_below"),
        votes_to_settle=_number(r.get("votes_to_settle")),
    )


def published_rows(rows: list[dict[str, Any]], params: dict[str, Any]) -> tuple[BoardEntry, ...]:
    """Stored rows as the board publishes them: settled models ranked among themselves, then the not yet rated
    ones (`arena.leaderboard.standing`)."""
    return settle_rows((board_entry(r) for r in rows), int(params.get("min_votes") or 0))


def _board(record: Any) -> PublishedBoard:
    rows = published_rows(list(record.rows or []), dict(record.params or {}))
    return PublishedBoard(
        id=record.id,
        modality=record.modality,
        board=record.board,
        created_at=record.created_at,
        vote_count=record.vote_count,
        filter_version=record.filter_version,
        methodology_version=record.methodology_version,
        params=dict(record.params or {}),
        rows=rows,
        differences=StoredDifferences.parse(getattr(record, "differences", None)),
    )


class SnapshotCache:
    """Latest published boards, parsed once per stored snapshot row (bounded LRU by id)."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._boards: OrderedDict[int, PublishedBoard] = OrderedDict()
        self._ids: dict[tuple[str, tuple[str, ...]], tuple[int, dict[str, int]]] = {}
        self._lock = threading.Lock()

    def latest_ids(self, conn: Connection, modality: str, keys: list[str]) -> dict[str, int]:
        """Id of the latest snapshot of each board that has one.

        Snapshots are only ever inserted, so while the largest id is unchanged the answer is too: one
        primary-key look-up per request, and one indexed look-up per board after a new snapshot.
        """
        newest = conn.execute(select(func.max(RatingSnapshot.id))).scalar() or 0
        cache_key = (modality, tuple(keys))
        with self._lock:
            cached = self._ids.get(cache_key)
        if cached is not None and cached[0] == newest:
            return cached[1]
        found: dict[str, int] = {}
        for key in keys:
            row = conn.execute(
                select(RatingSnapshot.id)
                .where(RatingSnapshot.modality == modality, RatingSnapshot.board == key)
                .order_by(RatingSnapshot.created_at.desc(), RatingSnapshot.id.desc())  # type: ignore[union-attr]
                .limit(1)
            ).first()
            if row is not None:
                found[key] = int(row[0])
        with self._lock:
            self._ids[cache_key] = (newest, found)
        return found

    def ids_at(self, conn: Connection, modality: str, keys: list[str], at: datetime) -> dict[str, int]:
        """Id of the last snapshot of each board taken at or before `at` (history: every snapshot is kept)."""
        found: dict[str, int] = {}
        for key in keys:
            row = conn.execute(
                select(RatingSnapshot.id)
                .where(
                    RatingSnapshot.modality == modality,
                    RatingSnapshot.board == key,
                    RatingSnapshot.created_at <= at,  # type: ignore[operator]
                )
                .order_by(RatingSnapshot.created_at.desc(), RatingSnapshot.id.desc())  # type: ignore[union-attr]
                .limit(1)
            ).first()
            if row is not None:
                found[key] = int(row[0])
        return found

    def boards(
        self, conn: Connection, modality: str, keys: list[str], at: datetime | None = None
    ) -> dict[str, PublishedBoard]:
        """The latest published board for each of `keys` that has one (as of `at`, when given)."""
        ids = self.latest_ids(conn, modality, keys) if at is None else self.ids_at(conn, modality, keys, at)
        with self._lock:
            have = {i: self._boards[i] for i in ids.values() if i in self._boards}
            for i in have:
                self._boards.move_to_end(i)
        missing = [i for i in ids.values() if i not in have]
        if missing:
            records = conn.execute(select(RatingSnapshot).where(RatingSnapshot.id.in_(missing))).all()  # type: ignore[union-attr]
            parsed = {r.id: _board(r) for r in records}
            have.update(parsed)
            with self._lock:
                self._boards.update(parsed)
                while len(self._boards) > self.size:
                    self._boards.popitem(last=False)
        return {key: have[i] for key, i in ids.items() if i in have}

    def board(self, conn: Connection, modality: str, key: str) -> PublishedBoard | None:
        """The latest published board `key` of `modality`, or None."""
        return self.boards(conn, modality, [key]).get(key)
