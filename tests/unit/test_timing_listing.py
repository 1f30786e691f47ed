"""A new endpoint's generation time is listed only once it has the configured minimum of timing samples; before
that the leaderboard row says "collecting" and the time is absent from the row, its sort key and the charts."""

from datetime import UTC, datetime

from arena.leaderboard.boards import BoardEntry, ModelInfo, PublishedBoard
from arena.leaderboard.latency import summarize_latency
from arena.leaderboard.table import build_rows
from arena.web.leaderboard.rows import row_texts


def _board():
    rows = tuple(
        BoardEntry(slug, 1000.0 - 10 * i, None, None, i + 1, 400, 200, 190, 10, False)
        for i, slug in enumerate(("veteran", "newcomer", "untimed"))
    )
    return PublishedBoard(
        1, "text_to_image", "overall", datetime(2026, 11, 30, tzinfo=UTC), 1200, "f1", "m1", {}, rows
    )


def _models():
    return {
        s: ModelInfo(s, s.title(), "Org", "text_to_image", "standard", "current", 0.01, None, False, True)
        for s in ("veteran", "newcomer", "untimed")
    }


LATENCY = {
    "veteran": summarize_latency("veteran", [2.0 + i / 10 for i in range(12)], 0),
    "newcomer": summarize_latency("newcomer", [5.0, 6.0, 7.0], 1),
}


def test_times_are_listed_from_the_minimum_and_collecting_before():
    rows = {
        r.model: r
        for r in build_rows(_board(), _models(), LATENCY, include_modified=False, min_timing_samples=8)
    }
    assert rows["veteran"].median_s == LATENCY["veteran"].median and not rows["veteran"].timing_collecting
    assert rows["newcomer"].median_s is None and rows["newcomer"].p95_s is None
    assert rows["newcomer"].timing_collecting and rows["newcomer"].latency_samples == 3
    assert rows["untimed"].timing_collecting and rows["untimed"].latency_samples == 0
    texts = {t.model: t for t in row_texts(list(rows.values()), anchor=None, min_votes=300)}
    # "collecting" with the sample count on a second line (the table fits 1,160 px; issue 28 item 5)
    assert texts["newcomer"].time == "collecting" and texts["newcomer"].time_range == "3 of 8 samples"
    assert texts["veteran"].time.endswith("s") and "collecting" not in texts["veteran"].time


def test_without_a_minimum_every_timed_model_is_listed():
    rows = {r.model: r for r in build_rows(_board(), _models(), LATENCY, include_modified=False)}
    assert rows["newcomer"].median_s == 6.0 and not rows["newcomer"].timing_collecting
    assert rows["untimed"].median_s is None and not rows["untimed"].timing_collecting
