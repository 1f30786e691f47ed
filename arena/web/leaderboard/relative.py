"""Differences from a chosen model on a shown board (`relative_to`): shared by the leaderboard API and page.

The rows' intervals are each rating's interval on the board's centred scale (shifted so the anchor reads
1000), not intervals of gaps. A reader asking "is X better than the anchor, or than model Y" gets the difference
``R_X - R_ref`` with the board's per-pair interval ``d -+ z se`` and the simultaneous one the ranks use
(:mod:`arena.leaderboard.differences`, :mod:`ratings.differences`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Query

from arena.leaderboard import PublishedBoard
from arena.leaderboard.differences import relative_to
from ratings.differences import Difference

__all__ = ["ANCHOR", "Relative", "RelativeToQuery", "relative"]

#: The `relative_to` value that names the board's anchor, whichever model it is.
ANCHOR = "anchor"

RelativeToQuery = Annotated[
    str | None,
    Query(
        pattern=r"^[a-z0-9][a-z0-9-]{0,63}$",
        description="A model slug on the board, or `anchor` for the board's anchor: each row then carries "
        "`difference`, its rating minus that model's with the per-pair 95% interval of the difference (and the "
        "simultaneous one the ranks use). The same numbers whichever model is the display anchor. 422 when the "
        "model is not on the board; 404 on boards published before difference intervals were stored.",
    ),
]


@dataclass(frozen=True)
class Relative:
    """The reference model and every model's difference from it (by slug)."""

    reference: str
    level: float
    critical: float | None
    differences: dict[str, Difference]


def relative(board: PublishedBoard, asked: str) -> Relative:
    """Differences from `asked` (a slug, or `anchor`) on `board`. Raises NoDifferences with the reason."""
    reference = str(board.params.get("anchor", "")) if asked == ANCHOR else asked
    found = relative_to(board.differences, board.ratings(), reference)
    assert board.differences is not None
    critical = board.differences.critical
    return Relative(reference, board.differences.level, critical if critical == critical else None, found)
