"""Slice boards use their slice; the overall board gives every taxonomy cell equal weight."""

from __future__ import annotations

import numpy as np
import pytest

from ratings import (
    Votes,
    cell_balance_factors,
    compute_board,
    count_pairs,
    fit_bradley_terry,
    simulate_votes,
)

NAMES = np.array(["flux-1-schnell", "flux-2-dev", "m2", "m3"], dtype=object)


def _cell(theta: list[float], n: int, uc: str, cap: str, rng: np.random.Generator) -> dict[str, list[object]]:
    a, b, o = simulate_votes(np.array(theta), n, rng)
    return {"a": list(NAMES[a]), "b": list(NAMES[b]), "o": o.tolist(), "uc": [uc] * n, "cap": [cap] * n}


def _votes(cells: list[dict[str, list[object]]]) -> Votes:
    merged = {k: [x for c in cells for x in c[k]] for k in ("a", "b", "o", "uc", "cap")}
    return Votes.from_columns(
        merged["a"], merged["b"], merged["o"], use_case=merged["uc"], capability=merged["cap"]
    )


def test_cell_factors_give_every_non_empty_cell_the_same_total_and_keep_the_grand_total():
    totals = np.array([[100.0, 300.0, 0.0, 600.0], [1.0, 1.0, 1.0, 1.0]])
    factors = cell_balance_factors(totals)
    weighted = factors * totals
    np.testing.assert_allclose(weighted[0], [1000 / 3, 1000 / 3, 0.0, 1000 / 3])
    np.testing.assert_allclose(weighted.sum(axis=1), totals.sum(axis=1))
    np.testing.assert_allclose(factors[1], 1.0)


def test_the_overall_board_weights_each_vote_by_the_inverse_size_of_its_cell():
    rng = np.random.default_rng(8)
    cells = [
        _cell([0.0, 0.5, -0.5, 0.2], 900, "Consumer", "Layout", rng),
        _cell([0.0, -0.4, 0.6, 0.2], 300, "Consumer", "Lighting", rng),
        _cell([0.0, 0.1, 0.1, 0.9], 600, "UI/UX Design", "Layout", rng),
    ]
    votes = _votes(cells)
    board = compute_board(votes, interval="sandwich")
    weight = np.concatenate([np.full(len(c["a"]), 1800 / (3 * len(c["a"]))) for c in cells])
    manual = count_pairs(votes.model_a, votes.model_b, votes.outcome, weight)
    fit = fit_bradley_terry(manual)
    expected = dict(zip(manual.models, 1000 + 400 / np.log(10) * (fit.theta - fit.theta[0]), strict=True))
    for model, rating in board.ratings().items():
        assert rating == pytest.approx(expected[model], abs=1e-8)
    assert board.counts.weight.sum() == pytest.approx(len(votes))


def test_more_votes_in_one_cell_do_not_change_the_overall_board():
    rng = np.random.default_rng(9)
    cells = [
        _cell([0.0, 0.5, -0.5, 0.2], 500, "Consumer", "Layout", rng),
        _cell([0.0, -0.4, 0.6, 0.2], 500, "Frontier", "Physics", rng),
    ]
    doubled = [cells[0], {k: v * 3 for k, v in cells[1].items()}]
    once = compute_board(_votes(cells), interval="sandwich").ratings()
    thrice = compute_board(_votes(doubled), interval="sandwich").ratings()
    for model in once:
        assert thrice[model] == pytest.approx(once[model], abs=1e-8)


def test_a_slice_board_is_the_board_of_that_slices_votes_alone():
    rng = np.random.default_rng(10)
    cells = [
        _cell([0.0, 0.5, -0.5, 0.2], 400, "Consumer", "Layout", rng),
        _cell([0.0, -0.4, 0.6, 0.2], 700, "Consumer", "Lighting", rng),
        _cell([0.0, 0.1, 0.1, 0.9], 500, "UI/UX Design", "Layout", rng),
    ]
    slice_board = compute_board(_votes(cells), board="use_case=Consumer", interval="sandwich")
    alone = [{**c, "uc": [None] * len(c["uc"]), "cap": [None] * len(c["cap"])} for c in cells[:2]]
    plain = compute_board(_votes(alone), anchor="flux-2-dev", interval="sandwich")
    assert slice_board.rows == plain.rows
    layout = compute_board(_votes(cells), board="capability=Layout", interval="sandwich")
    assert layout.n_votes == 900


def test_bootstrap_replicates_weight_cells_the_way_the_estimate_does():
    from ratings.aggregate import aggregate_votes, board_rows
    from ratings.bootstrap import _RowSums
    from ratings.pairs import pair_counts
    from ratings.votes import factorize

    rng = np.random.default_rng(11)
    cells = [
        _cell([0.0, 0.5, -0.5, 0.2], 300, "Consumer", "Layout", rng),
        _cell([0.0, -0.4, 0.6, 0.2], 120, "Consumer", "Lighting", rng),
        _cell([0.0, 0.1, 0.1, 0.9], 250, "UI/UX Design", "Layout", rng),
    ]
    votes = _votes(cells)
    models, (ia, ib) = factorize(votes.model_a, votes.model_b)
    use_cases, (uc,) = factorize(votes.use_case)
    capabilities, (cap,) = factorize(votes.capability)
    rows = aggregate_votes(
        ia,
        ib,
        votes.outcome,
        models=models,
        use_case=uc,
        capability=cap,
        use_cases=use_cases,
        capabilities=capabilities,
    )
    board = board_rows(rows, balance_cells=True)
    replicate = _RowSums(board)(board.count[:, None].astype(np.float64))
    np.testing.assert_allclose(replicate.reshape(-1, 3), pair_counts(board).weight, rtol=1e-12)
