"""Cohort filter: which votes a model may be rated with.

The methodology ("Filtrado de votos") splits models into two cohorts. *Current* models are rated
only with votes collected under the current methodology, because older prompts are saturated for
them (a vote on such a prompt records a coin flip, not a capability difference). *Legacy* models
are rated with all the votes they appear in. A vote is kept if and only if both of its models are
eligible for it; one Bradley-Terry fit over the kept votes then ranks every model together.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["CURRENT", "LEGACY", "CohortRule", "cohort_keep_mask", "eligible_votes"]

CURRENT = "current"
LEGACY = "legacy"


@dataclass(frozen=True)
class CohortRule:
    """The current methodology version and the models of the current cohort.

    Models not listed in ``current_models`` are legacy. Votes whose methodology is missing
    (``None``) are treated as not current.
    """

    current_methodology: str
    current_models: frozenset[str]

    @classmethod
    def from_mapping(cls, cohort_of: Mapping[str, str], current_methodology: str) -> CohortRule:
        """Build the rule from ``{model slug: "current" | "legacy"}`` (e.g. ``models.toml``).

        Raises
        ------
        ValueError
            On a cohort name other than ``"current"`` or ``"legacy"``.
        """
        unknown = {c for c in cohort_of.values() if c not in (CURRENT, LEGACY)}
        if unknown:
            raise ValueError(f"unknown cohort(s) {sorted(unknown)}; expected '{CURRENT}' or '{LEGACY}'")
        current = frozenset(m for m, c in cohort_of.items() if c == CURRENT)
        return cls(current_methodology=current_methodology, current_models=current)


def eligible_votes(
    model_a: np.ndarray, model_b: np.ndarray, vote_is_current: np.ndarray, model_is_current: np.ndarray
) -> np.ndarray:
    """Keep-mask of the cohort rule on integer-coded votes.

    Parameters
    ----------
    model_a, model_b : numpy.ndarray
        Model indices of each vote.
    vote_is_current : numpy.ndarray of bool
        Whether each vote was collected under the current methodology.
    model_is_current : numpy.ndarray of bool
        Whether each model (by index) belongs to the current cohort.

    Returns
    -------
    numpy.ndarray of bool
        A model is eligible for a vote if it is legacy or the vote is current; the vote is kept
        iff both of its models are eligible, i.e. ``current vote or (both models legacy)``.
    """
    legacy = ~np.asarray(model_is_current, dtype=bool)
    return np.asarray(vote_is_current, dtype=bool) | (legacy[model_a] & legacy[model_b])


def cohort_keep_mask(
    model_a: Sequence[str] | np.ndarray,
    model_b: Sequence[str] | np.ndarray,
    methodology: Sequence[str | None] | np.ndarray | None,
    rule: CohortRule,
) -> np.ndarray:
    """Keep-mask of the cohort rule on slug-valued votes (see :func:`eligible_votes`)."""
    a = np.asarray(model_a, dtype=object)
    b = np.asarray(model_b, dtype=object)
    if methodology is None:
        vote_current = np.zeros(len(a), dtype=bool)
    else:
        vote_current = np.asarray(methodology, dtype=object) == rule.current_methodology
    current: Collection[str] = rule.current_models
    a_legacy = np.fromiter((m not in current for m in a.tolist()), dtype=bool, count=len(a))
    b_legacy = np.fromiter((m not in current for m in b.tolist()), dtype=bool, count=len(b))
    return np.asarray(vote_current, dtype=bool) | (a_legacy & b_legacy)
