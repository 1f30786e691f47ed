"""Open-prompt battles: a voter's own prompt generated live by two anonymous models, their append-only votes and
those votes' filter verdicts, the daily spend reserved per model, and the operator's switches. A second mode beside
the curated arena: nothing here is read by the curated boards."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow

# open_battles.status: generating -> ready -> voted; or failed / refused (no vote ever); expired (never voted)
OPEN_STATUSES = ("generating", "ready", "failed", "refused", "voted", "expired")


class OpenBattle(SQLModel, table=True):
    """One open-prompt battle: the voter's prompt (and optional reference), the two models and their outputs.

    The models, latencies and per-side states never leave the server before the vote; the page reads only the
    battle's overall `status`. `prompt_text` is blanked and `deleted_at` set by the operator's deletion path
    (the row and its vote stay, so boards do not change under a deletion). `consent` is the voter's opt-in for
    the live corpus; `use_case` / `capability` are filled by the tagger (null until tagged).
    """

    __tablename__ = "open_battles"
    __table_args__ = (
        Index("ix_open_battles_session", "session_id", "created_at"),
        Index("ix_open_battles_window", "modality", "created_at", "left_model", "right_model"),
        Index("ix_open_battles_status", "status", "created_at"),
        Index("ix_open_battles_created", "created_at"),
    )

    id: str = Field(primary_key=True, max_length=64)
    modality: str = Field(max_length=32)
    prompt_text: str = Field(sa_column=Column(Text, nullable=False))
    # the normalized, metadata-free reference upload (edit battles): an opaque media id, never the file name
    reference_media_id: str | None = Field(default=None, max_length=64)
    left_model: str = Field(foreign_key="models.slug", max_length=64)
    right_model: str = Field(foreign_key="models.slug", max_length=64)
    # per side: pending / ok / failed / refused / timeout
    left_status: str = Field(default="pending", max_length=16)
    right_status: str = Field(default="pending", max_length=16)
    left_media_id: str | None = Field(default=None, max_length=64)
    right_media_id: str | None = Field(default=None, max_length=64)
    left_latency_s: float | None = None
    right_latency_s: float | None = None
    left_error: str | None = Field(default=None, max_length=500)
    right_error: str | None = Field(default=None, max_length=500)
    # per-battle random tokens in the served image URLs (nothing stable across battles)
    left_token: str = Field(max_length=64, unique=True)
    right_token: str = Field(max_length=64, unique=True)
    status: str = Field(default="generating", max_length=16)
    # why a battle ended without a vote: refused / failed / timeout (the page shows one clear message)
    failure: str | None = Field(default=None, max_length=32)
    session_id: str = Field(max_length=64)
    client_hash: str | None = Field(default=None, max_length=64)
    challenge: str = Field(max_length=64)
    consent: bool = False
    # spend reserved for this battle (USD, both sides) and the day (UTC, YYYY-MM-DD) it was reserved on
    cost_usd: float = 0.0
    spend_day: str = Field(default="", max_length=10)
    moderation: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    use_case: str | None = Field(default=None, max_length=64)
    capability: str | None = Field(default=None, max_length=64)
    tagged_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    ready_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    # when the page first fetched each image (the vote filters' images-fetched signal)
    left_fetched_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    right_fetched_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    finished_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    expires_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    deleted_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


class OpenVote(SQLModel, table=True):
    """A vote on an open battle: append-only, never updated or deleted (like `votes`), one per battle."""

    __tablename__ = "open_votes"
    __table_args__ = (
        UniqueConstraint("battle_id", name="uq_open_votes_battle"),
        Index("ix_open_votes_modality", "modality", "methodology"),
        Index("ix_open_votes_session", "session_id"),
        Index("ix_open_votes_pair", "model_a", "model_b"),
    )

    id: int | None = Field(default=None, primary_key=True)
    battle_id: str = Field(foreign_key="open_battles.id", max_length=64)
    modality: str = Field(max_length=32)
    model_a: str = Field(foreign_key="models.slug", max_length=64)
    model_b: str = Field(foreign_key="models.slug", max_length=64)
    a_side: str = Field(max_length=5)
    winner: str = Field(max_length=16)
    methodology: str = Field(max_length=16)
    session_id: str = Field(max_length=64)
    client_hash: str | None = Field(default=None, max_length=64)
    served_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    voted_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    images_fetched: bool = True
    signals: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}")
    )


class OpenVoteVerdict(SQLModel, table=True):
    """One online filter's verdict on one open vote (kept or filtered, why, by which filter version)."""

    __tablename__ = "open_vote_verdicts"

    vote_id: int = Field(foreign_key="open_votes.id", primary_key=True)
    filter: str = Field(primary_key=True, max_length=32)
    filter_version: str = Field(max_length=16)
    kept: bool
    reason: str = ""
    decided_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))


class OpenSpend(SQLModel, table=True):
    """USD reserved for open battles per UTC day and model (`*` is the overall total): reserved before a provider
    is called, released on failure, so the daily caps never overshoot."""

    __tablename__ = "open_spend"

    day: str = Field(primary_key=True, max_length=10)
    model_slug: str = Field(primary_key=True, max_length=64)
    reserved_usd: float = 0.0
    battles: int = 0


class OpenSwitch(SQLModel, table=True):
    """An operator's switch on the open-prompt mode (`mode`: the whole mode), kept across restarts."""

    __tablename__ = "open_switches"

    name: str = Field(primary_key=True, max_length=32)
    enabled: bool = True
    changed_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    changed_by: str = Field(default="", max_length=128)


__all__ = ["OPEN_STATUSES", "OpenBattle", "OpenSpend", "OpenSwitch", "OpenVote", "OpenVoteVerdict"]
