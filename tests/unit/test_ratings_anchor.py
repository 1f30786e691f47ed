"""Intervals and ranks do not depend on which model is the anchor.

On a simulated board and on real public votes (LLMFAO crowd comparisons, tests/data): changing the
anchor changes no rank and moves every interval endpoint of the board by one constant (to 1e-9), the
anchor's interval has positive width, and the ranks agree with an independent pairwise computation
(plain loops over pairs with ``numpy.percentile``, or the normal interval written out by hand).
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from ratings import (
    ELO_PER_NAT,
    Board,
    Votes,
    compute_board,
    parse_battles,
    sandwich_covariance,
    simulate_votes,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "llmfao_crowd_battles.jsonl.gz"
NAMES = np.array([f"m{k:02d}" for k in range(12)], dtype=object)


@pytest.fixture(scope="module")
def simulated() -> Votes:
    rng = np.random.default_rng(11)
    truth = rng.normal(0.0, 0.5, len(NAMES))
    a, b, o = simulate_votes(truth, 4000, rng)
    return Votes.from_columns(NAMES[a], NAMES[b], o)


@pytest.fixture(scope="module")
def llmfao() -> Votes:
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        return parse_battles(handle)


def _assert_anchor_free(boards: list[Board]) -> None:
    """Same ranks and `above`; every endpoint (and rating) moved by the board's one constant; anchors have width."""
    base = boards[0]
    for board in boards:
        anchor = board.row(board.anchor)
        assert anchor.rating == board.anchor_rating
        assert anchor.ci_high - anchor.ci_low > 1.0, board.anchor
        shift = board.row(base.anchor).rating - base.row(base.anchor).rating
        for r in base.rows:
            other = board.row(r.model)
            assert (other.rank, other.above) == (r.rank, r.above), (board.anchor, r.model)
            assert other.rating - r.rating == pytest.approx(shift, abs=1e-9)
            for end in ("ci_low", "ci_high"):
                ours, theirs = getattr(other, end), getattr(r, end)
                if math.isfinite(theirs):
                    assert ours - theirs == pytest.approx(shift, abs=1e-9), (board.anchor, r.model, end)
                else:
                    assert ours == theirs


def _independent_ranks(board: Board) -> dict[str, int]:
    """Rank = 1 + #{j : d_ji - c se_ji > 0}, written out pair by pair: d_ji = theta_j - theta_i at the estimate,
    se_ji the replicates' RMS deviation from it, c the 95% quantile over replicates of the largest
    |deviation| / se over all pairs (max-T; an undefined difference counts as infinite)."""
    rep = board.replicates
    assert rep is not None
    theta = board.fit.theta - board.fit.theta.mean()
    models = board.counts.models
    n = len(models)
    dev, se, gap = {}, {}, {}
    for i in range(n):
        for j in range(i + 1, n):
            with np.errstate(invalid="ignore"):
                d = (rep[:, i] - rep[:, j]) - (theta[i] - theta[j])
            ok = np.isfinite(d)
            se[i, j] = math.sqrt(float(np.mean(d[ok] ** 2)))
            dev[i, j] = np.where(ok, np.abs(d), np.inf) / se[i, j]
            gap[i, j] = theta[i] - theta[j]
    worst = np.max(np.column_stack(list(dev.values())), axis=1)
    c = float(np.quantile(worst, 0.95))
    ranks = {}
    for i, name in enumerate(models):
        above = 0
        for j in range(n):
            if j != i:
                key, sign = ((j, i), 1.0) if j < i else ((i, j), -1.0)
                above += bool(sign * gap[key] - c * se[key] > 0)
        ranks[name] = 1 + above
    return ranks


@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
def test_a_simulated_boards_ranks_and_interval_shifts_do_not_depend_on_the_anchor(simulated, interval):
    boards = [
        compute_board(simulated, anchor=m, anchor_rating=r, interval=interval, n_bootstrap=300, seed=4)
        for m, r in [("m00", 1000.0), ("m05", 1000.0), ("m11", 1500.0)]
    ]
    _assert_anchor_free(boards)
    assert len({r.rank for r in boards[0].rows}) > 3  # the board does separate models


