"""Operations: job runs, the scheduler's lease and job store, the audit log, operators and their sessions."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Float, Index, LargeBinary
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


class JobRun(SQLModel, table=True):
    """One execution of a scheduled or operator-triggered job: when, how long, and how it ended."""

    __tablename__ = "job_runs"
    __table_args__ = (Index("ix_job_runs_job", "job", "started_at"),)

    id: int | None = Field(default=None, primary_key=True)
    job: str = Field(max_length=64)
    started_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    finished_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    outcome: str = Field(default="running", max_length=16)
    message: str = ""
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class SchedulerLease(SQLModel, table=True):
    """A lease that lets exactly one process run the scheduler; renewed while it lives."""

    __tablename__ = "scheduler_leases"

    name: str = Field(primary_key=True, max_length=64)
    holder: str = Field(max_length=128)
    expires_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))


class SchedulerJob(SQLModel, table=True):
    """APScheduler's persistent job store (the layout of its SQLAlchemyJobStore): one pickled job per row.

    Declared here so the migrations create it and `arena jobs` / the admin page can read `next_run_time`
    without importing the scheduler.
    """

    __tablename__ = "apscheduler_jobs"

    id: str = Field(primary_key=True, max_length=191)
    next_run_time: float | None = Field(default=None, sa_column=Column(Float(25), index=True))
    job_state: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class AuditEntry(SQLModel, table=True):
    """Who did what, when, from where (cli / web / system), to what, with the state before and after.

    Append-only: the migration adds database triggers that refuse UPDATE and DELETE on this table.
    """

    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_log_actor", "actor", "at"),
        Index("ix_audit_log_action", "action", "at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    actor: str = Field(max_length=128)
    action: str = Field(max_length=64)
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    source: str = Field(default="system", max_length=16, sa_column_kwargs={"server_default": "system"})
    target: str = Field(default="", max_length=128, sa_column_kwargs={"server_default": ""})
    before: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    after: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class Operator(SQLModel, table=True):
    """A named operator: role (admin / operator / viewer) and the argon2 hash of their token, never the token.

    `key_id` is the token's public prefix, so a presented token is checked against one hash, not all of them.
    """

    __tablename__ = "operators"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True)
    role: str = Field(max_length=16)
    key_id: str = Field(max_length=32, unique=True)
    token_hash: str = Field(max_length=256)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    created_by: str = Field(default="", max_length=128)
    revoked_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


class OperatorSession(SQLModel, table=True):
    """A console sign-in: looked up on every request by the SHA-256 of its random id; sign-out revokes it."""

    __tablename__ = "operator_sessions"

    id_hash: str = Field(primary_key=True, max_length=64)
    operator_name: str = Field(max_length=64)
    role: str = Field(max_length=16)
    created_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    expires_at: datetime = Field(sa_column=Column(UtcDateTime(), nullable=False))
    revoked_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


__all__ = ["AuditEntry", "JobRun", "Operator", "OperatorSession", "SchedulerJob", "SchedulerLease"]
