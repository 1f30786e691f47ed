"""Vote filters. Each writes a verdict (kept or filtered, reason, filter version) beside the raw vote; a vote
counts for ratings only when no current verdict filters it. Online filters decide when the vote arrives, from
signals stored on the vote, so changing a filter and re-running it over every vote loses nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ONLINE_FILTERS = {"min_time": "1", "honeypot": "1", "image_fetch": "1"}


@dataclass(frozen=True)
class Verdict:
    """One filter's decision on one vote."""

    filter: str
    version: str
    kept: bool
    reason: str = ""


def online_verdicts(signals: Mapping[str, Any], min_seconds: float) -> list[Verdict]:
    """Minimum interaction time, honeypot and image-fetch verdicts for a vote with these signals."""
    seconds = float(signals.get("seconds", 0.0))
    fast = seconds < min_seconds
    return [
        Verdict(
            "min_time",
            ONLINE_FILTERS["min_time"],
            not fast,
            f"voted {seconds:.2f}s after serving (< {min_seconds:g}s)" if fast else "",
        ),
        Verdict(
            "honeypot",
            ONLINE_FILTERS["honeypot"],
            not signals.get("honeypot"),
            "hidden honeypot field was filled" if signals.get("honeypot") else "",
        ),
        Verdict(
            "image_fetch",
            ONLINE_FILTERS["image_fetch"],
            bool(signals.get("images_fetched")),
            "" if signals.get("images_fetched") else "client never fetched both images",
        ),
    ]
