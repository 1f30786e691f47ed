"""The database tables, one module per domain; importing this package registers every table (the eval harness's
in `arena.db.eval_tables` too) on SQLModel's metadata. Schema changes go through an Alembic migration in
`arena/db/migrations/versions`."""

import arena.db.eval_tables  # noqa: F401  (registers the eval harness and judge cache tables)
from arena.db import private_tables  # noqa: F401  (private matchup sets of eval outputs)
from arena.db.tables.generation import LatencySample, Model, Output
from arena.db.tables.judge import JudgeCalibrationScore, JudgeRun, JudgeVerdict
from arena.db.tables.kwise import KwiseImage, KwiseMatchup, KwiseVerdict, KwiseVote
from arena.db.tables.open_prompts import OpenBattle, OpenSpend, OpenSwitch, OpenVote, OpenVoteVerdict
from arena.db.tables.ops import AuditEntry, JobRun, Operator, OperatorSession, SchedulerJob, SchedulerLease
from arena.db.tables.prompts import (
    CorpusPrompt,
    Prompt,
    ReferenceImage,
    RetirementReport,
    TaxonomyLabel,
    TimingPrompt,
)
from arena.db.tables.voting import (
    BatchFilterMark,
    Matchup,
    RatingSnapshot,
    SnapshotTally,
    TallyMark,
    Vote,
    VoteTally,
    VoteVerdict,
)
from arena.db.tables.webhooks import Webhook, WebhookDelivery
from arena.db.types import UtcDateTime, utcnow

__all__ = [
    "AuditEntry",
    "BatchFilterMark",
    "CorpusPrompt",
    "JobRun",
    "JudgeCalibrationScore",
    "JudgeRun",
    "JudgeVerdict",
    "KwiseImage",
    "KwiseMatchup",
    "KwiseVerdict",
    "KwiseVote",
    "LatencySample",
    "Matchup",
    "Model",
    "OpenBattle",
    "OpenSpend",
    "OpenSwitch",
    "OpenVote",
    "OpenVoteVerdict",
    "Operator",
    "OperatorSession",
    "Output",
    "Prompt",
    "RatingSnapshot",
    "ReferenceImage",
    "RetirementReport",
    "SchedulerJob",
    "SchedulerLease",
    "SnapshotTally",
    "TallyMark",
    "TaxonomyLabel",
    "TimingPrompt",
    "UtcDateTime",
    "Vote",
    "VoteTally",
    "VoteVerdict",
    "Webhook",
    "WebhookDelivery",
    "utcnow",
]
