"""The database tables. Schema changes go through an Alembic migration in `arena/db/migrations/versions`."""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime, Float, Index, LargeBinary, UniqueConstraint, text
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Timezone-aware now in UTC: every stored time is UTC."""
    return datetime.now(UTC)


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
    retired_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
    batch: str = Field(max_length=16)
    source: str = Field(default="", max_length=256)
    created_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )


class TimingPrompt(SQLModel, table=True):
    """A prompt of the curated timing set: drawn fresh for every timed generation call."""

    __tablename__ = "timing_prompts"

    id: str = Field(primary_key=True, max_length=80)
    text: str
    active: bool = True


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
    updated_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )


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
    created_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )
    published_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class LatencySample(SQLModel, table=True):
    """One timed generation call of a timing run: seconds from request to last byte, or the failure."""

    __tablename__ = "latency_samples"
    __table_args__ = (Index("ix_latency_model_time", "model_slug", "started_at"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(max_length=64)
    model_slug: str = Field(foreign_key="models.slug", max_length=64)
    timing_prompt_id: str | None = Field(default=None, foreign_key="timing_prompts.id", max_length=80)
    started_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    status: str = Field(max_length=16)
    seconds: float | None = None
    first_byte_seconds: float | None = None
    width: int | None = None
    height: int | None = None
    error_kind: str | None = Field(default=None, max_length=32)
    error_message: str | None = None


class JobRun(SQLModel, table=True):
    """One execution of a scheduled or operator-triggered job: when, how long, and how it ended."""

    __tablename__ = "job_runs"
    __table_args__ = (Index("ix_job_runs_job", "job", "started_at"),)

    id: int | None = Field(default=None, primary_key=True)
    job: str = Field(max_length=64)
    started_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    finished_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
    outcome: str = Field(default="running", max_length=16)
    message: str = ""
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class SchedulerLease(SQLModel, table=True):
    """A lease that lets exactly one process run the scheduler; renewed while it lives."""

    __tablename__ = "scheduler_leases"

    name: str = Field(primary_key=True, max_length=64)
    holder: str = Field(max_length=128)
    expires_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class RetirementReport(SQLModel, table=True):
    """A monthly retirement report: flagged prompts with statistics, coverage after retirement, approval."""

    __tablename__ = "retirement_reports"

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )
    status: str = Field(default="draft", max_length=16)
    report: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    approved_by: str | None = Field(default=None, max_length=128)
    applied_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class CorpusPrompt(SQLModel, table=True):
    """A recent real-world prompt of the live corpus that freshness checks compare the pool against."""

    __tablename__ = "corpus_prompts"

    id: int | None = Field(default=None, primary_key=True)
    text: str
    month: str = Field(max_length=7)
    source: str = Field(default="", max_length=256)
    imported_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )


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
    at: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))
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
    created_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )
    created_by: str = Field(default="", max_length=128)
    revoked_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class OperatorSession(SQLModel, table=True):
    """A console sign-in: looked up on every request by the SHA-256 of its random id; sign-out revokes it."""

    __tablename__ = "operator_sessions"

    id_hash: str = Field(primary_key=True, max_length=64)
    operator_name: str = Field(max_length=64)
    role: str = Field(max_length=16)
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    expires_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    revoked_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


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
    served_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    voted_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
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
    served_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    expires_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    left_fetched_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
    right_fetched_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class VoteVerdict(SQLModel, table=True):
    """One filter's verdict on one vote (kept or filtered, why, by which filter version)."""

    __tablename__ = "vote_verdicts"

    vote_id: int = Field(foreign_key="votes.id", primary_key=True)
    filter: str = Field(primary_key=True, max_length=32)
    filter_version: str = Field(max_length=16)
    kept: bool
    reason: str = ""
    decided_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )


class VoteTally(SQLModel, table=True):
    """Votes counted per group of everything a board reads (cell, pair, outcome, methodology, source, prompt):
    all of them and the kept ones. Kept up to date incrementally (`arena.vote_tallies`), so the rating job and
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
    counted_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class SnapshotTally(SQLModel, table=True):
    """Win / loss / tie counts per model pair and per (model, cell) of the votes one snapshot counted, stored
    with it so a model page never counts votes (`arena.leaderboard.tallies`)."""

    __tablename__ = "snapshot_tallies"
    __table_args__ = (Index("ix_snapshot_tallies_at", "modality", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    modality: str = Field(max_length=32)
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
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
    ran_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class RatingSnapshot(SQLModel, table=True):
    """A computed board: its rows, the vote count and every parameter needed to recompute it."""

    __tablename__ = "rating_snapshots"
    __table_args__ = (Index("ix_snapshots_board", "modality", "board", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )
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


class SchedulerJob(SQLModel, table=True):
    """APScheduler's persistent job store (the layout of its SQLAlchemyJobStore): one pickled job per row.

    Declared here so the migrations create it and `arena jobs` / the admin page can read `next_run_time`
    without importing the scheduler.
    """

    __tablename__ = "apscheduler_jobs"

    id: str = Field(primary_key=True, max_length=191)
    next_run_time: float | None = Field(default=None, sa_column=Column(Float(25), index=True))
    job_state: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class JudgeRun(SQLModel, table=True):
    """One run of the LLM judge (a calibration sample of voted matchups, or the calibration set): which
    judge model, parameters and rubric versions, how it ended. Judge output never enters the human boards."""

    __tablename__ = "judge_runs"

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=32)
    created_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )
    finished_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
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
    created_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )


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
    created_at: datetime = Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False)
    )


__all__ = [
    "AuditEntry",
    "BatchFilterMark",
    "CorpusPrompt",
    "JobRun",
    "JudgeCalibrationScore",
    "JudgeRun",
    "JudgeVerdict",
    "LatencySample",
    "Matchup",
    "Model",
    "Operator",
    "OperatorSession",
    "Output",
    "Prompt",
    "RatingSnapshot",
    "ReferenceImage",
    "RetirementReport",
    "SchedulerJob",
    "SchedulerLease",
    "TaxonomyLabel",
    "TimingPrompt",
    "Vote",
    "VoteVerdict",
    "utcnow",
]

# The eval harness and judge tables live in their own module; importing it registers them on the same metadata.
import arena.db.eval_tables  # noqa: E402, F401
