"""Cohort filter: a vote is kept iff both of its models are eligible for it."""

from __future__ import annotations

import numpy as np
import pytest

from ratings import CohortRule, Votes, cohort_keep_mask, compute_board, eligible_votes, simulate_votes


def test_current_models_use_only_current_votes_and_legacy_models_use_all():
    rule = CohortRule("v2", frozenset({"new"}))
    a = ["old", "old", "new", "new", "new", "old"]
    b = ["older", "older", "old", "old", "newer", "new"]
    meth = ["v1", "v2", "v1", "v2", None, "v2"]
    keep = cohort_keep_mask(a, b, meth, rule)
    assert keep.tolist() == [True, True, False, True, False, True]


def test_the_index_form_matches_the_slug_form():
    vote_current = np.array([False, True, False, False])
    model_current = np.array([True, False, False])
    keep = eligible_votes(np.array([0, 0, 1, 0]), np.array([1, 2, 2, 2]), vote_current, model_current)
    assert keep.tolist() == [False, True, True, False]


def test_rule_from_a_cohort_mapping_validates_names():
    rule = CohortRule.from_mapping({"a": "current", "b": "legacy"}, "2025-06")
    assert rule.current_models == frozenset({"a"}) and rule.current_methodology == "2025-06"
    with pytest.raises(ValueError, match="unknown cohort"):
        CohortRule.from_mapping({"a": "beta"}, "v1")


def test_one_fit_over_the_kept_votes_ranks_everyone():
    rng = np.random.default_rng(12)
    names = np.array(["flux-1-schnell", "new-model", "old-model", "other"], dtype=object)
    a, b, o = simulate_votes(np.array([0.0, 0.8, -0.2, 0.3]), 4000, rng)
    meth = np.where(rng.random(4000) < 0.5, "v2", "v1")
    votes = Votes.from_columns(names[a], names[b], o, methodology=meth)
    rule = CohortRule("v2", frozenset({"new-model", "flux-1-schnell"}))
    filtered = compute_board(votes, cohorts=rule, interval="sandwich")
    keep = cohort_keep_mask(votes.model_a, votes.model_b, votes.methodology, rule)
    manual = compute_board(votes.select(keep), interval="sandwich")
    assert filtered.rows == manual.rows
    assert filtered.n_votes == int(keep.sum()) < len(votes)
    assert {r.model for r in filtered.rows} == set(names)
