"""Models and what they generate: the model registry, stored outputs and latency samples."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Column, Index, false, text
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


class Model(SQLModel, table=True):
    """A registered model (from `models.toml`): identity, adapter, endpoint kind, cohort and price."""

    __tablename__ = "models"

    slug: str = Field(primary_key=True, max_length=64)
    display_name: str = Field(max_length=128)
    organization: str = Field(max_length=128)
    modality: str = Field(max_length=32)
    adapter: str = Field(max_length=32)
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    endpoint_kind: str = Field(default="standard", max_length=16)
    cohort: str = Field(default="current", max_length=16)
    price_per_image_usd: float | None = None
    release_date: str | None = Field(default=None, max_length=10)
    anchor: bool = False
    active: bool = True
    # deactivated from the console: a models-file reload keeps it inactive until the console reactivates it
    console_inactive: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )
    # taken out of open-prompt battles by an operator (the curated arena is unaffected)
    open_excluded: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )
    updated_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))


class Output(SQLModel, table=True):
    """One model's generated image for one prompt (or the record of why it failed).

    `media_id` is the opaque id of the served, normalized image; the original bytes are kept by hash.
    `published_at`: when the image was first shown with its model's name (its prompt retired: model pages,
    /compare, the examples API, /media); a published output is never served blind again. One unpublished row
    per (prompt, model): the partial unique index makes a re-run of the backfill unable to duplicate, while a
    restored prompt can get new outputs beside its published ones (whose votes still count).
    """

    __tablename__ = "outputs"
    __table_args__ = (
        Index(
            "uq_outputs_prompt_model_unpublished",
            "prompt_id",
            "model_slug",
            unique=True,
            sqlite_where=text("published_at IS NULL"),
            postgresql_where=text("published_at IS NULL"),
        ),
        Index("ix_outputs_model_status", "model_slug", "status"),
        Index("ix_outputs_prompt", "prompt_id", "model_slug"),
    )

    id: int | None = Field(default=None, primary_key=True)
    prompt_id: str = Field(foreign_key="prompts.id", max_length=80)
    model_slug: str = Field(foreign_key="models.slug", max_length=64)
    status: str = Field(max_length=16)
    media_id: str | None = Field(default=None, max_length=64, unique=True)
    original_sha256: str | None = Field(default=None, max_length=64)
    original_width: int | None = None
    original_height: int | None = None
    sent_params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    raw_metadata: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    latency_s: float | None = None
    first_byte_s: float | None = None
    attempts: int = 0
    error_kind: str | None = Field(default=None, max_length=32)
    error_message: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    published_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


class LatencySample(SQLModel, table=True):
    """One timed generation call of a timing run: seconds from request to last byte, or the failure."""

    __tablename__ = "latency_samples"
    __table_args__ = (Index("ix_latency_model_time", "model_slug", "started_at"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=64)
    model_slug: str = Field(foreign_key="models.slug", max_length=64)
    timing_prompt_id: str | None = Field(default=None, foreign_key="timing_prompts.id", max_length=80)
    started_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    status: str = Field(max_length=16)
    seconds: float | None = None
    first_byte_seconds: float | None = None
    width: int | None = None
    height: int | None = None
    error_kind: str | None = Field(default=None, max_length=32)
    error_message: str | None = None


__all__ = ["LatencySample", "Model", "Output"]
