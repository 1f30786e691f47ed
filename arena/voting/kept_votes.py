"""Kept votes counted in the database: one row per (cell, pair, outcome, methodology) with its vote count.

The rating job reads these groups instead of the votes themselves, so its memory and transfer depend on the
number of models, cells and methodology versions, never on the number of votes. `ratings.count_votes` turns
the groups into the same rows (hence the same boards, to the digit) as the individual votes would give.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, and_, exists, false, func, select

from arena.db.tables import Vote, VoteVerdict
from ratings import CohortRule, VoteRows, Votes, count_votes


def kept_votes_query(modality: str, *, include_simulated: bool) -> Any:
    """Votes of `modality` that no verdict filters (optionally leaving out simulated votes), oldest first."""
    return (
        select(
            Vote.id,
            Vote.model_a,
            Vote.model_b,
            Vote.winner,
            Vote.use_case,
            Vote.capability,
            Vote.methodology,
            Vote.session_id,
            Vote.prompt_id,
            Vote.source,
        )
        .where(*kept_filter(modality, include_simulated=include_simulated))
        .order_by(Vote.id)
    )


def filtered_clause() -> Any:
    """True for a vote that some verdict filters."""
    return exists().where(and_(VoteVerdict.vote_id == Vote.id, VoteVerdict.kept == false()))


def kept_filter(modality: str, *, include_simulated: bool) -> list[Any]:
    """WHERE clauses of the kept votes of `modality` (what `kept_votes_query` selects)."""
    clauses = [Vote.modality == modality, ~filtered_clause()]
    if not include_simulated:
        clauses.append(Vote.source != "simulated")
    return clauses


def grouped_kept_votes(
    conn: Connection,
    modality: str,
    *,
    include_simulated: bool,
    where: Sequence[Any] = (),
    by_prompt: bool = False,
) -> list[Any]:
    """The kept votes of `modality` (and of the extra `where` clauses) grouped by everything the boards read,
    with a count per group. `by_prompt` groups by the prompt too (a seventh column before the count), so the
    boards' intervals resample prompts (`ratings.aggregate`); rows grow with prompts x pairs, not with votes."""
    cols: tuple[Any, ...] = (
        Vote.use_case,
        Vote.capability,
        Vote.model_a,
        Vote.model_b,
        Vote.winner,
        Vote.methodology,
    )
    if by_prompt:
        cols = (*cols, Vote.prompt_id)
    query = (
        select(*cols, func.count())
        .where(*kept_filter(modality, include_simulated=include_simulated), *where)
        .group_by(*cols)
        .order_by(*cols)
    )
    return list(conn.execute(query).all())


def counted_rows(groups: list[Any], cohorts: CohortRule | None) -> VoteRows:
    """`ratings.VoteRows` of grouped kept votes (after the cohort rule); groups of seven keys carry the prompt
    (`grouped_kept_votes(by_prompt=True)`), which becomes the rows' cluster."""
    col = lambda i: [g[i] for g in groups]  # noqa: E731
    by_prompt = bool(groups) and len(groups[0]) == 8
    votes = Votes.from_columns(
        col(2),
        col(3),
        col(4),
        use_case=col(0),
        capability=col(1),
        methodology=col(5),
        cluster=col(6) if by_prompt else None,
    )
    return count_votes(votes, cohorts, multiplicity=np.asarray(col(-1), dtype=np.int64))
