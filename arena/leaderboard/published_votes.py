"""The exact vote set behind a published board: kept votes of the modality cast up to the snapshot time
(simulated ones only when the snapshot included them), then the cohort rule the snapshot applied (a vote is
kept iff both its models are eligible for it). The export, the win-rate tables and the heat maps all read
votes through here, so they describe the same votes the published fit used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Connection, Select

from arena.db.tables import Vote
from arena.leaderboard.boards import PublishedBoard
from arena.voting.kept_votes import kept_votes_query
from ratings import CohortRule, cohort_keep_mask

__all__ = ["VoteSet", "published_vote_rows"]


@dataclass(frozen=True)
class VoteSet:
    """Which votes a snapshot of one modality used."""

    modality: str
    until: datetime
    include_simulated: bool
    current_methodology: str
    current_models: frozenset[str]

    @classmethod
    def of(cls, board: PublishedBoard) -> VoteSet:
        """The vote set of a published board (every board of one snapshot shares it)."""
        return cls(
            modality=board.modality,
            until=board.created_at,
            include_simulated=bool(board.params.get("include_simulated", False)),
            current_methodology=board.methodology_version,
            current_models=frozenset(board.params.get("current_cohort", ())),
        )

    @property
    def rule(self) -> CohortRule:
        """The cohort rule the snapshot applied."""
        return CohortRule(self.current_methodology, self.current_models)

    def query(self) -> Select[Any]:
        """Kept votes up to the snapshot time (before the cohort rule), oldest first."""
        return kept_votes_query(self.modality, include_simulated=self.include_simulated).where(
            Vote.voted_at <= self.until
        )

    def keep(self, model_a: list[str], model_b: list[str], methodology: list[str | None]) -> np.ndarray:
        """The cohort rule's keep-mask over vote columns."""
        if not model_a:
            return np.zeros(0, dtype=bool)
        return cohort_keep_mask(model_a, model_b, methodology, self.rule)


def published_vote_rows(conn: Connection, votes: VoteSet) -> list[Any]:
    """The rows of `kept_votes_query` that the published fit used, oldest first."""
    rows = conn.execute(votes.query()).all()
    mask = votes.keep([r.model_a for r in rows], [r.model_b for r in rows], [r.methodology for r in rows])
    return [r for r, kept in zip(rows, mask.tolist(), strict=True) if kept]
