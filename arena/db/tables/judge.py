"""The LLM judge's runs, verdicts and calibration scores."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


class JudgeRun(SQLModel, table=True):
    """One run of the LLM judge (a calibration sample of voted matchups, or the calibration set): which
    judge model, parameters and rubric versions, how it ended. Judge output never enters the human boards."""

    __tablename__ = "judge_runs"

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=32)
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))
    finished_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))
    status: str = Field(default="running", max_length=16)
    judge_model: str = Field(max_length=128)
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    rubrics: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    message: str = ""


class JudgeVerdict(SQLModel, table=True):
    """The judge's pairwise verdict on one human-voted matchup (both orders), beside the human tally it is
    compared with. Stored apart from `votes`: nothing here feeds a human board."""

    __tablename__ = "judge_verdicts"
    __table_args__ = (UniqueConstraint("run_id", "output_a_id", "output_b_id", name="uq_judge_verdict_pair"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="judge_runs.id", index=True)
    modality: str = Field(max_length=32)
    prompt_id: str = Field(foreign_key="prompts.id", max_length=80)
    use_case: str = Field(max_length=64)
    capability: str = Field(max_length=64)
    model_a: str = Field(foreign_key="models.slug", max_length=64)
    model_b: str = Field(foreign_key="models.slug", max_length=64)
    output_a_id: int = Field(foreign_key="outputs.id")
    output_b_id: int = Field(foreign_key="outputs.id")
    human_a: int
    human_b: int
    human_tie: int
    human_outcome: int
    answer_a_left: str | None = Field(default=None, max_length=8)
    answer_b_left: str | None = Field(default=None, max_length=8)
    reason_a_left: str = ""
    reason_b_left: str = ""
    outcome: int | None = None
    position_flip: bool = False
    order_dependent: bool = False
    unscored_reason: str | None = None
    rubric_scenario: str = Field(max_length=64)
    rubric_version: str = Field(max_length=32)
    rubric_digest: str = Field(max_length=16)
    judge_model: str = Field(max_length=128)
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))


class JudgeCalibrationScore(SQLModel, table=True):
    """The judge's single-output score of one calibration reference (ideal / medium / bad) under one rubric
    version: the drift report compares these across rubric versions and time."""

    __tablename__ = "judge_calibration_scores"

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(foreign_key="judge_runs.id", index=True)
    scenario: str = Field(max_length=64)
    rubric_version: str = Field(max_length=32)
    rubric_digest: str = Field(max_length=16)
    judge_model: str = Field(max_length=128)
    item_id: str = Field(max_length=80)
    reference_grade: str = Field(max_length=8)
    scores: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    overall: float | None = None
    verdict: str | None = Field(default=None, max_length=8)
    grade: str | None = Field(default=None, max_length=8)
    reason: str = ""
    unscored_reason: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(UtcDateTime(), nullable=False))


__all__ = ["JudgeCalibrationScore", "JudgeRun", "JudgeVerdict"]
