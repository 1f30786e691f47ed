"""Votes and what is derived from them: matchups, votes, filter verdicts and marks, tallies and rating
snapshots."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


class Vote(SQLModel, table=True):
    """A raw vote: append-only, never updated or deleted. Filters write `VoteVerdict` rows beside it."""

    __tablename__ = "votes"
    __table_args__ = (
        UniqueConstraint("matchup_id", name="uq_votes_matchup"),
        Index("ix_votes_modality", "modality", "methodology"),
        Index("ix_votes_session", "session_id"),
        Index("ix_votes_client", "client_hash"),
        Index("ix_votes_pair", "model_a", "model_b"),  # head-to-head and a model's examples
        Index("ix_votes_model_b", "model_b"),
        Index("ix_votes_cell", "use_case", "capability"),  # combined boards
        Index("ix_votes_prompt", "prompt_id", "id"),  # a retired prompt's latest votes (model-page examples)
    )

    id: int | None = Field(default=None, primary_key=True)
    matchup_id: str = Field(max_length=64)
    modality: str = Field(max_length=32)
    prompt_id: str = Field(foreign_key="prompts.id", max_length=80)
    use_case: str = Field(max_length=64)
    capability: str = Field(max_length=64)
    model_a: str = Field(foreign_key="models.slug", max_length=64)
    model_b: str = Field(foreign_key="models.slug", max_length=64)
    a_side: str = Field(max_length=5)
    winner: str = Field(max_length=16)
    methodology: str = Field(max_length=16)
    session_id: str = Field(max_length=64)
    source: str = Field(default="human", max_length=16)
    served_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    voted_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    client_hash: str | None = Field(default=None, max_length=64)
    left_output_id: int | None = Field(default=None, foreign_key="outputs.id")
    right_output_id: int | None = Field(default=None, foreign_key="outputs.id")
    images_fetched: bool = True
    signals: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}")
    )


class Matchup(SQLModel, table=True):
    """A served pair of outputs for one prompt, bound to one voter session; single-use and short-lived.

    Image URLs use per-matchup random tokens, so nothing the voter receives is stable across matchups.
    """

    __tablename__ = "matchups"
    __table_args__ = (
        Index("ix_matchups_session", "session_id", "served_at"),
        # The variety rules' window (the modality's latest matchups and their pairs) is read from this index.
        Index("ix_matchups_window", "modality", "served_at", "left_model", "right_model"),
    )

    id: str = Field(primary_key=True, max_length=64)
    session_id: str = Field(max_length=64)
    client_hash: str | None = Field(default=None, max_length=64)
    modality: str = Field(max_length=32)
    prompt_id: str = Field(foreign_key="prompts.id", max_length=80)
    left_output_id: int = Field(foreign_key="outputs.id")
    right_output_id: int = Field(foreign_key="outputs.id")
    # The two outputs' models, copied at serve time (never sent to the voter before the vote).
    left_model: str = Field(max_length=64, sa_column_kwargs={"server_default": ""})
    right_model: str = Field(max_length=64, sa_column_kwargs={"server_default": ""})
    left_token: str = Field(max_length=64, unique=True)
    right_token: str = Field(max_length=64, unique=True)
    challenge: str = Field(max_length=64)
    source: str = Field(default="human", max_length=16)
    served_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    expires_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    left_fetched_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    right_fetched_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


class VoteVerdict(SQLModel, table=True):
    """One filter's verdict on one vote (kept or filtered, why, by which filter version)."""

    __tablename__ = "vote_verdicts"

    vote_id: int = Field(foreign_key="votes.id", primary_key=True)
    filter: str = Field(primary_key=True, max_length=32)
    filter_version: str = Field(max_length=16)
    kept: bool
    reason: str = ""
    decided_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))


class VoteTally(SQLModel, table=True):
    """Votes counted per group of everything a board reads (cell, pair, outcome, methodology, source, prompt):
    all of them and the kept ones. Kept up to date incrementally (`arena.voting.tallies`), so the rating job and
    the batch filters read rows that grow with prompts x pairs instead of every vote."""

    __tablename__ = "vote_tallies"

    modality: str = Field(primary_key=True, max_length=32)
    use_case: str = Field(primary_key=True, max_length=64)
    capability: str = Field(primary_key=True, max_length=64)
    model_a: str = Field(primary_key=True, max_length=64)
    model_b: str = Field(primary_key=True, max_length=64)
    winner: str = Field(primary_key=True, max_length=16)
    methodology: str = Field(primary_key=True, max_length=16)
    source: str = Field(primary_key=True, max_length=16)
    prompt_id: str = Field(primary_key=True, max_length=80)  # the cluster the boards' intervals resample
    votes: int = 0
    kept: int = 0


class TallyMark(SQLModel, table=True):
    """How far `vote_tallies` has counted: every vote id up to `last_vote_id` except the `gaps` (ids not yet
    committed when it counted, recounted later if they appear)."""

    __tablename__ = "tally_marks"

    name: str = Field(primary_key=True, max_length=16)
    last_vote_id: int
    gaps: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    counted_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))


class SnapshotTally(SQLModel, table=True):
    """Win / loss / tie counts per model pair and per (model, cell) of the votes one snapshot counted, stored
    with it so a model page never counts votes (`arena.leaderboard.published_counts`)."""

    __tablename__ = "snapshot_tallies"
    __table_args__ = (Index("ix_snapshot_tallies_at", "modality", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    modality: str = Field(max_length=32)
    created_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    models: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    cells: list[list[str]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    counts: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    votes: int = 0
    examples: dict[str, list[int]] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    examples_basis: str = Field(
        default="", max_length=64
    )  # the retired prompts the examples were picked from


class BatchFilterMark(SQLModel, table=True):
    """How far the batch (anomaly) filters have examined a modality's votes: the last vote id and filter version."""

    __tablename__ = "batch_filter_marks"

    modality: str = Field(primary_key=True, max_length=32)
    filter_version: str = Field(max_length=16)
    last_vote_id: int
    ran_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))


class RatingSnapshot(SQLModel, table=True):
    """A computed board: its rows, the vote count and every parameter needed to recompute it."""

    __tablename__ = "rating_snapshots"
    __table_args__ = (Index("ix_snapshots_board", "modality", "board", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    modality: str = Field(max_length=32)
    board: str = Field(max_length=96)
    vote_count: int
    filter_version: str = Field(max_length=64)
    methodology_version: str = Field(max_length=16)
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    rows: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # standard errors of every pairwise rating difference and the ranks' critical value
    # (arena.leaderboard.differences): the intervals of a model's gap to the anchor or to any model; null on
    # boards published before they were stored
    differences: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


__all__ = [
    "BatchFilterMark",
    "Matchup",
    "RatingSnapshot",
    "SnapshotTally",
    "TallyMark",
    "Vote",
    "VoteTally",
    "VoteVerdict",
]
