"""Intervals of the difference from a chosen model (ratings.differences, arena.leaderboard.differences).

Known answers: the board's stored standard errors equal a loop over pairs written out by hand from the
replicates (bootstrap) or from the sandwich covariance; the per-pair and simultaneous ends are d -+ 1.96 se and
d -+ critical se; the simultaneous intervals reproduce the board's `above` relation; nothing depends on the
display anchor; and the stored payload round-trips. A simulation with known truth (a fast twin of
bench/bench_anchor_intervals.py) shows the displayed interval under-covering "1000 + the true gap to the
anchor" and the difference interval covering it.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from arena.leaderboard.differences import (
    NoDifferences,
    NotOnBoard,
    StoredDifferences,
    differences_payload,
    relative_to,
)
from arena.leaderboard.snapshots import stored_differences
from ratings import ELO_PER_NAT, Board, Votes, compute_board, simulate_votes
from ratings.aggregate import aggregate_votes, board_rows
from ratings.board import count_votes
from ratings.differences import difference_standard_errors, relative_differences
from ratings.intervals import board_sandwich_covariance
from ratings.pairs import pair_counts
from ratings.simulate import marginal_strengths, simulate_clustered_votes

NAMES = np.array([f"m{k:02d}" for k in range(10)], dtype=object)


@pytest.fixture(scope="module")
def votes() -> Votes:
    rng = np.random.default_rng(3)
    a, b, o = simulate_votes(rng.normal(0.0, 0.5, len(NAMES)), 3000, rng)
    return Votes.from_columns(NAMES[a], NAMES[b], o)


@pytest.fixture(scope="module")
def boards(votes: Votes) -> dict[str, Board]:
    return {
        anchor: compute_board(votes, anchor=anchor, n_bootstrap=200, seed=4, workers=1)
        for anchor in ("m00", "m05")
    }


def _by_hand_se(replicates: np.ndarray, theta: np.ndarray) -> np.ndarray:
    n = replicates.shape[1]
    theta = theta - theta.mean()
    out = np.zeros((n, n))
    for x in range(n):
        for y in range(n):
            d = (replicates[:, x] - replicates[:, y]) - (theta[x] - theta[y])
            out[x, y] = ELO_PER_NAT * math.sqrt(sum(v * v for v in d) / len(d))
    return out


def test_stored_standard_errors_are_the_replicates_rms_deviation_of_each_difference(boards):
    board = boards["m00"]
    assert board.replicates is not None and board.difference_se is not None
    want = _by_hand_se(board.replicates, board.fit.theta)
    np.testing.assert_allclose(board.difference_se, want, rtol=1e-10, atol=1e-10)


def test_sandwich_boards_take_the_covariance_of_the_difference(votes):
    board = compute_board(votes, anchor="m00", interval="sandwich")
    rows = board_rows(count_votes(votes), balance_cells=True)  # the overall board's rows
    cov = board_sandwich_covariance(board.fit.theta, rows, pair_counts(rows))
    n = len(board.counts.models)
    for x in range(n):
        for y in range(n):
            var = cov[x, x] + cov[y, y] - 2 * cov[x, y]
            assert board.difference_se[x, y] == pytest.approx(ELO_PER_NAT * math.sqrt(max(var, 0)), abs=1e-9)


def test_intervals_are_d_plus_minus_z_se_and_the_simultaneous_ones_reproduce_the_ranks(boards):
    board = boards["m00"]
    models = list(board.counts.models)
    ratings = np.array([board.row(m).rating for m in models])
    for ref in range(len(models)):
        found = relative_differences(
            models, ratings, board.difference_se, ref, level=0.95, critical=board.critical
        )
        for k, d in enumerate(found):
            se = board.difference_se[k, ref]
            assert d.estimate == pytest.approx(ratings[k] - ratings[ref])
            assert (d.low, d.high) == pytest.approx((d.estimate - 1.959964 * se, d.estimate + 1.959964 * se))
            # the ranks: k is above ref exactly when the simultaneous interval of R_k - R_ref is above zero
            assert (d.simultaneous_low > 0) == (models[k] in board.row(models[ref]).above)
    assert board.critical > 1.96  # simultaneous over 45 pairs: wider than per pair


def test_differences_do_not_depend_on_the_display_anchor(boards):
    one, other = boards["m00"], boards["m05"]
    np.testing.assert_array_equal(one.difference_se, other.difference_se)
    assert one.critical == other.critical
    models = list(one.counts.models)
    for ref in ("m00", "m05", "m07"):
        a = relative_to(StoredDifferences.parse(stored_differences(one)), _ratings(one), ref)
        b = relative_to(StoredDifferences.parse(stored_differences(other)), _ratings(other), ref)
        for m in models:
            assert a[m].estimate == pytest.approx(b[m].estimate, abs=1e-9)
            assert (a[m].low, a[m].high) == pytest.approx((b[m].low, b[m].high), abs=1e-9)


def _ratings(board: Board) -> dict[str, float]:
    return {r.model: r.rating for r in board.rows}


def test_the_stored_payload_round_trips_through_json_and_keeps_unbounded_pairs_unbounded():
    se = np.array([[0.0, 12.345, np.nan], [12.345, 0.0, 7.0], [np.nan, 7.0, 0.0]])
    payload = json.loads(json.dumps(differences_payload(["a", "b", "c"], se, 2.5, 0.95)))
    assert payload["se"] == [12.35, None, 7.0]  # upper triangle, 0.01 Elo
    stored = StoredDifferences.parse(payload)
    assert stored is not None and stored.critical == 2.5
    found = relative_to(stored, {"a": 1000.0, "b": 1030.0, "c": 990.0}, "a")
    assert found["a"].estimate == 0.0 and (found["a"].low, found["a"].high) == (0.0, 0.0)
    assert found["b"].low == pytest.approx(30 - 1.959964 * 12.35, abs=1e-4)
    assert found["b"].simultaneous_high == pytest.approx(30 + 2.5 * 12.35)
    assert (found["c"].low, found["c"].high) == (None, None)  # no finite standard error: unbounded
    with pytest.raises(NotOnBoard, match="'zz' is not on this board"):
        relative_to(stored, {"a": 1000.0}, "zz")
    with pytest.raises(NoDifferences, match="published before difference intervals were stored"):
        relative_to(None, {"a": 1000.0}, "a")
    assert StoredDifferences.parse(None) is None


def test_a_replicate_with_an_infinite_rating_leaves_that_models_differences_unbounded():
    reps = np.array([[0.0, 1.0, -1.0], [0.1, np.inf, -0.9], [0.2, 0.8, -1.0]])
    se = difference_standard_errors(reps, np.array([0.0, 1.0, -1.0]))
    assert np.isnan(se[0, 1]) and np.isnan(se[1, 2]) and np.isfinite(se[0, 2])


def test_simulated_boards_the_difference_interval_covers_the_true_gap_to_the_anchor_the_display_does_not():
    """Fast twin of bench/bench_anchor_intervals.py: 12 boards of 20 models at 6k clustered votes."""
    rng = np.random.default_rng(21)
    shown = diff = total = 0
    for k in range(12):
        theta = rng.normal(0.0, 0.6, 20)
        truth = marginal_strengths(theta, 0.5)
        a, b, o, prompt = simulate_clustered_votes(theta, 6000, rng, n_prompts=200, effect_sd=0.5)
        models = tuple(f"m{j:02d}" for j in range(20))
        rows = aggregate_votes(a, b, o, models=models, cluster=prompt)
        board = compute_board(rows, anchor="m00", interval="sandwich", seed=k)
        found = relative_to(StoredDifferences.parse(stored_differences(board)), _ratings(board), "m00")
        for j, m in enumerate(models[1:], start=1):
            target = 1000.0 + ELO_PER_NAT * (truth[j] - truth[0])
            row = board.row(m)
            shown += row.ci_low <= target <= row.ci_high
            diff += 1000.0 + found[m].low <= target <= 1000.0 + found[m].high
            total += 1
    assert diff / total > 0.90  # 228 intervals: the per-pair interval covers about 95%
    assert shown / total < diff / total - 0.05  # the displayed interval, read as a gap, misses more often
