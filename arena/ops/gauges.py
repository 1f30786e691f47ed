"""The arena's state as `/metrics` gauges, read from the database at scrape time: open matchups, the age of the
newest snapshot and the job queue. Three small grouped queries on indexed columns, so a scrape every 15 s costs
little however many votes there are; being read at scrape time they are the same whichever worker answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Engine, exists, func, select

from arena.db.tables import JobRun, Matchup, Model, RatingSnapshot, Vote
from arena.ops.job_runs import JOBS


@dataclass(frozen=True)
class StateGauges:
    """Open matchups and seconds since the newest snapshot per modality, queued runs per job."""

    open_matchups: dict[str, int] = field(default_factory=dict)
    snapshot_age_seconds: dict[str, float] = field(default_factory=dict)
    queued_runs: dict[str, int] = field(default_factory=dict)


def read_state(engine: Engine, now: datetime, matchup_ttl_seconds: int) -> StateGauges:
    """The gauges at `now`. An open matchup was served, is not expired and has no vote yet; modalities with
    active models and none open read 0. Snapshot age is absent for a modality that was never snapshotted."""
    modalities = select(Model.modality).where(Model.active.is_(True)).distinct()  # type: ignore[attr-defined]
    voted = exists().where(Vote.matchup_id == Matchup.id)
    open_rows = (
        select(Matchup.modality, func.count())
        .where(
            Matchup.modality.in_(modalities),  # type: ignore[attr-defined]  # ix_matchups_window's prefix
            Matchup.served_at >= now - timedelta(seconds=matchup_ttl_seconds),  # type: ignore[operator]
            Matchup.expires_at > now,  # type: ignore[operator]
            ~voted,
        )
        .group_by(Matchup.modality)
    )
    newest = select(RatingSnapshot.modality, func.max(RatingSnapshot.created_at)).group_by(
        RatingSnapshot.modality
    )
    queued = select(JobRun.job, func.count()).where(JobRun.outcome == "queued").group_by(JobRun.job)
    with engine.connect() as conn:
        active = list(conn.execute(modalities).scalars())
        open_matchups = {m: 0 for m in active} | {m: int(n) for m, n in conn.execute(open_rows).all()}
        ages = {
            m: max(0.0, (now - at).total_seconds()) for m, at in conn.execute(newest).all() if at is not None
        }
        queue = {job: 0 for job in JOBS} | {job: int(n) for job, n in conn.execute(queued).all()}
    return StateGauges(open_matchups, ages, queue)
