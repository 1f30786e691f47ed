"""The rows of a leaderboard view: a published board joined with model facts, prices and generation times.

Modified endpoints are left out unless asked for. Ranks are re-read among the settled rows shown: rank = 1 + the
number of shown settled models whose lead over this one is significant (the published pairwise relation, `above`),
so hiding modified endpoints never leaves gaps; with every row shown they equal the published ranks. Boards
published before ranks came from pairwise differences have no `above`; for them the stored intervals are compared.
Models not yet rated (too few votes or an unbounded interval, `arena.leaderboard.standing`) have no rank and are
listed after every rated model, whatever the sort.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from arena.leaderboard.boards import BoardEntry, ModelInfo, PublishedBoard
from arena.leaderboard.latency import LatencyStats
from arena.leaderboard.standing import ranks_among

__all__ = ["SORT_KEYS", "LeaderboardRow", "SortKey", "build_rows", "sort_rows"]

SortKey = Literal["rank", "model", "organization", "rating", "votes", "price", "time", "kind", "release"]
SORT_KEYS: tuple[str, ...] = (
    "rank",
    "model",
    "organization",
    "rating",
    "votes",
    "price",
    "time",
    "kind",
    "release",
)


@dataclass(frozen=True)
class LeaderboardRow:
    """One model on a leaderboard view."""

    rank: int | None  # None: not yet rated
    published_rank: int | None
    model: str
    display_name: str
    organization: str
    rating: float
    ci_low: float | None
    ci_high: float | None
    above: tuple[str, ...] | None  # shown models whose lead over this one is significant
    votes: int
    wins: int
    losses: int
    ties: int
    provisional: bool
    price_per_1000: float | None
    median_s: float | None
    p05_s: float | None
    p95_s: float | None
    latency_samples: int
    endpoint_kind: str
    cohort: str
    release_date: str | None
    timing_collecting: bool = False  # timed, but fewer samples than the minimum: no time shown yet
    timing_min_samples: int = 0
    p_best: float | None = None  # published certainty figures, over every model on the board
    p_top3: float | None = None
    settled_below: bool | None = None
    votes_to_settle: float | None = None
    rated: bool = True
    unrated_reason: str | None = None  # why not rated yet ("3 of 300 votes", "interval unbounded")

    @property
    def modified(self) -> bool:
        """Whether the endpoint is altered from the native model (distilled, quantized, ...)."""
        return self.endpoint_kind == "modified"

    @property
    def legacy(self) -> bool:
        """Whether the model is in the legacy cohort (rated with all its votes)."""
        return self.cohort == "legacy"


def _ranks(entries: list[BoardEntry]) -> list[int | None]:
    """1 + the number of shown rated rows above each rated row (the pairwise relation, or interval overlap on old
    boards); None for the rows not yet rated."""
    rated = [e for e in entries if e.rated]
    ranks = dict(zip((e.model for e in rated), ranks_among(rated), strict=True))
    return [ranks.get(e.model) for e in entries]


def build_rows(
    board: PublishedBoard,
    models: Mapping[str, ModelInfo],
    latency: Mapping[str, LatencyStats],
    *,
    include_modified: bool,
    min_timing_samples: int = 0,
) -> list[LeaderboardRow]:
    """The view's rows in published order (by rating), ranks recomputed among the rows shown. A model's
    generation time is listed only from `min_timing_samples` successful samples in the window (the
    methodology lists new endpoints once a distribution has been built); before that it is "collecting"."""
    shown = [
        e
        for e in board.rows
        if include_modified
        or (models[e.model].endpoint_kind if e.model in models else "standard") != "modified"
    ]
    ranks = _ranks(shown)
    names = {e.model for e in shown}
    rows: list[LeaderboardRow] = []
    for entry, rank in zip(shown, ranks, strict=True):
        info = models.get(entry.model)
        stats = latency.get(entry.model)
        collecting = min_timing_samples > 0 and (stats is None or stats.samples < min_timing_samples)
        samples = stats.samples if stats else 0
        if collecting:
            stats = None
        rows.append(
            LeaderboardRow(
                rank=rank,
                published_rank=entry.rank,
                model=entry.model,
                display_name=info.display_name if info else entry.model,
                organization=info.organization if info else "",
                rating=entry.rating,
                ci_low=entry.ci_low,
                ci_high=entry.ci_high,
                above=None if entry.above is None else tuple(m for m in entry.above if m in names),
                votes=entry.votes,
                wins=entry.wins,
                losses=entry.losses,
                ties=entry.ties,
                provisional=entry.provisional,
                price_per_1000=info.price_per_1000 if info else None,
                median_s=stats.median if stats else None,
                p05_s=stats.p05 if stats else None,
                p95_s=stats.p95 if stats else None,
                latency_samples=samples,
                endpoint_kind=info.endpoint_kind if info else "standard",
                cohort=info.cohort if info else "current",
                release_date=info.release_date if info else None,
                timing_collecting=collecting,
                timing_min_samples=min_timing_samples,
                p_best=entry.p_best,
                p_top3=entry.p_top3,
                settled_below=entry.settled_below,
                votes_to_settle=entry.votes_to_settle,
                rated=entry.rated,
                unrated_reason=entry.unrated_reason,
            )
        )
    return rows


def _key(row: LeaderboardRow, key: str) -> tuple[int, object]:
    """Sort key with missing values last whatever the direction (the flag is flipped for descending)."""
    value: object = {
        "rank": row.rank,
        "model": row.display_name.lower(),
        "organization": row.organization.lower(),
        "rating": row.rating,
        "votes": row.votes,
        "price": row.price_per_1000,
        "time": row.median_s,
        "kind": row.endpoint_kind,
        "release": row.release_date,
    }[key]
    return (0, value) if value is not None else (1, 0)


def sort_rows(
    rows: list[LeaderboardRow], key: str = "rank", descending: bool = False
) -> list[LeaderboardRow]:
    """Rows ordered by a column, the rated ones first and the not yet rated ones after them (each group sorted);
    ties keep the published order (by rating). Missing values go last within a group."""
    out: list[LeaderboardRow] = []
    for group in ([r for r in rows if r.rated], [r for r in rows if not r.rated]):
        present = [r for r in group if _key(r, key)[0] == 0]
        absent = [r for r in group if _key(r, key)[0] == 1]
        present.sort(key=lambda r: _key(r, key)[1], reverse=descending)  # type: ignore[arg-type,return-value]
        out += present + absent
    return out
