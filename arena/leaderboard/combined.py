"""Combined boards: a leaderboard for any use case x capability cell and any set of style tags, fitted on
request from the counted votes and cached per snapshot.

The snapshot job publishes one board per use case and one per capability; a reader asking "best for text
rendering in marketing images" needs their intersection. Such a board is fitted when first asked for, from
the kept votes cast up to the newest snapshot of the modality (so it changes only with a new snapshot, and
the cache is keyed by that snapshot's id), with the snapshot's cohort rule, interval method, seed and
minimum-votes threshold. It is a slice board in every way but its selection: no cell balancing, the slice
anchor when it is on the board (else the model with the most votes, said in a note), and sandwich intervals
(a bootstrap would keep the reader waiting for seconds; the board says which method it used).

Key syntax (the `board` parameter): filters joined by commas, in the order use case, capability, styles:
`use_case=marketing_advertising,capability=text_rendering`, `capability=text_rendering,style=photorealistic`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import numpy as np
from sqlalchemy import Connection, select

from arena.db.tables import Prompt, Vote
from arena.leaderboard.boards import PublishedBoard, published_rows
from arena.leaderboard.differences import StoredDifferences
from arena.leaderboard.snapshots import stored_differences, stored_row
from arena.voting.kept_votes import counted_rows, grouped_kept_votes
from prompts_taxonomy import Taxonomy
from ratings import RatingsError
from ratings.board import fit_selected_rows
from ratings.cohorts import CohortRule

CACHE_SIZE = 64
#: Combined boards take sandwich intervals whatever the snapshot used: a board is fitted while a reader waits, and
#: 1,000 bootstrap refits of a 100-model board take seconds (bench/bench_leaderboard.py), the sandwich a fraction.
INTERVAL: Literal["sandwich"] = "sandwich"
AXES = ("use_case", "capability", "style")


@dataclass(frozen=True)
class Combined:
    """The filters of a combined board."""

    use_case: str | None = None
    capability: str | None = None
    styles: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The canonical board key (use case, capability, then styles in alphabetical order)."""
        parts = [f"use_case={self.use_case}"] if self.use_case else []
        parts += [f"capability={self.capability}"] if self.capability else []
        parts += [f"style={s}" for s in self.styles]
        return ",".join(parts)

    def label(self, taxonomy: Taxonomy) -> str:
        """The board's name for people, e.g. "Marketing x Text rendering x Photorealistic"."""
        names = []
        for axis, slug in [("use_case", self.use_case), ("capability", self.capability)] + [
            ("style", s) for s in self.styles
        ]:
            if slug:
                names.append(taxonomy.label(axis, slug).name if taxonomy.has(axis, slug) else slug)
        return " × ".join(names)


def parse_combined(key: str) -> Combined | None:
    """The filters of a combined board key, or None when `key` is not one (a single use case or capability
    is a published board, not a combined one). Raises ValueError on a malformed key."""
    if "," not in key and not key.startswith("style="):
        return None
    use_case = capability = None
    styles: list[str] = []
    for part in key.split(","):
        axis, sep, slug = part.partition("=")
        if not sep or axis not in AXES or not slug:
            raise ValueError(f"'{part}' is not use_case=<slug>, capability=<slug> or style=<slug>")
        if axis == "style":
            styles.append(slug)
        elif (use_case if axis == "use_case" else capability) is not None:
            raise ValueError(f"{axis} is given twice")
        elif axis == "use_case":
            use_case = slug
        else:
            capability = slug
    return Combined(use_case, capability, tuple(sorted(set(styles))))


def combined_key(use_case: str | None, capability: str | None, styles: list[str]) -> str | None:
    """The board key a reader's separate filters ask for: a published board when one filter of use case or
    capability alone is given, a combined key otherwise, None without filters."""
    combined = Combined(use_case or None, capability or None, tuple(sorted(set(s for s in styles if s))))
    if not combined.styles and not (combined.use_case and combined.capability):
        if combined.use_case:
            return f"use_case={combined.use_case}"
        if combined.capability:
            return f"capability={combined.capability}"
        return None
    return combined.key


def check_combined(taxonomy: Taxonomy, combined: Combined) -> str | None:
    """Why `combined` names something outside the taxonomy, or None when every slug is known."""
    for axis, slug in [("use_case", combined.use_case), ("capability", combined.capability)] + [
        ("style", s) for s in combined.styles
    ]:
        if slug and not taxonomy.has(axis, slug):
            return f"unknown {axis.replace('_', ' ')} '{slug}'"
    return None


