"""Tables of the eval harness and the LLM judge: judge answer cache, eval runs, results, scores, human labels,
calibration anchors, automatic grades of arena outputs and the eval generation cache. Imported by
`arena.db.tables` so one metadata holds every table; migration 0008 creates them (0020 the generation cache).
"""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel

from arena.db.types import UtcDateTime, utcnow


def _now_column() -> Column:
    return Column(UtcDateTime(), nullable=False)


class JudgeCacheEntry(SQLModel, table=True):
    """One judge answer, keyed by (rubric version, judge model, hash of everything sent): a repeat is free."""

    __tablename__ = "judge_cache"
    __table_args__ = (
        UniqueConstraint("rubric_version", "judge_model", "inputs_hash", name="uq_judge_cache_key"),
    )

    id: int | None = Field(default=None, primary_key=True)
    rubric_version: str = Field(max_length=128)
    judge_model: str = Field(max_length=128)
    inputs_hash: str = Field(max_length=64)
    rubric_id: str = Field(default="", max_length=128)
    status: str = Field(max_length=16)
    data: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    reason: str = ""
    attempts: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())


class EvalRun(SQLModel, table=True):
    """One `arena eval run` of a suite: where its folder is, what it ran, and its summary once finished."""

    __tablename__ = "eval_runs"

    id: str = Field(primary_key=True, max_length=64)
    suite_name: str = Field(max_length=128)
    suite_path: str = Field(default="", max_length=1024)
    suite_sha256: str = Field(default="", max_length=64)
    workflow: str = Field(default="", max_length=64)
    out_dir: str = Field(default="", max_length=1024)
    kind: str = Field(default="suite", max_length=16)
    status: str = Field(default="running", max_length=16)
    exit_code: int | None = None
    summary: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    started_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())
    finished_at: datetime | None = Field(default=None, sa_column=Column(UtcDateTime()))


class EvalResult(SQLModel, table=True):
    """One (case x model run x sample) of a run: the artifact (or why there is none) and the verdict."""

    __tablename__ = "eval_results"
    __table_args__ = (
        UniqueConstraint("run_id", "case_id", "run_label", "sample", name="uq_eval_results_item"),
        Index("ix_eval_results_run_verdict", "run_id", "verdict"),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="eval_runs.id", max_length=64)
    case_id: str = Field(max_length=128)
    run_label: str = Field(max_length=256)
    sample: int = 0
    model_slug: str = Field(max_length=64)
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(max_length=16)
    error: str = ""
    artifact_path: str = Field(default="", max_length=1024)
    artifact_sha256: str = Field(default="", max_length=64)
    verdict: str = Field(default="", max_length=16)
    failure_tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    latency_s: float | None = None
    source: str = Field(default="", max_length=16)  # generated | cache | given ("" before 0020, or none)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())


class EvalGeneration(SQLModel, table=True):
    """A successful eval generation, keyed by the hash of everything that made it (arena.evals.gen_cache):
    a later run asking the same thing reuses the image instead of calling the provider again."""

    __tablename__ = "eval_generation_cache"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=64, unique=True)
    model_slug: str = Field(max_length=64)
    image: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    image_sha256: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())


class EvalScore(SQLModel, table=True):
    """One score of one result: a gate (pass/fail), a graded metric (0-5) or an informative value."""

    __tablename__ = "eval_scores"
    __table_args__ = (UniqueConstraint("result_id", "key", name="uq_eval_scores_key"),)

    id: int | None = Field(default=None, primary_key=True)
    result_id: int = Field(foreign_key="eval_results.id")
    key: str = Field(max_length=128)
    grader: str = Field(max_length=64)
    kind: str = Field(max_length=16)
    value: float | None = None
    passed: bool | None = None
    reason: str = ""
    failure_tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class CalibrationAnchor(SQLModel, table=True):
    """A calibration item (good / medium / bad) with reference labels that labellers and the judge re-score."""

    __tablename__ = "eval_anchors"

    id: int | None = Field(default=None, primary_key=True)
    workflow: str = Field(max_length=64)
    name: str = Field(max_length=128, unique=True)
    grade: str = Field(max_length=16)
    result_id: int | None = Field(default=None, foreign_key="eval_results.id")
    reference_labels: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())


class EvalLabel(SQLModel, table=True):
    """Quick labels and failure tags a person (or the judge, re-scoring an anchor) gave one result."""

    __tablename__ = "eval_labels"
    __table_args__ = (Index("ix_eval_labels_result", "result_id"),)

    id: int | None = Field(default=None, primary_key=True)
    result_id: int = Field(foreign_key="eval_results.id")
    anchor_id: int | None = Field(default=None, foreign_key="eval_anchors.id")
    labeller: str = Field(max_length=128)
    source: str = Field(default="human", max_length=16)
    labels: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    failure_tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    note: str = ""
    created_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())


class OutputGrade(SQLModel, table=True):
    """An automatic grade of one arena output (e.g. OCR exact text of a text-rendering prompt)."""

    __tablename__ = "output_grades"
    __table_args__ = (
        UniqueConstraint("output_id", "grader", name="uq_output_grades_output_grader"),
        Index("ix_output_grades_grader_model", "grader", "model_slug"),
    )

    id: int | None = Field(default=None, primary_key=True)
    output_id: int = Field(foreign_key="outputs.id")
    model_slug: str = Field(max_length=64)
    prompt_id: str = Field(max_length=80)
    grader: str = Field(max_length=64)
    passed: bool | None = None
    value: float | None = None
    reason: str = ""
    created_at: datetime = Field(default_factory=utcnow, sa_column=_now_column())
