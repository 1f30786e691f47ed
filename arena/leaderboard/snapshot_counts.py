"""Win / loss / tie counts per model pair and per (model, cell), as numpy arrays stored with each snapshot.

The snapshot job computes them from the grouped kept votes it already read, so a model page reads a few
kilobytes instead of counting votes (`arena.leaderboard.published_counts` falls back to counting for snapshots stored
without them). Kept outside `arena.leaderboard` so the snapshot job can import it without the page readers.
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Connection, delete, func, insert, select

from arena.db.tables import Prompt, SnapshotTally, Vote
from arena.voting.kept_votes import kept_filter
from ratings import CohortRule, cohort_keep_mask
from ratings.record import Record

#: Snapshots per modality whose tallies stay stored (older ones, read by history pages, are counted again).
KEEP_STORED = 8
#: Latest decided votes of each retired prompt that model-page examples are picked from.
PER_PROMPT = 40
_OUTCOME = {"model_a": 0, "model_b": 1}


@dataclass
class Tallies:
    """Per model: a record against each opponent and a record per taxonomy cell."""

    opponents: dict[str, dict[str, Record]] = field(default_factory=lambda: defaultdict(dict))
    cells: dict[str, dict[tuple[str, str], Record]] = field(default_factory=lambda: defaultdict(dict))
    votes: int = 0


def arrays(
    a_col: list[str],
    b_col: list[str],
    winner: list[str],
    uc: list[str],
    cap: list[str],
    n: list[int],
    keep: np.ndarray,
) -> tuple[list[str], list[tuple[str, str]], np.ndarray, np.ndarray]:
    """Grouped vote columns summed into per-pair and per-(model, cell) outcome arrays (numpy: with many models
    nearly every vote is its own group, so the per-group work must not be Python)."""
    models = sorted(set(a_col) | set(b_col))
    index = {m: k for k, m in enumerate(models)}
    cells = sorted(set(zip(uc, cap, strict=True)))
    cell_index = {c: k for k, c in enumerate(cells)}
    a = np.fromiter((index[m] for m in a_col), np.int64, len(a_col))[keep]
    b = np.fromiter((index[m] for m in b_col), np.int64, len(b_col))[keep]
    c = np.fromiter((cell_index[x] for x in zip(uc, cap, strict=True)), np.int64, len(uc))[keep]
    outcome = np.fromiter((_OUTCOME.get(w, 2) for w in winner), np.int64, len(winner))[keep]
    count = np.asarray(n, dtype=np.int64)[keep]
    k = len(models)
    # outcome from a's side: 0 win, 1 loss, 2 tie; b's side swaps win and loss
    pair = np.zeros((k, k, 3), np.int64)
    np.add.at(pair, (a, b, outcome), count)
    np.add.at(pair, (b, a, np.array([1, 0, 2])[outcome]), count)
    cell = np.zeros((k, len(cells), 3), np.int64)
    np.add.at(cell, (a, c, outcome), count)
    np.add.at(cell, (b, c, np.array([1, 0, 2])[outcome]), count)
    return models, cells, pair, cell


def tallies_of(
    models: list[str], cells: list[tuple[str, str]], pair: np.ndarray, cell: np.ndarray
) -> Tallies:
    tallies = Tallies()
    for i, j in zip(*np.nonzero(pair.sum(axis=2)), strict=True):
        w, lo, t = (int(x) for x in pair[i, j])
        tallies.opponents[models[i]][models[j]] = Record(w, lo, t)
    for i, j in zip(*np.nonzero(cell.sum(axis=2)), strict=True):
        w, lo, t = (int(x) for x in cell[i, j])
        tallies.cells[models[i]][cells[j]] = Record(w, lo, t)
    tallies.votes = int(pair.sum()) // 2
    return tallies


def retired_basis(conn: Connection, modality: str) -> str:
    """Which retired prompts examples were picked from, in a few bytes: their number and the latest retirement
    (a retirement or a prompt made active again changes it)."""
    n, latest = conn.execute(
        select(func.count(), func.max(Prompt.retired_at)).where(
            Prompt.modality == modality, Prompt.status != "active"
        )
    ).one()
    return f"{int(n)}:{latest.isoformat() if latest is not None else ''}"[:64]


def pick_examples(
    conn: Connection,
    modality: str,
    rule: CohortRule,
    *,
    include_simulated: bool,
    until: datetime | None = None,
    per_kind: int = 3,
) -> dict[str, list[int]]:
    """Vote ids of up to `per_kind` recent wins and losses of every model (one per prompt each), among the
    latest `PER_PROMPT` decided, counted votes of each retired prompt: a few index look-ups per retired prompt
    instead of a scan of every vote of a model. Only retired prompts: a captioned image must never be one a
    voter can still meet in a blind matchup. `until`: only votes cast by then (a published snapshot's)."""
    retired = [  # "retired", not "not active": prompts of imported public votes have no images to show
        p
        for (p,) in conn.execute(
            select(Prompt.id).where(Prompt.modality == modality, Prompt.status == "retired")
        )
    ]
    candidates: list[Any] = []
    for prompt_id in retired:
        candidates += conn.execute(
            select(Vote.id, Vote.model_a, Vote.model_b, Vote.winner, Vote.methodology, Vote.prompt_id)
            .where(
                Vote.prompt_id == prompt_id,
                Vote.winner.in_(("model_a", "model_b")),
                Vote.left_output_id.is_not(None),
                Vote.right_output_id.is_not(None),
                *kept_filter(modality, include_simulated=include_simulated),
                *([Vote.voted_at <= until] if until is not None else []),
            )
            .order_by(Vote.id.desc())
            .limit(PER_PROMPT)
        ).all()
    if not candidates:
        return {}
    candidates.sort(key=lambda r: -r.id)
    keep = cohort_keep_mask([r.model_a for r in candidates], [r.model_b for r in candidates],
                            [r.methodology for r in candidates], rule)  # fmt: skip
    chosen: dict[tuple[str, bool], list[int]] = defaultdict(list)
    seen: set[tuple[str, bool, str]] = set()
    for row, kept in zip(candidates, keep.tolist(), strict=True):
        if not kept:
            continue
        for slug in (row.model_a, row.model_b):
            won = (row.winner == "model_a") == (row.model_a == slug)
            if len(chosen[slug, won]) < per_kind and (slug, won, row.prompt_id) not in seen:
                chosen[slug, won].append(int(row.id))
                seen.add((slug, won, row.prompt_id))
    out: dict[str, list[int]] = defaultdict(list)
    for (slug, _won), ids in sorted(chosen.items(), key=lambda kv: (kv[0][0], not kv[0][1])):
        out[slug] += ids
    return dict(out)


def store_tallies(
    conn: Connection,
    modality: str,
    created_at: datetime,
    groups: Sequence[Any],
    rule: CohortRule,
    examples: dict[str, list[int]] | None = None,
) -> None:
    """Store the tallies of the votes a snapshot counted (its grouped kept votes: use case, capability,
    model_a, model_b, winner, methodology, [prompt,] count), keeping those of the latest `KEEP_STORED` snapshots."""
    if not groups:
        return
    uc, cap, a_col, b_col, winner, meth, *_, n = (list(c) for c in zip(*groups, strict=True))
    keep = cohort_keep_mask(a_col, b_col, meth, rule)
    models, cells, pair, cell = arrays(a_col, b_col, winner, uc, cap, n, keep)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, pair=pair.astype(np.int32), cell=cell.astype(np.int32))
    conn.execute(
        insert(SnapshotTally).values(
            modality=modality,
            created_at=created_at,
            models=models,
            cells=[list(c) for c in cells],
            counts=buffer.getvalue(),
            votes=int(pair.sum()) // 2,
            examples=examples or {},
            examples_basis=retired_basis(conn, modality),
        )
    )
    old = (
        select(SnapshotTally.id)
        .where(SnapshotTally.modality == modality)
        .order_by(SnapshotTally.created_at.desc(), SnapshotTally.id.desc())
        .offset(KEEP_STORED)
    )
    stale = [i for (i,) in conn.execute(old)]
    if stale:
        conn.execute(delete(SnapshotTally).where(SnapshotTally.id.in_(stale)))


def stored_examples(conn: Connection, modality: str, created_at: datetime) -> dict[str, list[int]] | None:
    """Example vote ids per model stored with the snapshot of `modality` taken at `created_at`, if it has them
    and no prompt was retired (or made active) since."""
    row = conn.execute(
        select(SnapshotTally.examples, SnapshotTally.examples_basis)
        .where(SnapshotTally.modality == modality, SnapshotTally.created_at == created_at)
        .order_by(SnapshotTally.id.desc())
        .limit(1)
    ).first()
    if row is None or row[1] != retired_basis(conn, modality):
        return None
    return dict(row[0] or {})


def stored_tallies(conn: Connection, modality: str, created_at: datetime) -> Tallies | None:
    """The tallies stored with the snapshot of `modality` taken at `created_at`, if it has them."""
    row = conn.execute(
        select(SnapshotTally.models, SnapshotTally.cells, SnapshotTally.counts)
        .where(SnapshotTally.modality == modality, SnapshotTally.created_at == created_at)
        .order_by(SnapshotTally.id.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    stored = np.load(io.BytesIO(row.counts))
    cells = [(c[0], c[1]) for c in row.cells]
    return tallies_of(list(row.models), cells, stored["pair"], stored["cell"])
