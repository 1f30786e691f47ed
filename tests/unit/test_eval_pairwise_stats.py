"""Pairwise tallies: verdicts recorded with A and B either way round count for the same pair from its first
label's side, ties as half; the case bootstrap resamples whole cases; Wilson matches ratings.proportions."""

from __future__ import annotations

import pytest

from arena.evals.pairwise_stats import Verdict, bradley_terry, tally
from ratings.proportions import wilson_interval


def test_swapped_verdicts_count_for_one_pair_from_its_first_side():
    verdicts = [
        Verdict("x", "y", "c1", 0, True),  # x wins
        Verdict("y", "x", "c2", 0, True),  # y wins, recorded with y as A
        Verdict("y", "x", "c3", 1, False),  # x wins, recorded with y as A
        Verdict("x", "y", "c4", 2, False),  # tie
    ]
    (row,) = tally(verdicts, {("y", "x"): 1})
    assert (row["a"], row["b"], row["wins"], row["losses"], row["ties"]) == ("x", "y", 2, 1, 1)
    assert row["win_rate"] == pytest.approx(2.5 / 4)
    assert row["wilson_95"] == list(wilson_interval(2.5, 4))
    assert row["position_consistency"] == 0.5 and row["unscored"] == 1 and row["cases"] == 4


def test_case_bootstrap_moves_a_case_s_samples_together():
    # two cases, each with 5 samples all won by one side: resampling cases gives rates 0, 0.5 or 1 only
    verdicts = [Verdict("x", "y", "c1", 0)] * 5 + [Verdict("x", "y", "c2", 1)] * 5
    (row,) = tally(verdicts)
    assert row["case_bootstrap_95"] == [0.0, 1.0]
    assert row["wilson_95"][0] > 0.2  # Wilson treats the 10 items as independent: narrower
    assert row["position_consistency"] is None  # human-style verdicts carry no order check


def test_bradley_terry_needs_three_labels_and_orders_them():
    two = bradley_terry([Verdict("x", "y", "c1", 0)])
    assert two["rows"] == [] and "two labels" in two["error"]
    verdicts = []
    for i in range(6):
        reverse = i == 0
        for a, b in (("x", "y"), ("y", "z"), ("x", "z")):
            verdicts.append(Verdict(a, b, f"c{i}", 1 if reverse else 0))
    board = bradley_terry(verdicts, n_bootstrap=100)
    assert board["error"] is None and [r["label"] for r in board["rows"]] == ["x", "y", "z"]