@dataclass(frozen=True)
class CombinedResult:
    """A fitted combined board (as a PublishedBoard the pages already render), or why there is none."""

    board: PublishedBoard | None
    vote_count: int
    problem: str | None = None


def _votes(
    conn: Connection, modality: str, combined: Combined, until: datetime, include_simulated: bool
) -> list[Any]:
    clauses: list[Any] = [Vote.voted_at <= until]
    if combined.use_case:
        clauses.append(Vote.use_case == combined.use_case)
    if combined.capability:
        clauses.append(Vote.capability == combined.capability)
    if combined.styles:
        wanted = set(combined.styles)
        prompts = [
            pid
            for pid, styles in conn.execute(
                select(Prompt.id, Prompt.styles).where(Prompt.modality == modality)
            )
            if wanted <= set(styles or [])
        ]
        if not prompts:
            return []
        clauses.append(Vote.prompt_id.in_(prompts))  # type: ignore[attr-defined]
    # by prompt: votes on one prompt share its stored outputs, so the intervals resample prompts
    return grouped_kept_votes(
        conn, modality, include_simulated=include_simulated, where=clauses, by_prompt=True
    )


def fit_combined(
    conn: Connection, modality: str, combined: Combined, overall: PublishedBoard, slice_anchor: str | None
) -> CombinedResult:
    """Fit `combined` from the kept votes up to the `overall` board's snapshot, with its settings."""
    params = overall.params
    groups = _votes(conn, modality, combined, overall.created_at, bool(params.get("include_simulated")))
    vote_count = int(sum(g[-1] for g in groups))
    if not groups:
        return CombinedResult(None, 0, "no counted votes match these filters")
    rows = counted_rows(
        groups, CohortRule(overall.methodology_version, frozenset(params.get("current_cohort", [])))
    )
    if rows.n_votes == 0:
        return CombinedResult(None, vote_count, "no votes of the current cohort match these filters")
    per_model = np.bincount(np.concatenate([rows.i, rows.j]), np.concatenate([rows.count, rows.count]))
    totals = {rows.models[k]: int(n) for k, n in enumerate(per_model) if n > 0}
    notes = [f"fitted on request from {rows.n_votes:,} counted votes up to the snapshot of "
             f"{overall.created_at:%Y-%m-%d %H:%M} UTC"]  # fmt: skip
    anchor = slice_anchor if slice_anchor in totals else max(sorted(totals), key=lambda m: totals[m])
    if anchor != slice_anchor and slice_anchor:
        notes.append(
            f"the slice anchor {slice_anchor} has no votes here; {anchor} (most votes) reads the anchor rating"
        )
    try:
        board = fit_selected_rows(
            rows,
            np.ones(len(rows.count), dtype=bool),
            name=combined.key,
            anchor=anchor,
            anchor_rating=float(params.get("anchor_rating", 1000.0)),
            interval=INTERVAL,
            seed=int(params.get("seed", 0)),
            level=float(params.get("level", 0.95)),
            min_votes=int(params.get("min_votes", 0)),
        )
    except RatingsError as exc:
        return CombinedResult(None, rows.n_votes, str(exc))
    # as a snapshot stores and reads it: settled models ranked, the others listed after them unranked
    entries = published_rows([stored_row(r) for r in board.rows], params)
    published = PublishedBoard(
        id=overall.id,
        modality=modality,
        board=combined.key,
        created_at=overall.created_at,
        vote_count=rows.n_votes,
        filter_version=overall.filter_version,
        methodology_version=overall.methodology_version,
        params={
            **params,
            "anchor": anchor,
            "interval": INTERVAL,
            "n_bootstrap": 0,
            "cell_balanced": False,
            "combined": True,
            "excluded": [{"model": e.model, "reason": e.reason} for e in board.excluded],
            "notes": notes + list(board.notes),
        },
        rows=entries,
        differences=StoredDifferences.parse(stored_differences(board)),
    )
    return CombinedResult(published, rows.n_votes)


class CombinedCache:
    """Fitted combined boards by (snapshot id, modality, key): a new snapshot makes new entries (LRU)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._found: OrderedDict[tuple[int, str, str], CombinedResult] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self,
        conn: Connection,
        modality: str,
        combined: Combined,
        overall: PublishedBoard,
        slice_anchor: str | None,
    ) -> CombinedResult:
        """The cached board, fitted first when missing."""
        key = (overall.id, modality, combined.key)
        with self._lock:
            if key in self._found:
                self._found.move_to_end(key)
                return self._found[key]
        result = fit_combined(conn, modality, combined, overall, slice_anchor)
        with self._lock:
            self._found[key] = result
            while len(self._found) > self.size:
                self._found.popitem(last=False)
        return result
