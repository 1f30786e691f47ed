"""Rating snapshots: every board of every modality computed from the kept votes and stored with the time,
the vote count, the filter and methodology versions and every parameter, so a published board can be
recomputed from an export (`arena export` then `arena ratings fit`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Engine, insert, select

from arena.db.tables import Model, RatingSnapshot, utcnow
from arena.leaderboard.differences import differences_payload
from arena.leaderboard.snapshot_counts import pick_examples, store_tallies
from arena.ops.webhook_delivery import emit
from arena.runtime.shared_state import page_generation
from arena.settings import Settings
from arena.voting.filters.batch import run_batch_filters
from arena.voting.filters.registry import REGISTRY
from arena.voting.kept_votes import counted_rows
from arena.voting.tallies import kept_groups, update_tallies
from ratings import Board, CohortRule, compute_all_boards
from ratings.certainty import SETTLE_PROBABILITY

#: How intervals and ranks are computed (stored with each board): replicates shifted by one constant per
#: board, ranks from intervals of pairwise differences, so the anchor changes neither (see ratings.intervals).
UNCERTAINTY_RULE = "one-shift-intervals+simultaneous-pairwise-ranks+prompt-clusters"


def board_anchor(configured: str, models: list[Model]) -> str:
    """The configured anchor when it is a registered model of this modality, else the model flagged `anchor`."""
    slugs = {m.slug for m in models}
    if configured in slugs:
        return configured
    flagged = sorted(m.slug for m in models if m.anchor)
    return flagged[0] if flagged else configured


@dataclass
class SnapshotReport:
    """What `arena ratings snapshot` stored, and which boards could not be fitted and why."""

    created_at: datetime
    boards: dict[str, int] = field(default_factory=dict)  # "modality/board" -> vote count
    failures: dict[str, str] = field(default_factory=dict)
    filtered: dict[str, int] = field(default_factory=dict)


def take_snapshot(
    engine: Engine,
    settings: Settings,
    *,
    modality: str | None = None,
    seed: int = 0,
    refilter: bool = True,
    now: datetime | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    filter_progress: Callable[[str, int, int], None] | None = None,
) -> SnapshotReport:
    """Run the batch filters, then compute and store every board of each modality (or of one);
    `progress(modality, boards done, boards of the modality)` is called after each board and
    `filter_progress(stage, groups done, groups of the stage)` after each chunk of the filter pass (the long part
    of a first run after an upgrade)."""
    report = SnapshotReport(created_at=now or utcnow())
    filter_version = REGISTRY.filter_version()
    if refilter:
        report.filtered = dict(
            run_batch_filters(engine, modality=modality, now=report.created_at, progress=filter_progress)
        )
    else:
        update_tallies(engine)
    with engine.connect() as conn:
        models = [Model.model_validate(r._mapping) for r in conn.execute(select(Model)).all()]
        modalities = [modality] if modality else sorted({m.modality for m in models})
        for mod in modalities:
            mine = [m for m in models if m.modality == mod]
            groups = kept_groups(conn, mod, include_simulated=settings.demo_mode)
            if not groups:
                report.failures[f"{mod}/overall"] = "no kept votes"
                continue
            overall_anchor = board_anchor(settings.overall_anchor, mine)
            slice_anchor = board_anchor(settings.slice_anchor, mine)
            current = frozenset(m.slug for m in mine if m.cohort == "current")
            rule = CohortRule(settings.methodology_version, current)
            boards = compute_all_boards(
                counted_rows(groups, rule),
                overall_anchor=overall_anchor,
                slice_anchor=slice_anchor,
                interval=settings.interval_method,
                n_bootstrap=settings.bootstrap_rounds,
                seed=seed,
                min_votes=settings.min_votes,
                progress=None
                if progress is None
                else lambda done, total, mod=mod: progress(mod, done, total),
            )
            for key, message in _failures(boards):
                report.failures[f"{mod}/{key}"] = message
            records = []
            for board in boards.boards.values():
                record = snapshot_record(
                    board, mod, settings, current, filter_version=filter_version, created_at=report.created_at
                )
                records.append(record)
                report.boards[f"{mod}/{record['board']}"] = record["vote_count"]
            if records:
                with engine.begin() as write:
                    write.execute(insert(RatingSnapshot), records)
                    examples = pick_examples(write, mod, rule, include_simulated=settings.demo_mode)
                    store_tallies(write, mod, report.created_at, groups, rule, examples)
    if report.boards and (generation := page_generation(settings)) is not None:
        generation.bump()  # every process's cached leaderboard pages now show the new snapshot
    refresh_planner_statistics(engine)
    if report.boards:
        published = {
            "created_at": report.created_at.isoformat(),
            "boards": report.boards,
            "failures": report.failures,
        }
        emit(engine, settings, "snapshot.published", published)
    return report


def snapshot_record(
    board: Board,
    modality: str,
    settings: Settings,
    current: frozenset[str],
    *,
    filter_version: str,
    created_at: datetime,
) -> dict[str, Any]:
    """One computed board as a `rating_snapshots` row: its rows, the vote count and every parameter needed to
    recompute it (`current`: the current-cohort models of the modality)."""
    key = str(board.key)
    params = {
        "anchor": board.anchor,
        "anchor_rating": board.anchor_rating,
        "interval": board.interval,
        "level": board.level,
        "uncertainty": UNCERTAINTY_RULE,
        # votes_to_settle is quoted for this chance of settling (absent: the older rule, gap taken as exact)
        "settle_probability": SETTLE_PROBABILITY,
        "n_bootstrap": board.n_bootstrap,
        "seed": board.seed,
        "min_votes": board.min_votes,
        "include_simulated": settings.demo_mode,
        "current_cohort": sorted(current),
        "cell_balanced": key == "overall",
        "excluded": [dataclasses.asdict(e) for e in board.excluded],
        "notes": list(board.notes),
        "clusters": board.n_clusters,  # prompts the intervals resample (0: vote-level)
    }
    return {
        "created_at": created_at,
        "modality": modality,
        "board": key,
        "vote_count": int(board.counts.votes.sum()) if board.counts is not None else 0,
        "filter_version": filter_version,
        "methodology_version": settings.methodology_version,
        "params": params,
        "rows": [stored_row(r) for r in board.rows],
        "differences": stored_differences(board),
    }


def refresh_planner_statistics(engine: Engine) -> None:
    """Refresh SQLite's query-planner statistics (sampled: at most 10,000 index rows per index, so the cost does
    not grow with the vote count). Without them SQLite reads a model pair's votes through the modality index,
    i.e. every vote of the modality (the head-to-head page: 280 ms instead of 6 ms at 100,000 votes).
    PostgreSQL's autovacuum keeps its own statistics."""
    if engine.dialect.name != "sqlite":
        return
    with engine.begin() as conn:
        conn.exec_driver_sql("PRAGMA analysis_limit=10000")
        conn.exec_driver_sql("ANALYZE")


def stored_row(row: Any) -> dict[str, Any]:
    """A board row as JSON-safe values: numpy scalars unwrapped, unbounded interval ends stored as null
    (JSON has no infinity, and PostgreSQL refuses it)."""
    out = {}
    for key, value in dataclasses.asdict(row).items():
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            value = None
        out[key] = value
    return out


def stored_differences(board: Board) -> dict[str, Any] | None:
    """The board's pairwise standard errors and critical value as a snapshot stores them (rows' order)."""
    if board.difference_se is None:
        return None
    models = list(board.counts.models)
    order = [models.index(r.model) for r in board.rows]
    se = board.difference_se[np.ix_(order, order)]
    return differences_payload([r.model for r in board.rows], se, board.critical, board.level)


def _failures(boards: Any) -> list[tuple[str, str]]:
    return [(str(key), str(error)) for key, error in boards.failures.items()]
