"""Webhooks: operator-registered URLs called on arena events, and one row per delivery (its attempts and end)."""

from datetime import datetime

from sqlalchemy import JSON, Column, Index, Text
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


class Webhook(SQLModel, table=True):
    """A registered URL and the events it is called on. The signing secret is either stored here (generated at
    registration, shown once) or read at delivery time from the environment variable `secret_env`."""

    __tablename__ = "webhooks"

    id: int | None = Field(default=None, primary_key=True)
    url: str = Field(max_length=2048)
    events: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    secret: str = Field(default="", max_length=128)
    secret_env: str = Field(default="", max_length=128)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    created_by: str = Field(default="", max_length=128)
    removed_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


class WebhookDelivery(SQLModel, table=True):
    """One event sent (or to send) to one webhook: the exact body, how many attempts, how the last one ended."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),)

    id: str = Field(primary_key=True, max_length=32)
    webhook_id: int = Field(foreign_key="webhooks.id", index=True)
    event: str = Field(max_length=64)
    body: str = Field(sa_column=Column(Text(), nullable=False))
    status: str = Field(default="pending", max_length=16)  # pending, sending, delivered, failed
    attempts: int = 0
    last_status: int | None = None
    last_error: str = Field(default="", max_length=500)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    next_attempt_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    finished_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


__all__ = ["Webhook", "WebhookDelivery"]