def test_real_public_votes_give_the_same_ranks_whatever_the_anchor(llmfao):
    anchors = ["Weaver 12k", "GPT 4", "Dolly v2 (3B)"]
    # min_votes=0: every model with a finite interval is in the rank family, as the pair-by-pair ranks assume
    boards = [compute_board(llmfao, anchor=m, n_bootstrap=200, seed=0, min_votes=0) for m in anchors]
    assert len(boards[0].rows) == 59 and boards[0].n_votes == 8931
    _assert_anchor_free(boards)
    assert _independent_ranks(boards[0]) == {r.model: r.rank for r in boards[0].rows}
    sandwich = [compute_board(llmfao, anchor=m, interval="sandwich") for m in anchors]
    _assert_anchor_free(sandwich)


def test_bootstrap_replicates_never_see_the_anchor(simulated):
    one = compute_board(simulated, anchor="m00", n_bootstrap=200, seed=9)
    two = compute_board(simulated, anchor="m07", n_bootstrap=200, seed=9)
    assert one.replicates is not None and two.replicates is not None
    np.testing.assert_array_equal(one.replicates, two.replicates)
    np.testing.assert_allclose(one.replicates.sum(axis=1), 0.0, atol=1e-9)
    # the old rule pinned the anchor's column at zero in every replicate
    assert one.replicates[:, list(one.counts.models).index("m00")].std() > 0.01


def test_sandwich_ranks_match_the_normal_interval_of_each_difference_written_out(simulated):
    board = compute_board(simulated, interval="sandwich", anchor="m03")
    theta = board.fit.theta
    cov = sandwich_covariance(theta, board.counts)
    z = norm.ppf(0.975)
    models = board.counts.models
    n = len(models)
    # max-T critical value, independently: numpy's multivariate normal sampler, another seed, more draws
    draws = np.random.default_rng(123).multivariate_normal(np.zeros(n), cov, size=20000, method="svd")
    se = {
        (i, j): math.sqrt(max(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0.0))
        for i in range(n)
        for j in range(n)
        if i != j
    }
    worst = np.max([np.abs(draws[:, j] - draws[:, i]) / se[i, j] for (i, j) in se if i < j], axis=0)
    c = float(np.quantile(worst, 0.95))
    assert c > z  # simultaneous intervals are wider than per-pair ones
    checked = 0
    for i, name in enumerate(models):
        for j, other in enumerate(models):
            if j == i:
                continue
            t = (theta[j] - theta[i]) / se[i, j]
            if abs(t - c) > 0.03 * c:  # away from the Monte Carlo edge of the critical value
                assert (other in board.row(name).above) == (t > c), (name, other)
                checked += 1
        assert board.row(name).rank == 1 + len(board.row(name).above)
    assert checked > 0.9 * n * (n - 1)
    # the display interval's half-width is z * the sum-zero standard error, the anchor included
    anchor = board.row("m03")
    k = models.index("m03")
    half = z * ELO_PER_NAT * math.sqrt(cov[k, k])
    assert anchor.ci_high - anchor.ci_low == pytest.approx(2 * half, rel=1e-9)


def test_a_bridge_that_only_won_keeps_the_anchors_side_of_the_board():
    rng = np.random.default_rng(3)
    cols: dict[str, list[object]] = {"a": [], "b": [], "o": []}
    for group in (["a1", "a2", "a3"], ["b1", "b2"]):  # two groups that trade wins internally
        names = np.array(group, dtype=object)
        a, b, o = simulate_votes(np.zeros(len(group)), 300, rng)
        cols["a"] += list(names[a])
        cols["b"] += list(names[b])
        cols["o"] += o.tolist()
    for loser in ("a1", "a2", "b1", "b2"):  # the only link between them won every vote
        cols["a"].append("bridge")
        cols["b"].append(loser)
        cols["o"].append(0)
    votes = Votes.from_columns(cols["a"], cols["b"], cols["o"])
    small_side = compute_board(votes, anchor="b1", interval="sandwich")
    assert sorted(small_side.ratings()) == ["b1", "b2"]
    reasons = {e.model: e.reason for e in small_side.excluded}
    assert set(reasons) == {"a1", "a2", "a3", "bridge"}
    assert reasons["bridge"].startswith("won all 4 of its votes")
    assert "cut off from the main group" in reasons["a1"]
    large_side = compute_board(votes, anchor="a2", interval="sandwich")
    assert sorted(large_side.ratings()) == ["a1", "a2", "a3"]
