"""A voter session's own record: the votes it cast, whether each counted (and why not), and the counted votes
per modality for the personal board.

Only rows of the `votes` table with this session id are read, so nothing here can name the models of a matchup
that was served but not voted on. A vote *counts* when no verdict filters it (the rule of the public boards,
`arena.voting.kept_votes.kept_filter`). The models of a vote that does not count are not returned: the vote was
answered without a reveal (see `ArenaService.cast_vote`), and this page must not become the way around that.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, and_, exists, func, select

from arena.db.tables import Prompt, Vote, VoteVerdict
from arena.voting.filters.registry import REGISTRY

__all__ = ["CHOICE_WORDS", "CountedVote", "RecordedVote", "SessionRecord", "counted_votes", "session_record"]


# The labels of the arena's vote buttons (templates/index.html), so /me names a vote as the voter cast it.
CHOICE_WORDS = {
    "left": "A is better",
    "right": "B is better",
    "tie": "Tie: both good",
    "both_bad": "Both bad",
}


def _filtered() -> object:
    return exists().where(and_(VoteVerdict.vote_id == Vote.id, VoteVerdict.kept == False))  # noqa: E712


@dataclass(frozen=True)
class RecordedVote:
    """One vote of the session as the voter sees it.

    ``left``/``right`` are model slugs, None when the vote did not count (no reveal for those). ``picked`` is
    "left", "right", "tie" or "both_bad"; ``why_not`` lists (label, reason) of the filters that left it out
    (labels from the filter registry).
    """

    id: int
    voted_at: datetime
    modality: str
    prompt: str
    left: str | None
    right: str | None
    picked: str
    counted: bool
    why_not: tuple[tuple[str, str], ...]

    @property
    def choice_words(self) -> str:
        """The choice in the words of the arena's vote buttons (A is the left image, B the right)."""
        return CHOICE_WORDS[self.picked]


@dataclass(frozen=True)
class SessionRecord:
    """A page of the session's votes (newest first) with the totals."""

    votes: list[RecordedVote]
    total: dict[str, int]  # votes per modality
    counted: dict[str, int]  # counted votes per modality


@dataclass(frozen=True)
class CountedVote:
    """A counted vote in the battles form the ratings read: sorted models, the winner code and the prompt (the
    cluster the board's intervals resample; None when unknown)."""

    model_a: str
    model_b: str
    winner: str
    prompt_id: str | None = None


def _picked(winner: str, a_side: str) -> str:
    if winner == "tie":
        return "tie"
    if winner == "tie (bothbad)":
        return "both_bad"
    b_side = "right" if a_side == "left" else "left"
    return a_side if winner == "model_a" else b_side


def session_record(conn: Connection, session_id: str, *, limit: int, offset: int = 0) -> SessionRecord:
    """`limit` votes of the session from `offset`, newest first, with the total and counted votes."""
    total = dict(
        conn.execute(
            select(Vote.modality, func.count()).where(Vote.session_id == session_id).group_by(Vote.modality)
        ).all()
    )
    counted = dict(
        conn.execute(
            select(Vote.modality, func.count())
            .where(Vote.session_id == session_id, ~_filtered())
            .group_by(Vote.modality)
        ).all()
    )
    rows = conn.execute(
        select(
            Vote.id,
            Vote.voted_at,
            Vote.modality,
            Prompt.text,
            Vote.model_a,
            Vote.model_b,
            Vote.a_side,
            Vote.winner,
        )
        .join(Prompt, Prompt.id == Vote.prompt_id)
        .where(Vote.session_id == session_id)
        .order_by(Vote.voted_at.desc(), Vote.id.desc())  # type: ignore[attr-defined]
        .limit(limit)
        .offset(offset)
    ).all()
    reasons: dict[int, list[tuple[str, str]]] = defaultdict(list)
    if rows:
        for vote_id, name, reason in conn.execute(
            select(VoteVerdict.vote_id, VoteVerdict.filter, VoteVerdict.reason)
            .where(VoteVerdict.vote_id.in_([r.id for r in rows]), VoteVerdict.kept == False)  # type: ignore[attr-defined]  # noqa: E712
            .order_by(VoteVerdict.vote_id, VoteVerdict.filter)
        ).all():
            reasons[vote_id].append((REGISTRY.label(name), reason))
    votes = []
    for r in rows:
        counted_vote = r.id not in reasons
        left, right = (r.model_a, r.model_b) if r.a_side == "left" else (r.model_b, r.model_a)
        votes.append(
            RecordedVote(
                id=r.id,
                voted_at=r.voted_at,
                modality=r.modality,
                prompt=r.text,
                left=left if counted_vote else None,
                right=right if counted_vote else None,
                picked=_picked(r.winner, r.a_side),
                counted=counted_vote,
                why_not=tuple(reasons.get(r.id, ())),
            )
        )
    return SessionRecord(
        votes=votes,
        total={str(k): int(v) for k, v in total.items()},
        counted={str(k): int(v) for k, v in counted.items()},
    )


def counted_votes(conn: Connection, session_id: str) -> dict[str, list[CountedVote]]:
    """Every counted vote of the session, per modality, oldest first."""
    rows = conn.execute(
        select(Vote.modality, Vote.model_a, Vote.model_b, Vote.winner, Vote.prompt_id)
        .where(Vote.session_id == session_id, ~_filtered())
        .order_by(Vote.id)
    ).all()
    out: dict[str, list[CountedVote]] = defaultdict(list)
    for r in rows:
        out[r.modality].append(CountedVote(r.model_a, r.model_b, r.winner, r.prompt_id))
    return dict(out)
