"""The K-wise board of a modality (issue 31): the kept K-wise votes fitted by Plackett-Luce
(`ratings.rankings.fit_ranking_board`, on the pairwise board's Elo-like scale), after the K-wise batch filters
ran over them. It is its own board: K-wise votes are never pooled with the pairwise ones, nor these ratings
with the pairwise board's.

A model in fewer kept rankings than ARENA_KWISE_MIN_RANKINGS is listed as not yet rated (no rank), as the
pairwise board does with ARENA_MIN_VOTES. Simulated votes count only in demo mode, as on the pairwise boards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, and_, exists, select

from arena.db.tables import KwiseVerdict, KwiseVote, Model
from arena.settings import Settings
from arena.voting.kwise_filters import filter_kwise
from ratings.errors import RatingsError
from ratings.rankings import fit_ranking_board

__all__ = ["KwiseBoard", "board_json", "kwise_board"]

VOTES = KwiseVote.__table__  # type: ignore[attr-defined]
VERDICTS = KwiseVerdict.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class KwiseBoard:
    """A modality's K-wise board as the page and the API show it."""

    modality: str
    computed_at: datetime
    rankings: int  # kept votes with an order (fitted)
    all_equal: int  # kept "all about equal" votes (counted, not fitted)
    filtered: int  # K-wise votes the filters left out
    min_rankings: int
    rows: list[dict[str, Any]] = field(default_factory=list)  # rated first by rating, then not yet rated
    note: str = ""  # why there are no ratings yet, when there are none


def kwise_board(engine: Engine, settings: Settings, modality: str, now: datetime) -> KwiseBoard:
    """Run the K-wise batch filters over `modality`'s K-wise votes, then fit the kept ones."""
    with engine.begin() as conn:
        filter_kwise(conn, modality, now)
    filtered = exists().where(and_(VERDICTS.c.vote_id == VOTES.c.id, VERDICTS.c.kept == False))  # noqa: E712
    query = select(VOTES.c.id, VOTES.c.session_id, VOTES.c.ranking, VOTES.c.all_equal, VOTES.c.models).where(
        VOTES.c.modality == modality
    )
    if not settings.demo_mode:
        query = query.where(VOTES.c.source == "human")
    with engine.connect() as conn:
        rows = conn.execute(query.where(~filtered)).all()
        n_filtered = len(conn.execute(query.where(filtered)).all())
        names = {
            r.slug: (r.display_name, r.organization)
            for r in conn.execute(select(Model.slug, Model.display_name, Model.organization)).all()
        }
    ordered = [r for r in rows if not r.all_equal and r.ranking]
    n_equal = sum(1 for r in rows if r.all_equal)
    board = KwiseBoard(modality, now, len(ordered), n_equal, n_filtered, settings.kwise_min_rankings)
    models = sorted({m for r in ordered for m in r.ranking})
    if len(models) < 2:
        return KwiseBoard(**{**board.__dict__, "note": "no kept K-wise rankings yet"})
    index = {m: i for i, m in enumerate(models)}
    sessions = {s: i for i, s in enumerate(sorted({r.session_id for r in ordered}))}
    anchor = index.get(settings.overall_anchor, 0)
    try:
        fit = fit_ranking_board(
            [[index[m] for m in r.ranking] for r in ordered],
            [sessions[r.session_id] for r in ordered],
            len(models),
            anchor=anchor,
            min_votes=settings.kwise_min_rankings,
            n_all_equal=n_equal,
        )
    except RatingsError as exc:
        return KwiseBoard(**{**board.__dict__, "note": f"no ratings yet: {exc}"})
    excluded = dict(fit.excluded)
    out = []
    for i, slug in enumerate(models):
        name, org = names.get(slug, (slug, ""))
        unrated = i in excluded or bool(fit.provisional[i])
        row: dict[str, Any] = {
            "slug": slug,
            "name": name,
            "organization": org,
            "rankings": int(fit.n_rankings[i]),
            "rated": not unrated,
        }
        if i in excluded:
            row["why_not_rated"] = excluded[i]
        elif fit.provisional[i]:
            row["why_not_rated"] = f"fewer than {settings.kwise_min_rankings} rankings"
        else:
            row.update(
                rank=int(fit.rank[i]),
                rating=round(float(fit.rating[i]), 1),
                lower=round(float(fit.lower[i]), 1),
                upper=round(float(fit.upper[i]), 1),
            )
        out.append(row)
    out.sort(key=lambda r: (not r["rated"], -r.get("rating", 0.0), -r["rankings"], r["slug"]))
    return KwiseBoard(**{**board.__dict__, "rows": out, "note": "; ".join(fit.notes)})


def board_json(board: KwiseBoard) -> dict[str, Any]:
    """The board as the JSON API answers it."""
    payload = {k: v for k, v in board.__dict__.items() if k != "computed_at"}
    return {**payload, "computed_at": board.computed_at.isoformat()}
