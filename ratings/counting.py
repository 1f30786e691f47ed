"""From votes to a board's rows: the cohort filter, counting votes into rows once for every board of a modality,
and selecting one board's rows (the overall board balances taxonomy cells)."""

from __future__ import annotations

import numpy as np

from ratings.aggregate import BoardRows, VoteRows, aggregate_votes, board_rows
from ratings.cohorts import CohortRule, eligible_votes
from ratings.errors import NoVotesError, RatingsError
from ratings.votes import Votes, factorize
from ratings.weighting import BoardKey

__all__ = ["count_votes", "select_board"]


def count_votes(
    votes: Votes, cohorts: CohortRule | None = None, *, multiplicity: np.ndarray | None = None
) -> VoteRows:
    """Cohort-filter the votes of one modality and count them into rows.

    ``multiplicity`` (one non-negative integer per entry of ``votes``) says how many identical votes each
    entry stands for: a database can ``GROUP BY`` the vote columns and pass the groups here, and the rows
    (hence every board computed from them) are the same as from the individual votes.
    """
    named = [m for m in votes.modalities() if m is not None]
    if len(named) > 1:
        raise RatingsError(f"the votes mix modalities ({', '.join(named)}); rate each modality separately")
    models, (ia, ib) = factorize(votes.model_a, votes.model_b)
    keep = None
    if cohorts is not None:
        meth = votes.methodology
        vote_current = np.zeros(len(votes), bool) if meth is None else meth == cohorts.current_methodology
        model_current = np.array([m in cohorts.current_models for m in models], dtype=bool)
        keep = eligible_votes(ia, ib, vote_current, model_current)
    cluster = None
    if votes.cluster is not None:
        _, (cluster,) = factorize(votes.cluster)
    use_cases, (uc,) = factorize(votes.use_case if votes.use_case is not None else [None] * len(votes))
    capabilities, (cap,) = factorize(
        votes.capability if votes.capability is not None else [None] * len(votes)
    )

    def sel(x: np.ndarray | None) -> np.ndarray | None:
        return x if x is None or keep is None else x[keep]

    return aggregate_votes(
        sel(ia),
        sel(ib),
        sel(votes.outcome),
        models=models,
        weight=sel(votes.weight),
        use_case=sel(uc),
        capability=sel(cap),
        use_cases=use_cases,
        capabilities=capabilities,
        multiplicity=sel(multiplicity),
        cluster=sel(cluster),
    )


def select_board(rows: VoteRows, key: BoardKey) -> BoardRows:
    """The rows of one board: every row, cells balanced, for the overall board; one use case's or capability's rows
    otherwise."""
    if key.kind == "overall":
        return board_rows(rows, balance_cells=True)
    labels = rows.use_cases if key.kind == "use_case" else rows.capabilities
    codes = rows.use_case if key.kind == "use_case" else rows.capability
    if key.value not in labels:
        raise NoVotesError(f"board '{key}'")
    return board_rows(rows, codes == labels.index(key.value))
