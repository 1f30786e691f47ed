"""Bradley-Terry maximum likelihood: known answers, an independent solver, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from ratings import (
    ELO_PER_NAT,
    DisconnectedComparisonsError,
    NoVotesError,
    PairCounts,
    SingleModelError,
    UnboundedRatingError,
    bt_gradient,
    bt_information,
    bt_log_likelihood,
    count_pairs,
    fit_bradley_terry,
    simulate_votes,
)


def _votes(*spec: tuple[str, str, str, int]) -> tuple[list[str], list[str], list[str]]:
    a, b, w = [], [], []
    for model_a, model_b, winner, times in spec:
        a += [model_a] * times
        b += [model_b] * times
        w += [winner] * times
    return a, b, w


def _raw_mle(ia: np.ndarray, ib: np.ndarray, score_a: np.ndarray, n: int) -> np.ndarray:
    """Independent solver: the likelihood over individual votes, theta_0 fixed at 0."""

    def negative_ll(free: np.ndarray) -> tuple[float, np.ndarray]:
        theta = np.concatenate([[0.0], free])
        d = theta[ia] - theta[ib]
        ll = np.sum(score_a * log_expit(d) + (1.0 - score_a) * log_expit(-d))
        r = score_a - expit(d)
        grad = np.bincount(ia, r, minlength=n) - np.bincount(ib, r, minlength=n)
        return -ll, -grad[1:]

    res = minimize(
        negative_ll,
        np.zeros(n - 1),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 20000, "gtol": 1e-10, "ftol": 0.0},
    )
    return np.concatenate([[0.0], res.x])


def test_two_models_with_three_wins_to_one_differ_by_ln3():
    counts = count_pairs(*_votes(("a", "b", "model_a", 3), ("a", "b", "model_b", 1)))
    fit = fit_bradley_terry(counts)
    assert fit.converged
    assert fit.theta[0] - fit.theta[1] == pytest.approx(math.log(3), abs=1e-9)
    assert fit.theta.sum() == pytest.approx(0.0, abs=1e-12)


def test_ties_count_as_half_a_win_each_way():
    # 3 wins, 1 loss, 2 ties: effective 4 to 2
    counts = count_pairs(
        *_votes(
            ("a", "b", "model_a", 3),
            ("b", "a", "model_a", 1),
            ("a", "b", "tie", 1),
            ("b", "a", "tie (bothbad)", 1),
        )
    )
    fit = fit_bradley_terry(counts)
    assert fit.theta[0] - fit.theta[1] == pytest.approx(math.log(2), abs=1e-9)


def test_a_weight_of_two_equals_two_votes():
    weighted = count_pairs(
        ["a", "b", "a"], ["b", "c", "c"], ["model_a", "model_a", "model_b"], [2.0, 1.0, 1.0]
    )
    repeated = count_pairs(["a", "a", "b", "a"], ["b", "b", "c", "c"], ["model_a"] * 3 + ["model_b"])
    repeated_tie = count_pairs(["a", "b", "c"] * 2, ["b", "c", "a"] * 2, ["tie"] * 6)
    both = fit_bradley_terry(weighted).theta, fit_bradley_terry(repeated).theta
    np.testing.assert_allclose(both[0], both[1], atol=1e-10)
    np.testing.assert_allclose(fit_bradley_terry(repeated_tie).theta, 0.0, atol=1e-12)


def test_three_models_match_an_independent_high_precision_solver():
    spec = (
        ("a", "b", "model_a", 7),
        ("a", "b", "model_b", 3),
        ("b", "a", "tie", 2),
        ("b", "c", "model_a", 5),
        ("c", "b", "model_a", 4),
        ("c", "a", "model_a", 2),
        ("a", "c", "model_a", 6),
        ("a", "c", "tie (bothbad)", 1),
    )
    a, b, w = _votes(*spec)
    index = {"a": 0, "b": 1, "c": 2}
    ia = np.array([index[x] for x in a])
    ib = np.array([index[x] for x in b])
    score = np.array([{"model_a": 1.0, "model_b": 0.0}.get(x, 0.5) for x in w])
    expected = _raw_mle(ia, ib, score, 3)
    fit = fit_bradley_terry(count_pairs(a, b, w))
    np.testing.assert_allclose(fit.theta - fit.theta[0], expected, atol=1e-6)


def test_gradient_and_information_match_finite_differences():
    counts = count_pairs(
        *_votes(
            ("a", "b", "model_a", 4),
            ("b", "c", "model_a", 2),
            ("c", "a", "tie", 3),
            ("c", "b", "model_a", 1),
            ("a", "c", "model_b", 2),
        )
    )
    theta = np.array([0.3, -0.2, 0.5])
    h = 1e-6
    eye = np.eye(3)
    numeric = [
        (bt_log_likelihood(theta + h * e, counts) - bt_log_likelihood(theta - h * e, counts)) / (2 * h)
        for e in eye
    ]
    np.testing.assert_allclose(bt_gradient(theta, counts), numeric, atol=1e-6)
    hessian = np.array(
        [(bt_gradient(theta + h * e, counts) - bt_gradient(theta - h * e, counts)) / (2 * h) for e in eye]
    )
    np.testing.assert_allclose(bt_information(theta, counts), -hessian, atol=1e-5)
    assert bt_gradient(theta, counts).sum() == pytest.approx(0.0, abs=1e-12)


def test_fit_reports_convergence_and_says_when_it_stops_early():
    counts = count_pairs(
        *_votes(
            ("a", "b", "model_a", 30),
            ("b", "a", "model_a", 1),
            ("b", "c", "model_a", 2),
            ("c", "b", "model_a", 9),
        )
    )
    fit = fit_bradley_terry(counts)
    assert fit.converged and fit.max_gradient < 1e-10 and 1 <= fit.iterations < 30
    assert "converged" in fit.message
    early = fit_bradley_terry(counts, max_iter=1)
    assert not early.converged and early.iterations == 1
    assert "did not converge in 1 Newton iterations" in early.message


def test_agrees_with_a_raw_vote_mle_on_50_models_and_100k_votes():
    rng = np.random.default_rng(20240501)
    n = 50
    truth = rng.normal(0.0, 0.8, n)
    ia, ib, outcome = simulate_votes(truth, 100_000, rng, tie_rate=0.12)
    assert 0.08 < np.mean(outcome == 2) < 0.12
    names = np.array([f"m{k:02d}" for k in range(n)], dtype=object)
    fit = fit_bradley_terry(count_pairs(names[ia], names[ib], outcome))
    score = np.select([outcome == 0, outcome == 1], [1.0, 0.0], 0.5)
    independent = _raw_mle(ia, ib, score, n)
    ours = ELO_PER_NAT * (fit.theta - fit.theta[0])
    assert np.max(np.abs(ours - ELO_PER_NAT * independent)) < 0.01


def test_no_votes_and_single_model_are_clear_errors():
    with pytest.raises(NoVotesError, match="no votes"):
        fit_bradley_terry(count_pairs([], [], []))
    empty = np.zeros((0, 3))
    single = PairCounts(
        models=("a",), pairs=np.zeros((0, 2), int), votes=empty.astype(int), weight=empty, weight_sq=empty
    )
    with pytest.raises(SingleModelError, match=r"only one model on this board \(a\)"):
        fit_bradley_terry(single)


def test_disconnected_comparisons_name_the_parts():
    counts = count_pairs(["a", "b", "c", "d"], ["b", "a", "d", "c"], ["model_a", "model_a", "tie", "model_a"])
    with pytest.raises(DisconnectedComparisonsError) as info:
        fit_bradley_terry(counts)
    assert info.value.components == [["a", "b"], ["c", "d"]]
    assert "2 disconnected parts" in str(info.value) and "{a, b} | {c, d}" in str(info.value)


def test_a_model_with_only_wins_or_only_losses_is_unbounded():
    a, b, w = _votes(
        ("a", "b", "model_a", 3),
        ("b", "a", "model_a", 2),
        ("c", "a", "model_a", 4),
        ("c", "b", "model_a", 1),
        ("d", "a", "model_a", 2),
        ("a", "b", "tie", 1),
    )
    with pytest.raises(UnboundedRatingError) as info:
        fit_bradley_terry(count_pairs(a, b, w))
    assert info.value.reasons["c"] == "won all 5 of its votes (no loss or tie)"
    assert info.value.reasons["d"] == "won all 2 of its votes (no loss or tie)"
    with pytest.raises(UnboundedRatingError, match="lost all 1 of its votes"):
        fit_bradley_terry(count_pairs(["a", "b", "a"], ["b", "a", "z"], ["model_a", "model_a", "model_a"]))


def test_a_group_that_never_lost_to_the_rest_is_unbounded():
    a, b, w = _votes(
        ("a", "b", "model_a", 2),
        ("b", "a", "model_a", 2),
        ("c", "d", "model_a", 1),
        ("d", "c", "model_a", 1),
        ("a", "c", "model_a", 3),
        ("d", "b", "model_b", 1),
    )
    with pytest.raises(UnboundedRatingError) as info:
        fit_bradley_terry(count_pairs(a, b, w))
    assert set(info.value.reasons) == {"c", "d"}
    assert "never won or tied against the rest" in info.value.reasons["c"]
