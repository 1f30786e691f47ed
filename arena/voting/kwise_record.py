"""A voter session's own K-wise rankings for /me: each ranking it cast, newest first, whether it counted and why not.

Only rows of `kwise_votes` with this session id are read. As for pairwise votes (`arena.voting.record`), the models
of a ranking that does not count are not returned: that vote was answered without a reveal.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, func, select

from arena.db.tables import KwiseVerdict, KwiseVote, Prompt
from arena.voting.filters.registry import REGISTRY
from arena.voting.kwise_filters import LABELS

__all__ = ["RecordedRanking", "session_rankings"]


@dataclass(frozen=True)
class RecordedRanking:
    """One K-wise vote as its voter sees it. ``models``: best first, or in screen order when the voter said all about
    equal; None when the vote did not count (no reveal for those)."""

    id: int
    voted_at: datetime
    modality: str
    prompt: str
    k: int
    all_equal: bool
    models: tuple[str, ...] | None
    counted: bool
    why_not: tuple[tuple[str, str], ...]


def _label(name: str) -> str:
    return LABELS.get(name) or REGISTRY.label(name)


def session_rankings(conn: Connection, session_id: str, *, limit: int) -> tuple[list[RecordedRanking], int]:
    """The session's `limit` newest K-wise votes and how many it cast in all."""
    total = conn.execute(
        select(func.count()).select_from(KwiseVote).where(KwiseVote.session_id == session_id)
    ).scalar_one()
    if not total:
        return [], 0
    rows = conn.execute(
        select(
            KwiseVote.id,
            KwiseVote.voted_at,
            KwiseVote.modality,
            Prompt.text,
            KwiseVote.k,
            KwiseVote.all_equal,
            KwiseVote.ranking,
            KwiseVote.models,
        )
        .join(Prompt, Prompt.id == KwiseVote.prompt_id)
        .where(KwiseVote.session_id == session_id)
        .order_by(KwiseVote.voted_at.desc(), KwiseVote.id.desc())  # type: ignore[attr-defined]
        .limit(limit)
    ).all()
    reasons: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for vote_id, name, reason in conn.execute(
        select(KwiseVerdict.vote_id, KwiseVerdict.filter, KwiseVerdict.reason)
        .where(KwiseVerdict.vote_id.in_([r.id for r in rows]), KwiseVerdict.kept == False)  # type: ignore[attr-defined]  # noqa: E712
        .order_by(KwiseVerdict.vote_id, KwiseVerdict.filter)
    ).all():
        reasons[vote_id].append((_label(name), reason))
    out = [
        RecordedRanking(
            id=r.id,
            voted_at=r.voted_at,
            modality=r.modality,
            prompt=r.text,
            k=r.k,
            all_equal=r.all_equal,
            models=None if r.id in reasons else tuple(r.models if r.all_equal else r.ranking),
            counted=r.id not in reasons,
            why_not=tuple(reasons.get(r.id, ())),
        )
        for r in rows
    ]
    return out, int(total)
