"""Response model of /api/v1/me: a voter session's own votes, personal boards and agreement figures."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class NotCountedOut(BaseModel):
    """One filter that left the vote out."""

    filter: str = Field(description="What the filter checks, in words (e.g. 'too fast').")
    reason: str = Field(description="The filter's own reason.")


class MyVoteOut(BaseModel):
    """One vote of this session."""

    voted_at: datetime
    modality: str
    prompt: str = Field(description="The prompt (or edit instruction) of the matchup.")
    left_model: str | None = Field(description="Slug of the left model; null when the vote did not count.")
    right_model: str | None = Field(description="Slug of the right model; null when the vote did not count.")
    left_name: str | None
    right_name: str | None
    choice: Literal["left", "right", "tie", "both_bad"]
    choice_words: str
    counted: bool = Field(description="No vote filter left it out; only counted votes feed the boards.")
    not_counted_because: list[NotCountedOut]


class MyRankingOut(BaseModel):
    """One "Rank four" (K-wise) vote of this session."""

    voted_at: datetime
    modality: str
    prompt: str = Field(description="The prompt (or edit instruction) of the K-wise matchup.")
    k: int = Field(description="How many images were ranked.")
    all_equal: bool = Field(description="The voter said the images were all about equal.")
    models: list[str] | None = Field(
        description="Slugs best first (in screen order when all equal); null when the vote did not count."
    )
    names: list[str] | None = Field(description="The display names of `models`.")
    counted: bool = Field(
        description="No vote filter left it out; only counted rankings feed the K-wise board."
    )
    not_counted_because: list[NotCountedOut]


class PublicOut(BaseModel):
    """A model's row on the public overall board of the latest snapshot (null fields: not on it; a null rank with a
    rating: on it but not yet rated, see `arena.leaderboard.standing`)."""

    public_rank: int | None
    public_rating: float | None
    public_ci_low: float | None
    public_ci_high: float | None


class PersonalRowOut(PublicOut):
    """A model placed on the personal board."""

    model: str
    display_name: str
    rank: int = Field(description="1 + the number of placed models whose lead over this one is significant.")
    rating: float
    ci_low: float | None = Field(
        description="Lower end of the interval; null when the votes leave it unbounded."
    )
    ci_high: float | None = Field(
        description="Upper end of the interval; null when the votes leave it unbounded."
    )
    votes: int = Field(description="This session's counted votes with this model.")
    wins: int
    losses: int
    ties: int


class UnplacedOut(PublicOut):
    """A model the session's votes cannot place yet, with the reason."""

    model: str
    display_name: str
    votes: int
    wins: int
    losses: int
    ties: int
    reason: str


class PersonalBoardOut(BaseModel):
    """A leaderboard fitted from this session's counted votes only."""

    rows: list[PersonalRowOut]
    not_placed: list[UnplacedOut]
    fitted_votes: int = Field(description="Counted votes between placed models (the votes the fit used).")
    reference: str | None = Field(description="The model whose rating is fixed to reference_rating.")
    reference_rating: float
    reference_is_public_anchor: bool
    interval: str = Field(description="bootstrap (percentile, seeded) or sandwich.")
    level: float
    n_bootstrap: int
    notes: list[str]


class AgreementOut(BaseModel):
    """Decisive counted votes between two models of the public board, and how many picked its favourite."""

    agreed: int
    decisive: int
    share: float | None


class ModalityRecordOut(BaseModel):
    """This session's record in one modality."""

    modality: str
    modality_name: str
    votes: int
    counted_votes: int
    needed_votes: int = Field(description="Counted votes needed before the personal board is fitted.")
    board: PersonalBoardOut | None = Field(description="Null below needed_votes counted votes.")
    agreement: AgreementOut | None = Field(description="Null below needed_votes counted votes.")
    public_snapshot_at: datetime | None = Field(
        description="When the public board compared with was computed."
    )


class MeOut(BaseModel):
    """Everything /me shows, for the session of the request's voter cookie only."""

    has_session: bool = Field(description="Whether the request carried a valid voter session cookie.")
    total_votes: int
    counted_votes: int
    page: int
    per_page: int
    pages: int
    votes: list[MyVoteOut] = Field(description="This page of the session's votes, newest first.")
    modalities: list[ModalityRecordOut]
    total_rankings: int = Field(0, description="K-wise (Rank four) votes this session cast.")
    rankings: list[MyRankingOut] = Field(
        default_factory=list, description="The session's 50 newest K-wise votes, newest first."
    )
