"""K-wise battles (issue 31, opt-in with ARENA_KWISE): a served set of K outputs for one prompt, the per-image
tokens it is shown by, the append-only votes (an order or "all about equal") and the filters' verdicts on them."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


class KwiseMatchup(SQLModel, table=True):
    """K outputs of K distinct models for one prompt, in their screen positions, bound to one voter session.

    `models` and `output_ids` are listed by screen position (0 first); they are never sent before the vote."""

    __tablename__ = "kwise_matchups"
    __table_args__ = (
        Index("ix_kwise_matchups_session", "session_id", "served_at"),
        Index("ix_kwise_matchups_window", "modality", "served_at"),
    )

    id: str = Field(primary_key=True, max_length=64)
    session_id: str = Field(max_length=64)
    client_hash: str | None = Field(default=None, max_length=64)
    modality: str = Field(max_length=32)
    prompt_id: str = Field(foreign_key="prompts.id", max_length=80)
    k: int
    models: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    output_ids: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    challenge: str = Field(max_length=64)
    source: str = Field(default="human", max_length=16)
    served_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    expires_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))


class KwiseImage(SQLModel, table=True):
    """One screen position of a K-wise matchup: the random per-serve token its image URL carries."""

    __tablename__ = "kwise_images"
    __table_args__ = (Index("ix_kwise_images_matchup", "matchup_id"),)

    token: str = Field(primary_key=True, max_length=64)
    matchup_id: str = Field(foreign_key="kwise_matchups.id", max_length=64)
    position: int
    output_id: int = Field(foreign_key="outputs.id")
    fetched_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


class KwiseVote(SQLModel, table=True):
    """A raw K-wise vote: append-only. `ranking` is the models best first (empty when `all_equal`), `order` the
    screen positions best first; filters write `KwiseVerdict` rows beside it."""

    __tablename__ = "kwise_votes"
    __table_args__ = (
        UniqueConstraint("matchup_id", name="uq_kwise_votes_matchup"),
        Index("ix_kwise_votes_modality", "modality", "id"),
        Index("ix_kwise_votes_session", "session_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    matchup_id: str = Field(foreign_key="kwise_matchups.id", max_length=64)
    modality: str = Field(max_length=32)
    prompt_id: str = Field(foreign_key="prompts.id", max_length=80)
    use_case: str = Field(max_length=64)
    capability: str = Field(max_length=64)
    k: int
    models: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    ranking: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    order: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    all_equal: bool = False
    methodology: str = Field(max_length=16)
    session_id: str = Field(max_length=64)
    source: str = Field(default="human", max_length=16)
    client_hash: str | None = Field(default=None, max_length=64)
    served_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    voted_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    seconds: float = 0.0
    signals: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}")
    )


class KwiseVerdict(SQLModel, table=True):
    """One filter's verdict on one K-wise vote (the `vote_verdicts` pattern)."""

    __tablename__ = "kwise_vote_verdicts"

    vote_id: int = Field(foreign_key="kwise_votes.id", primary_key=True)
    filter: str = Field(primary_key=True, max_length=32)
    filter_version: str = Field(max_length=16)
    kept: bool
    reason: str = ""
    decided_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))


__all__ = ["KwiseImage", "KwiseMatchup", "KwiseVerdict", "KwiseVote"]
