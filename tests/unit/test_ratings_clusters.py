"""Cluster-robust intervals: votes on one prompt share its stored outputs, so prompts are the resampling unit.

Checked against independent computations: the cluster sandwich's meat from per-prompt gradients of the
likelihood (``bt_gradient`` on each prompt's own counts), and coverage of the population-marginal strengths
in a simulation with a prompt-by-model effect (SD 0.5 nats, fixed per output, a fixed pool of prompts).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from ratings import (
    BattleFormatError,
    Votes,
    bt_gradient,
    center,
    compute_all_boards,
    fit_bradley_terry,
    normal_quantile,
    pair_counts,
    read_battles,
)
from ratings.aggregate import aggregate_votes, board_rows
from ratings.bootstrap import bootstrap_board
from ratings.intervals import cluster_sandwich_covariance, sandwich_covariance
from ratings.newton import laplacians, sum_zero_inverse
from ratings.simulate import marginal_strengths, simulate_clustered_votes

MODELS = tuple(f"m{k:02d}" for k in range(20))


def _board(n_votes: int, seed: int, n_prompts: int = 120):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.6, len(MODELS))
    a, b, o, p = simulate_clustered_votes(theta, n_votes, rng, n_prompts=n_prompts, effect_sd=0.5)
    return a, b, o, p, theta


def test_cluster_sandwich_meat_is_the_sum_of_outer_products_of_per_prompt_gradients():
    a, b, o, p, _ = _board(6000, 1, n_prompts=40)
    board = board_rows(aggregate_votes(a, b, o, models=MODELS, cluster=p))
    counts = pair_counts(board)
    theta = fit_bradley_terry(counts).theta
    u = []
    for c in range(40):  # each prompt's own counts, through the public gradient
        k = p == c
        sub = pair_counts(board_rows(aggregate_votes(a[k], b[k], o[k], models=MODELS)))
        full = np.zeros(len(MODELS))
        idx = [MODELS.index(m) for m in sub.models]
        full[idx] = bt_gradient(theta[idx], sub)
        u.append(full)
    u = np.array(u)
    info = laplacians(
        counts.weight.sum(axis=1)
        * (s := 1 / (1 + np.exp(theta[counts.pairs[:, 1]] - theta[counts.pairs[:, 0]])))
        * (1 - s),
        counts.pairs,
        len(MODELS),
    )
    a_inv = sum_zero_inverse(info)
    # CR1: C / (C - 1) * (N - 1) / (N - k), C = 40 prompts, N votes, k = 19 free strengths
    cr1 = 40 / 39 * (len(a) - 1) / (len(a) - 19)
    expected = a_inv @ (cr1 * u.T @ u) @ a_inv
    np.testing.assert_allclose(cluster_sandwich_covariance(theta, board, counts), expected, atol=1e-12)


def test_one_vote_per_cluster_gives_the_vote_level_sandwich():
    a, b, o, _, _ = _board(3000, 2)
    n = len(a)
    board = board_rows(aggregate_votes(a, b, o, models=MODELS, cluster=np.arange(n)))
    counts = pair_counts(board)
    theta = fit_bradley_terry(counts).theta
    np.testing.assert_allclose(
        cluster_sandwich_covariance(theta, board, counts) * (n - 19) / n,
        sandwich_covariance(theta, counts),
        rtol=1e-9,
        atol=1e-14,
    )


def test_cluster_bootstrap_matches_the_cluster_sandwich_and_is_wider_than_vote_level():
    a, b, o, p, _ = _board(60_000, 3)
    clustered = board_rows(aggregate_votes(a, b, o, models=MODELS, cluster=p))
    plain = board_rows(aggregate_votes(a, b, o, models=MODELS))
    counts = pair_counts(clustered)
    theta = fit_bradley_terry(counts).theta
    boot = bootstrap_board(clustered, theta, n_rounds=300, rng=np.random.default_rng(0), workers=1).theta
    vote = bootstrap_board(plain, theta, n_rounds=300, rng=np.random.default_rng(0), workers=1).theta
    se_sandwich = np.sqrt(np.diag(cluster_sandwich_covariance(theta, clustered, counts)))
    ratio = boot.std(axis=0) / se_sandwich
    assert 0.8 < np.median(ratio) < 1.2
    assert np.median(boot.std(axis=0) / vote.std(axis=0)) > 1.4  # 60k votes on 120 prompts


@pytest.mark.parametrize("method", ["bootstrap", "sandwich"])
def test_intervals_cover_the_marginal_strengths_when_votes_cluster_by_prompt(method):
    """Fast twin of bench/bench_coverage.py: 60k votes over 120 prompts, where vote-level intervals cover
    about 70% (their errors spread about 1.6x their implied SE)."""
    z = normal_quantile(0.95)
    hits = total = 0
    z2 = []
    for seed in range(6):
        a, b, o, p, theta = _board(60_000, 100 + seed)
        truth = marginal_strengths(theta, 0.5)
        board = board_rows(aggregate_votes(a, b, o, models=MODELS, cluster=p))
        counts = pair_counts(board)
        fit = fit_bradley_terry(counts).theta
        est = center(fit)
        if method == "sandwich":
            se = np.sqrt(np.diag(cluster_sandwich_covariance(fit, board, counts)))
            lo, hi = est - z * se, est + z * se
        else:
            reps = bootstrap_board(board, fit, n_rounds=200, rng=np.random.default_rng(seed), workers=1).theta
            lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
            se = reps.std(axis=0)
        hits += int(((lo <= truth) & (truth <= hi)).sum())
        total += len(truth)
        z2.extend(((est - truth) / se) ** 2)
    assert hits / total > 0.89
    assert 0.75 < np.sqrt(np.mean(z2)) < 1.25


def test_boards_resample_prompts_when_votes_carry_them_including_slice_boards():
    a, b, o, p, _ = _board(8000, 4, n_prompts=60)
    names = np.array(MODELS, dtype=object)
    use_case = np.where(p < 30, "art", "photo").astype(object)  # a prompt has one use case
    votes = Votes.from_columns(names[a], names[b], o, use_case=use_case, cluster=p)
    boards = compute_all_boards(
        votes, overall_anchor="m00", slice_anchor="m00", n_bootstrap=50, interval="bootstrap"
    ).boards
    assert boards["overall"].n_clusters == 60
    assert boards["use_case=art"].n_clusters == 30
    plain = compute_all_boards(
        Votes.from_columns(names[a], names[b], o, use_case=use_case),
        overall_anchor="m00",
        slice_anchor="m00",
        n_bootstrap=50,
    ).boards
    assert plain["overall"].n_clusters == 0
    width = np.median([r.ci_high - r.ci_low for r in boards["use_case=art"].rows])
    plain_width = np.median([r.ci_high - r.ci_low for r in plain["use_case=art"].rows])
    assert width > 1.2 * plain_width


def test_votes_need_a_cluster_each_when_any_has_one():
    with pytest.raises(ValueError, match="vote 1: no cluster"):
        Votes.from_columns(["a", "b"], ["b", "a"], [0, 1], cluster=["p1", None])


def _lines(records: list[dict[str, object]]) -> list[str]:
    return [json.dumps(r) + "\n" for r in records]


def test_battles_read_question_id_or_prompt_id_as_the_cluster():
    records = [
        {"model_a": "x", "model_b": "y", "winner": "model_a", "question_id": "q1"},
        {"model_a": "x", "model_b": "y", "winner": "model_b", "question_id": "q2"},
        {"model_a": "y", "model_b": "x", "winner": "tie", "prompt_id": 7},
    ]
    votes = read_battles(_lines(records)).votes
    assert votes.cluster is not None
    assert len(set(votes.cluster.tolist())) == 3
    assert (
        read_battles(
            _lines([{k: v for k, v in r.items() if k != "question_id"} for r in records[:2]])
        ).votes.cluster
        is None
    )


def test_battles_with_a_record_missing_its_prompt_id_fail_naming_the_line():
    records = [
        {"model_a": "x", "model_b": "y", "winner": "model_a"},
        {"model_a": "x", "model_b": "y", "winner": "model_b", "question_id": "q2"},
    ]
    with pytest.raises(BattleFormatError, match=r"line 1.*question_id"):
        read_battles(_lines(records))
    with pytest.raises(BattleFormatError, match="question_id"):
        read_battles(_lines([{"model_a": "x", "model_b": "y", "winner": "tie", "question_id": [1]}]))


def test_simultaneous_ranks_keep_wrong_direction_claims_off_almost_every_board():
    """Fast twin of bench/bench_ranks.py: 40-model boards of 10k clustered votes; the per-pair rule puts a
    wrong-direction claim on about 70% of them, the simultaneous (max-T) rule on at most 5%."""
    from ratings.intervals import pairwise_above_normal_simultaneous, pairwise_above_simultaneous

    rng = np.random.default_rng(11)
    models = tuple(f"m{k:02d}" for k in range(40))
    boards_wrong = {"bootstrap": 0, "sandwich": 0}
    claims = 0
    n_boards = 8
    for b in range(n_boards):
        theta = rng.normal(0.0, 0.6, 40)
        truth = marginal_strengths(theta, 0.5)
        a, bb, o, p = simulate_clustered_votes(theta, 10_000, rng, n_prompts=360)
        board = board_rows(aggregate_votes(a, bb, o, models=models, cluster=p))
        counts = pair_counts(board)
        fit = fit_bradley_terry(counts).theta
        reps = bootstrap_board(board, fit, n_rounds=200, rng=np.random.default_rng(b), workers=1).theta
        cov = cluster_sandwich_covariance(fit, board, counts)
        wrong_order = truth[:, None] < truth[None, :]
        for name, above in (
            ("bootstrap", pairwise_above_simultaneous(reps, fit)[0]),
            ("sandwich", pairwise_above_normal_simultaneous(fit, cov)[0]),
        ):
            boards_wrong[name] += bool((above & wrong_order).any())
            claims += int(above.sum())
    assert boards_wrong["bootstrap"] <= 1 and boards_wrong["sandwich"] <= 1
    assert claims / (2 * n_boards) > 200  # still informative: most of the 780 pairs are ordered


def test_simultaneous_ranks_do_not_depend_on_the_anchor():
    a, b, o, p, _ = _board(8000, 9, n_prompts=60)
    names = np.array(MODELS, dtype=object)
    votes = Votes.from_columns(names[a], names[b], o, cluster=p)
    for interval in ("bootstrap", "sandwich"):
        from ratings import compute_board

        ranks = [
            {
                r.model: (r.rank, r.above)
                for r in compute_board(votes, anchor=m, interval=interval, n_bootstrap=100).rows
            }
            for m in ("m00", "m13")
        ]
        assert ranks[0] == ranks[1]
        assert len({r for r, _ in ranks[0].values()}) > 3


def test_a_board_with_too_few_prompts_falls_back_to_vote_level_intervals_and_says_so():
    from ratings import compute_board
    from ratings.board import MIN_CLUSTERS

    a, b, o, _, _ = _board(3000, 12)
    names = np.array(MODELS, dtype=object)
    one_prompt = compute_board(
        Votes.from_columns(names[a], names[b], o, cluster=np.zeros(len(a), int)),
        anchor="m00",
        n_bootstrap=100,
    )
    plain = compute_board(Votes.from_columns(names[a], names[b], o), anchor="m00", n_bootstrap=100)
    assert one_prompt.n_clusters == 0 and any("too few to resample" in n for n in one_prompt.notes)
    assert [(r.ci_low, r.ci_high) for r in one_prompt.rows] == [(r.ci_low, r.ci_high) for r in plain.rows]
    assert all(r.ci_high > r.ci_low for r in one_prompt.rows)
    enough = compute_board(
        Votes.from_columns(names[a], names[b], o, cluster=np.arange(len(a)) % MIN_CLUSTERS),
        anchor="m00",
        n_bootstrap=100,
    )
    assert enough.n_clusters == MIN_CLUSTERS
