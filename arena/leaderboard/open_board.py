"""The open-prompt board: votes on voters' own prompts, fitted per modality, never pooled with the curated boards.

Same Bradley-Terry fit, anchor, interval method, bootstrap rounds and not-yet-rated rule as the curated
snapshots (`arena.leaderboard.snapshots`), on the `open_votes` table only. Each open battle generates its own
two images, so no two votes share an output: the cluster is the battle, and the cluster-robust intervals
equal vote-level ones (no re-vote clustering to correct). Slices are the tagger's use case and capability
(`arena.prompts.open_tags`); votes on untagged battles count on the overall board only. The overall board is
not cell-balanced: open prompts are what voters ask, not a designed pool. Fitted on request and kept in
process memory until the open votes change.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections import Counter
from typing import Any

import numpy as np
from sqlalchemy import Connection, and_, exists, false, func, select

from arena.db.tables import OpenBattle, OpenVote, OpenVoteVerdict
from arena.leaderboard.standing import settle_rows
from arena.settings import Settings
from ratings import RatingsError, Votes, count_votes
from ratings.board import fit_selected_rows

__all__ = ["OPEN_BOARD_KINDS", "open_board", "open_board_key", "open_vote_columns"]

OPEN_BOARD_KINDS = ("use_case", "capability")
_CACHE: dict[tuple[Any, ...], dict[str, Any]] = {}
_LOCK = threading.Lock()


def open_board_key(board: str) -> tuple[str, str] | None:
    """("overall", "") or (axis, slug) of a board name ("overall", "use_case=x", "capability=y"); None if bad."""
    if board == "overall":
        return ("overall", "")
    axis, sep, slug = board.partition("=")
    return (axis, slug) if sep and axis in OPEN_BOARD_KINDS and slug else None


def _kept(modality: str) -> list[Any]:
    filtered = exists().where(and_(OpenVoteVerdict.vote_id == OpenVote.id, OpenVoteVerdict.kept == false()))
    return [OpenVote.modality == modality, ~filtered]


def open_vote_columns(conn: Connection, modality: str) -> list[Any]:
    """Kept open votes of `modality`: (battle id, model a, model b, winner, use case, capability), oldest first."""
    query = (
        select(
            OpenVote.battle_id,
            OpenVote.model_a,
            OpenVote.model_b,
            OpenVote.winner,
            OpenBattle.use_case,
            OpenBattle.capability,
        )
        .join(OpenBattle, OpenBattle.id == OpenVote.battle_id)
        .where(*_kept(modality))
        .order_by(OpenVote.id)
    )
    return list(conn.execute(query).all())


def _version(conn: Connection, modality: str) -> tuple[Any, ...]:
    """What changes whenever the board's inputs do: vote count and last id, verdicts, tagged battles."""
    votes = conn.execute(
        select(func.count(), func.max(OpenVote.id)).where(OpenVote.modality == modality)
    ).one()
    verdicts = conn.execute(select(func.count()).select_from(OpenVoteVerdict)).scalar_one()
    tagged = conn.execute(
        select(func.count(), func.max(OpenBattle.tagged_at)).where(
            OpenBattle.modality == modality,
            OpenBattle.tagged_at.is_not(None),  # type: ignore[union-attr]
        )
    ).one()
    return (votes[0], votes[1], verdicts, tagged[0], str(tagged[1]))


def _number(value: Any) -> float | None:
    number = float(value)
    return round(number, 1) if math.isfinite(number) else None


def _fit(rows: list[Any], mask: np.ndarray, name: str, settings: Settings) -> dict[str, Any]:
    votes = Votes.from_columns(
        [r[1] for r in rows],
        [r[2] for r in rows],
        [r[3] for r in rows],
        use_case=[r[4] for r in rows],
        capability=[r[5] for r in rows],
        cluster=[r[0] for r in rows],
    )
    counted = count_votes(votes.select(mask))
    models = set(counted.models)
    anchor = settings.overall_anchor if name == "overall" else settings.slice_anchor
    if (
        anchor not in models
    ):  # the configured anchor may not be in open battles: the most-voted model reads 1000
        tally = Counter([r[1] for r in rows] + [r[2] for r in rows])
        anchor = max(sorted(models), key=lambda m: tally[m])
    board = fit_selected_rows(
        counted,
        np.ones(len(counted.count), dtype=bool),
        name=f"open:{name}",
        anchor=anchor,
        interval=settings.interval_method,
        n_bootstrap=settings.bootstrap_rounds,
        min_votes=settings.min_votes,
    )
    table = [
        _Row(
            model=r.model,
            rating=_number(r.rating),
            ci_low=_number(r.ci_low),
            ci_high=_number(r.ci_high),
            rank=r.rank,
            rated=True,
            unrated_reason=None,
            votes=int(r.votes),
            wins=int(r.wins),
            losses=int(r.losses),
            ties=int(r.ties),
            above=tuple(r.above),
        )
        for r in board.rows
    ]
    settled = settle_rows(table, settings.min_votes)
    return {
        "anchor": board.anchor,
        "interval": board.interval,
        "level": board.level,
        "n_bootstrap": board.n_bootstrap,
        "clusters": board.n_clusters,
        "excluded": [dataclasses.asdict(e) for e in board.excluded],
        "rows": [{k: v for k, v in dataclasses.asdict(r).items() if k != "above"} for r in settled],
    }


@dataclasses.dataclass(frozen=True)
class _Row:
    model: str
    rating: float | None
    ci_low: float | None
    ci_high: float | None
    rank: int | None
    rated: bool
    unrated_reason: str | None
    votes: int
    wins: int
    losses: int
    ties: int
    above: tuple[str, ...]


def open_board(conn: Connection, settings: Settings, modality: str, board: str = "overall") -> dict[str, Any]:
    """The open board of `modality` (`board`: "overall", "use_case=SLUG" or "capability=SLUG") with its
    available slices; raises ValueError on a malformed board name. A board that cannot be fitted yet (no or too
    few votes, one model) has no rows and says why in `note`."""
    key = open_board_key(board)
    if key is None:
        raise ValueError("board must be overall, use_case=SLUG or capability=SLUG")
    cache_key = (
        modality,
        board,
        settings.interval_method,
        settings.bootstrap_rounds,
        settings.min_votes,
        settings.overall_anchor,
        settings.slice_anchor,
        _version(conn, modality),
    )
    with _LOCK:
        if cache_key in _CACHE:
            return _CACHE[cache_key]
    rows = open_vote_columns(conn, modality)
    slices = {
        axis: dict(
            sorted(Counter(r[4 if axis == "use_case" else 5] for r in rows if r[4] is not None).items())
        )
        for axis in OPEN_BOARD_KINDS
    }
    axis, slug = key
    if axis == "overall":
        mask = np.ones(len(rows), dtype=bool)
    else:
        mask = np.array([r[4 if axis == "use_case" else 5] == slug for r in rows], dtype=bool)
    out: dict[str, Any] = {
        "modality": modality,
        "board": board,
        "pooled_with_curated": False,
        "vote_count": int(mask.sum()),
        "untagged_votes": sum(1 for r in rows if r[4] is None),
        "min_votes": settings.min_votes,
        "slices": slices,
        "rows": [],
        "note": "",
    }
    try:
        if not mask.any():
            raise RatingsError("no open-prompt votes on this board yet")
        out.update(_fit(rows, mask, board, settings))
    except RatingsError as exc:
        out["note"] = str(exc)
    with _LOCK:
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[cache_key] = out
    return out
