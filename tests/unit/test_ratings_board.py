"""Leaderboards end to end: boards, anchors, intervals, ranks, exclusions and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ratings import (
    AnchorNotOnBoardError,
    BoardKey,
    DisconnectedComparisonsError,
    NoVotesError,
    RatingsError,
    UnboundedRatingError,
    Votes,
    compute_all_boards,
    compute_board,
    simulate_votes,
)

MODELS = np.array(["flux-1-schnell", "flux-2-dev", "imagen-4", "gpt-image-1", "seedream-4"], dtype=object)
TRUTH = np.array([0.0, 0.4, 0.9, 0.7, -0.3])
USE_CASES = ["Consumer", "UI/UX Design"]
CAPABILITIES = ["Layout", "Text Rendering", "Lighting"]


def _taxonomy_votes(per_cell: int = 400, seed: int = 1) -> Votes:
    rng = np.random.default_rng(seed)
    cols: dict[str, list[object]] = {k: [] for k in ("a", "b", "o", "uc", "cap")}
    for k, (uc, cap) in enumerate((u, c) for u in USE_CASES for c in CAPABILITIES):
        a, b, o = simulate_votes(TRUTH, per_cell + 37 * k, rng)
        cols["a"] += list(MODELS[a])
        cols["b"] += list(MODELS[b])
        cols["o"] += o.tolist()
        cols["uc"] += [uc] * len(a)
        cols["cap"] += [cap] * len(a)
    return Votes.from_columns(cols["a"], cols["b"], cols["o"], use_case=cols["uc"], capability=cols["cap"])


@pytest.fixture(scope="module")
def votes() -> Votes:
    return _taxonomy_votes()


def test_a_board_has_sorted_rows_with_the_anchor_at_exactly_1000(votes):
    board = compute_board(votes, n_bootstrap=200)
    ratings = [r.rating for r in board.rows]
    assert ratings == sorted(ratings, reverse=True)
    anchor = board.row("flux-1-schnell")
    assert anchor.rating == 1000.0
    assert anchor.ci_low < 1000.0 < anchor.ci_high
    assert board.fit.converged
    for r in board.rows:
        assert r.ci_low <= r.rating <= r.ci_high
        assert r.votes == r.wins + r.losses + r.ties
    assert sum(r.votes for r in board.rows) == 2 * board.n_votes == 2 * len(votes)


def test_anchor_and_its_rating_are_configurable(votes):
    default = compute_board(votes, interval="sandwich")
    moved = compute_board(votes, interval="sandwich", anchor="imagen-4", anchor_rating=1500.0)
    assert moved.row("imagen-4").rating == 1500.0
    shift = 1500.0 - default.row("imagen-4").rating
    for r in default.rows:
        assert moved.row(r.model).rating == pytest.approx(r.rating + shift, abs=1e-9)


def test_the_same_votes_and_seed_give_the_same_digits_and_another_seed_does_not(votes):
    first = compute_board(votes, n_bootstrap=150, seed=42, workers=1)
    again = compute_board(votes, n_bootstrap=150, seed=42, workers=3)
    other = compute_board(votes, n_bootstrap=150, seed=43)
    assert first.rows == again.rows
    assert [r.ci_low for r in first.rows] != [r.ci_low for r in other.rows]


def test_all_boards_cover_overall_use_cases_and_capabilities_with_their_anchors(votes):
    result = compute_all_boards(votes, n_bootstrap=100, seed=5)
    expected = (
        ["overall"] + [f"use_case={u}" for u in USE_CASES] + [f"capability={c}" for c in sorted(CAPABILITIES)]
    )
    assert list(result.boards) == expected and not result.failures
    assert result.boards["overall"].anchor == "flux-1-schnell"
    assert {b.anchor for k, b in result.boards.items() if k != "overall"} == {"flux-2-dev"}
    assert result.boards["use_case=Consumer"].n_votes == sum(400 + 37 * k for k in range(3))
    single = compute_board(votes, board="capability=Lighting", n_bootstrap=100, seed=5)
    assert single.rows == result.boards["capability=Lighting"].rows


def test_sandwich_and_bootstrap_intervals_have_similar_widths(votes):
    boot = compute_board(votes, n_bootstrap=1000, seed=1)
    sand = compute_board(votes, interval="sandwich")
    for r in boot.rows:
        s = sand.row(r.model)
        ratio = (r.ci_high - r.ci_low) / (s.ci_high - s.ci_low)
        assert 0.85 < ratio < 1.15


def test_rank_counts_models_whose_lead_is_significant():
    rng = np.random.default_rng(4)
    a, b, o = simulate_votes(np.array([0.0, 2.0, 1.9, -1.5]), 3000, rng)
    names = np.array(["flux-1-schnell", "top", "top-too", "low"], dtype=object)
    board = compute_board(Votes.from_columns(names[a], names[b], o), interval="sandwich")
    for r in board.rows:
        assert r.rank == 1 + len(r.above)
    assert [r.rank for r in board.rows] == [1, 1, 3, 4]
    assert board.row("low").above == ("top", "top-too", "flux-1-schnell")


def test_models_under_the_minimum_vote_count_are_provisional(votes):
    board = compute_board(votes, interval="sandwich", min_votes=1000)
    assert {r.model: r.provisional for r in board.rows} == {r.model: r.votes < 1000 for r in board.rows}
    assert not any(r.provisional for r in compute_board(votes, interval="sandwich").rows)


def test_an_unbounded_model_is_excluded_with_a_reason_or_raises_on_request(votes):
    extra = Votes.from_columns(
        [*votes.model_a, "newcomer", "newcomer"],
        [*votes.model_b, "imagen-4", "flux-2-dev"],
        [*votes.outcome, 0, 0],
    )
    board = compute_board(extra, interval="sandwich")
    assert [(e.model, e.reason) for e in board.excluded] == [
        ("newcomer", "won all 2 of its votes (no loss or tie); its rating is unbounded")
    ]
    assert "newcomer" not in board.ratings()
    with pytest.raises(UnboundedRatingError, match="newcomer won all 2 of its votes"):
        compute_board(extra, interval="sandwich", unbounded="raise")


def test_bootstrap_replicates_that_lose_a_models_only_loss_go_to_infinity():
    votes = Votes.from_columns(
        ["flux-1-schnell", "b"] * 300 + ["rare"] * 7 + ["b"],
        ["b", "flux-1-schnell"] * 300 + ["flux-1-schnell"] * 7 + ["rare"],
        [0, 0] * 150 + [1, 1] * 150 + [0] * 7 + [0],
    )
    board = compute_board(votes, n_bootstrap=300, seed=2)
    rare = board.row("rare")
    assert math.isfinite(rare.rating) and rare.ci_high == math.inf
    assert rare.provisional and any("bootstrap replicates" in n for n in board.notes)


@pytest.mark.parametrize(
    ("make", "error", "text"),
    [
        (lambda v: Votes.from_columns([], [], []), NoVotesError, "no votes on board 'overall'"),
        (
            lambda v: Votes.from_columns(["x", "y"], ["y", "x"], [0, 0]),
            AnchorNotOnBoardError,
            "anchor model 'flux-1-schnell' is not on this board",
        ),
        (
            lambda v: Votes.from_columns(
                ["flux-1-schnell", "y", "p", "q"], ["y", "flux-1-schnell", "q", "p"], [0, 0, 2, 2]
            ),
            DisconnectedComparisonsError,
            "2 disconnected parts",
        ),
        (
            lambda v: Votes.from_columns(
                ["flux-1-schnell", "y", "flux-1-schnell"], ["y", "z", "z"], [0, 0, 0]
            ),
            UnboundedRatingError,
            "unbounded",
        ),
        (
            lambda v: Votes.from_columns(
                ["flux-1-schnell", "y", "y"],
                ["y", "flux-1-schnell", "z"],
                [0, 0, 2],
                modality=["t2i", "t2i", "edit"],
            ),
            RatingsError,
            "mix modalities",
        ),
    ],
)
def test_boards_that_cannot_be_fitted_raise_clear_errors(votes, make, error, text):
    with pytest.raises(error, match=text):
        compute_board(make(votes), interval="sandwich")


def test_an_anchor_excluded_as_unbounded_and_an_unknown_slice_are_errors(votes):
    lone = Votes.from_columns(["flux-1-schnell", "a", "b"], ["a", "b", "a"], [0, 0, 0])
    with pytest.raises(AnchorNotOnBoardError, match="excluded: it won all 1 of its votes"):
        compute_board(lone, interval="sandwich")
    with pytest.raises(NoVotesError, match="board 'use_case=Nope'"):
        compute_board(votes, board="use_case=Nope", interval="sandwich")
    with pytest.raises(ValueError, match="board must be"):
        compute_board(votes, board="style=x")


def test_a_board_that_fails_is_reported_without_stopping_the_others(votes):
    extra = Votes.from_columns(
        [*votes.model_a, "flux-2-dev"],
        [*votes.model_b, "imagen-4"],
        [*votes.outcome, 0],
        use_case=[*votes.use_case, "Frontier"],
        capability=[*votes.capability, "Physics"],
    )
    result = compute_all_boards(extra, interval="sandwich")
    assert set(result.failures) == {"use_case=Frontier", "capability=Physics"}
    assert isinstance(result.failures["use_case=Frontier"], UnboundedRatingError)
    assert "overall" in result.boards
    with pytest.raises(UnboundedRatingError):
        compute_all_boards(extra, interval="sandwich", strict=True)


def test_board_keys_parse_and_print():
    assert str(BoardKey.parse("overall")) == "overall"
    assert BoardKey.parse(" use_case = UI/UX Design ") == BoardKey("use_case", "UI/UX Design")
    assert str(BoardKey("capability", "Layout")) == "capability=Layout"
    with pytest.raises(ValueError):
        BoardKey("overall", "x")
