"""Which models a published board ranks: a settled model (both ends of its interval bounded and at least the
snapshot's `min_votes` votes on the board) is ranked among the settled models only; the others are listed after
all of them, in a "not yet rated" group with no rank and the reason (e.g. "3 of 300 votes", "interval unbounded").

A model with three votes can have the highest point estimate of a board; its interval is then unbounded or too
wide to mean anything, so it must never be read as leading the board.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeVar

__all__ = ["ranks_among", "settle_rows", "unrated_reason"]


class _Ranked(Protocol):
    @property
    def model(self) -> str: ...
    @property
    def ci_low(self) -> float | None: ...
    @property
    def ci_high(self) -> float | None: ...
    @property
    def above(self) -> tuple[str, ...] | None: ...


E = TypeVar("E")


def unrated_reason(votes: int, ci_low: float | None, ci_high: float | None, min_votes: int) -> str | None:
    """Why a model is not yet rated on a board ("3 of 300 votes", "interval unbounded", or both), or None when it
    is settled: at least `min_votes` votes and both interval ends finite."""
    reasons = []
    if votes < min_votes:
        reasons.append(f"{votes:,} of {min_votes:,} votes")
    if ci_low is None or ci_high is None or not (math.isfinite(ci_low) and math.isfinite(ci_high)):
        reasons.append("interval unbounded")
    return "; ".join(reasons) or None


def ranks_among(entries: Sequence[_Ranked]) -> list[int]:
    """1 + the number of `entries` whose lead over each entry is significant: the published pairwise relation
    (`above`), restricted to these entries; boards published before it compare the stored intervals instead."""
    if all(e.above is not None for e in entries):
        names = {e.model for e in entries}
        return [1 + sum(m in names for m in e.above or ()) for e in entries]
    lows = sorted(e.ci_low if e.ci_low is not None else -math.inf for e in entries)
    highs = [e.ci_high if e.ci_high is not None else math.inf for e in entries]
    return [1 + len(lows) - bisect.bisect_right(lows, high) for high in highs]


def settle_rows(rows: Iterable[E], min_votes: int) -> tuple[E, ...]:
    """Board rows (dataclasses with `votes`, `ci_low`, `ci_high`, `above`, `rank`, `rated`, `unrated_reason`) in
    published order, settled ones first and ranked among themselves, then the unsettled ones with rank None."""
    settled: list[Any] = []
    unsettled: list[Any] = []
    for row in rows:
        r: Any = row
        reason = unrated_reason(r.votes, r.ci_low, r.ci_high, min_votes)
        if reason is None:
            settled.append(r)
        else:
            unsettled.append(dataclasses.replace(r, rank=None, rated=False, unrated_reason=reason))
    ranked = [
        dataclasses.replace(r, rank=rank, rated=True, unrated_reason=None)
        for r, rank in zip(settled, ranks_among(settled), strict=True)
    ]
    return tuple(ranked + unsettled)
