"""Fast twin of bench/bench_kwise.py: the simulation machinery on a small case (never timing)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.bench_kwise import (
    ALL_EQUAL,
    LAPSE,
    MEASURED_SECONDS,
    MIN_VOTE_SECONDS,
    Job,
    first_passage,
    fit_state,
    parse_seconds,
    rank_shown,
    run_arm,
    seconds_per_interaction,
    tau_passage,
    width_passage,
)


def test_seconds_per_interaction_scale_the_minimum_time_per_image_and_grow_with_k():
    assert seconds_per_interaction(2) == pytest.approx(MIN_VOTE_SECONDS + 1.5 + 0.5)
    assert seconds_per_interaction(2) < seconds_per_interaction(3) < seconds_per_interaction(4)
    assert seconds_per_interaction(4) - seconds_per_interaction(2) > MIN_VOTE_SECONDS


def test_seconds_default_to_the_measured_floor_and_interpolate_k3():
    measured = parse_seconds("measured", [2, 3, 4])
    assert measured[2] == MEASURED_SECONDS[2] and measured[4] == MEASURED_SECONDS[4]
    assert measured[3] == pytest.approx((MEASURED_SECONDS[2] + MEASURED_SECONDS[4]) / 2)
    assert measured[2] >= MIN_VOTE_SECONDS and measured[4] >= 2 * MIN_VOTE_SECONDS  # at least the minimums
    assert parse_seconds("2=3,4=7", [2, 3, 4]) == {2: 3.0, 3: 5.0, 4: 7.0}
    assert parse_seconds("assumed", [2, 4]) == {2: seconds_per_interaction(2), 4: seconds_per_interaction(4)}
    with pytest.raises(SystemExit, match="K=5"):
        parse_seconds("measured", [2, 5])


def test_voters_follow_the_truth_except_for_lapses_and_all_equal_votes():
    rng = np.random.default_rng(0)
    theta = np.array([30.0, 20.0, 10.0, 0.0, -10.0])  # so far apart that Plackett-Luce is deterministic
    shown = np.array([rng.permutation(5)[:4] for _ in range(20_000)])
    ordered, equal = rank_shown(theta, shown, np.ones(len(shown)), rng)
    right = np.all(np.diff(theta[ordered], axis=1) < 0, axis=1)
    assert np.mean(right) == pytest.approx(1 - LAPSE + LAPSE / 24, abs=0.01)
    assert np.mean(equal) == pytest.approx(ALL_EQUAL, abs=0.01)
    assert sorted(ordered[0]) == sorted(shown[0])


def test_first_passage_interpolates_between_refits_and_says_never():
    assert first_passage(np.array([0.5, 0.8, 1.0]), 100, 0.9, rising=True) == pytest.approx(250.0)
    assert tau_passage(np.array([0.5, 0.6]), 100) == math.inf
    assert width_passage(np.array([math.inf, 60.0, 20.0]), 50) == pytest.approx(125.0)  # 60 at 100, 20 at 150


def test_no_fit_until_every_model_is_ranked_and_bounded():
    assert fit_state([np.array([[0, 1], [1, 0]])], [np.array([0, 1])], 3) is None
    assert fit_state([np.array([[0, 1], [1, 2]])], [np.array([0, 1])], 3) is None  # 0 never lost
    theta, half = fit_state([np.array([[0, 1], [1, 2], [2, 0]])], [np.array([0, 1, 2])], 3)
    assert np.allclose(theta, 0.0) and np.all(half > 0)


@pytest.mark.parametrize("arm", ["k3", "k4", "plan"])
def test_on_a_small_board_tau_rises_and_kwise_intervals_shrink_faster_than_pairwise(arm):
    base_tau, base_width, _ = run_arm(Job("k2", 200.0, 1, 8, 100, 1200, 20))
    tau, width, _ = run_arm(Job(arm, 200.0, 1, 8, 100, 1200, 20))
    assert tau[-1] > 0.6 and base_tau[-1] > 0.6
    assert np.all(np.diff(width[np.isfinite(width)]) < 5.0)  # widths shrink (up to noise)
    if arm == "plan":
        assert width[-1] == pytest.approx(base_width[-1], rel=0.35)  # the same kind of vote
    else:
        assert width[-1] < 0.8 * base_width[-1]  # a K-ranking carries more than one pair's information
