"""The personal board and the agreement figure on hand-made votes (no database)."""

import math

import numpy as np
import pytest

from arena.voting.personal import agreement, personal_board
from arena.voting.record import CountedVote


def _votes(*specs: tuple[str, str, str, int]) -> list[CountedVote]:
    """(winner or 'tie', x, y, times) -> counted votes in the stored form (sorted models)."""
    out = []
    for outcome, x, y, times in specs:
        a, b = sorted((x, y))
        winner = "tie" if outcome == "tie" else ("model_a" if outcome == a else "model_b")
        out += [CountedVote(a, b, winner)] * times
    return out


TRIANGLE = _votes(
    ("p", "p", "q", 3), ("q", "p", "q", 1), ("q", "q", "r", 2), ("r", "q", "r", 1), ("r", "p", "r", 1)
)


def test_a_board_of_two_separate_groups_places_the_larger_and_says_why_the_others_are_not_placed():
    votes = TRIANGLE + _votes(("s", "s", "t", 1), ("t", "s", "t", 1))  # s and t: their own group
    board = personal_board(votes, public={}, anchor=None, n_bootstrap=50)
    assert {r.model for r in board.rows} == {"p", "q", "r"}
    assert {u.model for u in board.unplaced} == {"s", "t"}
    assert all("not compared with the placed models" in u.reason for u in board.unplaced)
    assert board.fitted_votes == len(TRIANGLE) and board.counted_votes == len(votes)


def test_a_model_that_only_lost_is_not_placed_and_nothing_is_invented_for_it():
    votes = TRIANGLE + _votes(("p", "p", "z", 1), ("q", "q", "z", 1))
    board = personal_board(votes, public={}, anchor=None, n_bootstrap=50)
    (z,) = board.unplaced
    assert z.model == "z" and z.reason.startswith("lost all 2 of its votes") and z.record.losses == 2
    assert "z" not in {r.model for r in board.rows}


def test_the_public_anchor_reads_1000_else_the_most_voted_model_on_the_public_board_reads_its_public_rating():
    anchored = personal_board(TRIANGLE, public={"q": 990.0, "r": 1040.0}, anchor="q", n_bootstrap=50)
    assert anchored.reference == "q" and anchored.reference_is_anchor
    assert next(r for r in anchored.rows if r.model == "q").rating == pytest.approx(1000.0)
    other = personal_board(TRIANGLE, public={"r": 1040.0}, anchor="absent", n_bootstrap=50)
    assert other.reference == "r" and not other.reference_is_anchor
    assert next(r for r in other.rows if r.model == "r").rating == pytest.approx(1040.0)
    # only the reference moves: differences are the same on both
    diff = lambda b: {r.model: r.rating for r in b.rows}["p"] - {r.model: r.rating for r in b.rows}["r"]  # noqa: E731
    assert diff(anchored) == pytest.approx(diff(other))


def test_no_board_when_every_model_won_or_lost_everything():
    board = personal_board(
        _votes(("a", "a", "b", 2), ("b", "b", "c", 2)), public={}, anchor=None, n_bootstrap=20
    )
    assert board.rows == () and {u.model for u in board.unplaced} == {"a", "b", "c"}


def test_intervals_are_open_on_a_side_the_votes_leave_unbounded_and_contain_the_rating():
    board = personal_board(TRIANGLE, public={}, anchor=None, n_bootstrap=200, seed=1)
    for row in board.rows:
        assert row.ci_low is None or row.ci_low < row.rating
        assert row.ci_high is None or row.ci_high > row.rating
        assert all(x is None or math.isfinite(x) for x in (row.ci_low, row.ci_high))
    assert any(r.ci_low is None or r.ci_high is None for r in board.rows)  # 9 votes: some replicates diverge


def test_the_sandwich_gives_finite_intervals_and_zero_rounds_fall_back_to_it():
    board = personal_board(TRIANGLE, public={}, anchor=None, n_bootstrap=0)
    assert board.interval == "sandwich" and all(r.ci_low is not None for r in board.rows)


def test_agreement_counts_decisive_votes_between_public_models_with_different_ratings():
    public = {"p": 1100.0, "q": 1000.0, "r": 1000.0}
    votes = _votes(
        ("p", "p", "q", 3), ("q", "p", "q", 1), ("tie", "p", "q", 5), ("q", "q", "r", 4), ("x", "p", "x", 2)
    )
    got = agreement(votes, public)
    assert (got.agreed, got.decisive) == (3, 4)  # q-r: equal public ratings, p-x: x not on the board
    assert agreement([], public).share is None


def test_relabelling_models_permutes_the_personal_board():
    rename = {"p": "zeta", "q": "alpha", "r": "mid"}
    moved = [CountedVote(*sorted((rename[v.model_a], rename[v.model_b])), "") for v in TRIANGLE]
    moved = [
        CountedVote(
            m.model_a,
            m.model_b,
            v.winner
            if (rename[v.model_a] == m.model_a) or v.winner == "tie"
            else {"model_a": "model_b", "model_b": "model_a"}[v.winner],
        )
        for m, v in zip(moved, TRIANGLE, strict=True)
    ]
    first = personal_board(TRIANGLE, public={}, anchor="q", n_bootstrap=0)
    second = personal_board(moved, public={}, anchor="alpha", n_bootstrap=0)
    ratings = {rename[r.model]: r.rating for r in first.rows}
    assert np.allclose([ratings[r.model] for r in second.rows], [r.rating for r in second.rows])
