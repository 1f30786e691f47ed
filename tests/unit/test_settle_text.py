"""The pair-with-the-next-model texts on the leaderboard and model pages read as English and say the rule."""

from __future__ import annotations

import pytest

from arena.web.leaderboard.rows import REACH_FACTOR, _with_article, settle_short, settle_text
from ratings.certainty import MAX_SETTLE_VOTES, SETTLE_PROBABILITY


@pytest.mark.parametrize(
    ("number", "said"),
    [
        ("80%", "an 80%"),
        ("8%", "an 8%"),
        ("11%", "an 11%"),
        ("18%", "an 18%"),
        ("50%", "a 50%"),
        ("1%", "a 1%"),
    ],
)
def test_the_article_follows_how_the_number_is_read(number, said):
    assert _with_article(number) == said


def test_the_quoted_chance_is_named_with_its_article():
    chance = f"{100 * SETTLE_PROBABILITY:.0f}%"
    text = settle_text(False, 1234.0)
    assert text == f"unsettled vs next: ~1,234 more votes for {_with_article(chance)} chance to settle"
    assert f" a {chance}" not in text or not chance.startswith("8")
    assert f"{MAX_SETTLE_VOTES:,}" in settle_text(False, None)


def test_the_short_form_fits_a_cell_and_keeps_the_reading():
    assert settle_short(None, None) == ""
    assert settle_short(True, 0.0) == "settled vs next"
    assert settle_short(False, 1093.4) == "unsettled vs next: ~1,093 votes"
    assert settle_short(False, None) == f"unsettled vs next: not by votes up to {MAX_SETTLE_VOTES:,}"
    assert len(settle_short(False, None)) < len(settle_text(False, None)) / 2


def test_a_count_past_ten_times_the_board_reads_not_within_reach():
    """Issue 28: "~158,268 more votes" to settle a pair of a 15,000-vote board is no figure to quote."""
    assert REACH_FACTOR == 10
    far = settle_text(False, 158_268.0, board_votes=15_000)
    assert far == (
        "unsettled vs next: not within reach (settling it needs over 10 times the 15,000 votes this board has)"
    )
    assert "158,268" not in far
    assert settle_short(False, 158_268.0, board_votes=15_000) == "unsettled vs next: not within reach"
    # at the bound the number is still quoted; without a board size (old callers) it always is
    assert settle_short(False, 150_000.0, board_votes=15_000) == "unsettled vs next: ~150,000 votes"
    assert "~158,268 more votes" in settle_text(False, 158_268.0)
    assert settle_short(True, 158_268.0, board_votes=15_000) == "settled vs next"
