"""Prompts and their curation: taxonomy labels, reference images, the arena prompts, timing prompts, the
imported corpus and retirement reports."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


class TaxonomyLabel(SQLModel, table=True):
    """One label of the taxonomy: a modality, use case, capability or style, loaded from the data file."""

    __tablename__ = "taxonomy_labels"

    axis: str = Field(primary_key=True, max_length=16)
    slug: str = Field(primary_key=True, max_length=64)
    name: str = Field(max_length=128)
    description: str = ""
    hint: str = ""
    examples: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    position: int = 0


class ReferenceImage(SQLModel, table=True):
    """A curated reference image for edit prompts, stored by content hash under the media dir."""

    __tablename__ = "reference_images"

    id: int | None = Field(default=None, primary_key=True)
    sha256: str = Field(max_length=64, unique=True)
    path: str = Field(max_length=512)
    original_name: str = Field(max_length=256)
    width: int
    height: int
    kind: str = Field(default="", max_length=32)
    source: str = ""
    licence: str = ""
    description: str = ""


class Prompt(SQLModel, table=True):
    """A prompt of the pool, tagged with one use case, one primary capability and optional styles."""

    __tablename__ = "prompts"
    __table_args__ = (Index("ix_prompts_pool", "modality", "status", "use_case", "capability"),)

    id: str = Field(primary_key=True, max_length=80)
    modality: str = Field(max_length=32)
    text: str
    use_case: str = Field(max_length=64)
    capability: str = Field(max_length=64)
    styles: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    reference_image_id: int | None = Field(default=None, foreign_key="reference_images.id")
    edit_kind: str | None = Field(default=None, max_length=32)
    edit_region: list[float] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    status: str = Field(default="active", max_length=16)
    retired_reason: str | None = None
    retired_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    batch: str = Field(max_length=16)
    source: str = Field(default="", max_length=256)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))


class TimingPrompt(SQLModel, table=True):
    """A prompt of the curated timing set: drawn fresh for every timed generation call."""

    __tablename__ = "timing_prompts"

    id: str = Field(primary_key=True, max_length=80)
    text: str
    active: bool = True


class CorpusPrompt(SQLModel, table=True):
    """A recent real-world prompt of the live corpus that freshness checks compare the pool against."""

    __tablename__ = "corpus_prompts"

    id: int | None = Field(default=None, primary_key=True)
    text: str
    month: str = Field(max_length=7)
    source: str = Field(default="", max_length=256)
    imported_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))


class RetirementReport(SQLModel, table=True):
    """A monthly retirement report: flagged prompts with statistics, coverage after retirement, approval."""

    __tablename__ = "retirement_reports"

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    status: str = Field(default="draft", max_length=16)
    report: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    approved_by: str | None = Field(default=None, max_length=128)
    applied_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


__all__ = ["CorpusPrompt", "Prompt", "ReferenceImage", "RetirementReport", "TaxonomyLabel", "TimingPrompt"]
