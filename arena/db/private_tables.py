"""Tables of private matchup sets: an eval run's outputs shown blind to invited voters behind a secret link. Their
votes live here only, never in `votes` or any leaderboard. Migration 0020 creates them."""

from datetime import datetime

from sqlalchemy import Column, Index
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


def _now_column() -> Column:
    return Column(UtcDateTime(), nullable=False)


class PrivateSet(SQLModel, table=True):
    """A private matchup set: model run A against B of one eval run (or across two); the link's token is kept
    only as its SHA-256."""

    __tablename__ = "eval_private_sets"

    id: int | None = Field(default=None, primary_key=True)
    token_sha256: str = Field(max_length=64, unique=True)
    run_a: str = Field(max_length=64)
    run_b: str = Field(max_length=64)
    label_a: str = Field(max_length=300)
    label_b: str = Field(max_length=300)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())


class PrivatePair(SQLModel, table=True):
    """One case and sample of a set: the two eval results and their artifact files."""

    __tablename__ = "eval_private_pairs"

    id: int | None = Field(default=None, primary_key=True)
    set_id: int = Field(foreign_key="eval_private_sets.id", index=True)
    case_id: str = Field(max_length=128)
    sample: int = 0
    prompt: str = ""
    result_a: int = Field(foreign_key="eval_results.id")
    result_b: int = Field(foreign_key="eval_results.id")
    path_a: str = Field(max_length=2048)
    path_b: str = Field(max_length=2048)


class PrivateShowing(SQLModel, table=True):
    """One pair shown to one voter, sides drawn at random; the vote fills `choice` (left / right / tie) and
    `outcome` (0 A wins, 1 B wins, 2 tie). A showing is voted at most once."""

    __tablename__ = "eval_private_showings"
    __table_args__ = (Index("ix_eval_private_showings_voter", "set_id", "voter"),)

    id: str = Field(primary_key=True, max_length=32)
    set_id: int = Field(foreign_key="eval_private_sets.id")
    pair_id: int = Field(foreign_key="eval_private_pairs.id")
    voter: str = Field(max_length=64)
    a_left: bool
    choice: str = Field(default="", max_length=8)
    outcome: int | None = None
    shown_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())
    voted_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
