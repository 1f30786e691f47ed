"""Number and time formatting for the page templates (the leaderboard pages and the voter's own record)."""

from __future__ import annotations

import math
from datetime import datetime

__all__ = ["FMT", "Fmt"]


class Fmt:
    """Number formatting for the leaderboard templates (missing values render as an en dash)."""

    dash = "–"

    def rating(self, value: float | None) -> str:
        """A rating to the nearest point."""
        return self.dash if value is None or not math.isfinite(value) else f"{value:,.0f}"

    def interval(self, rating: float, low: float | None, high: float | None) -> str:
        """An interval relative to the rating: "+15 / −12"."""
        if low is None or high is None:
            return "unbounded"
        return f"+{high - rating:,.0f} / −{rating - low:,.0f}"

    def price(self, value: float | None) -> str:
        """USD per 1,000 images."""
        return self.dash if value is None else f"${value:,.2f}"

    def seconds(self, value: float | None) -> str:
        """Seconds with one decimal."""
        return self.dash if value is None else f"{value:.1f} s"

    def percent(self, value: float | None) -> str:
        """A share as a whole percentage."""
        return self.dash if value is None else f"{100 * value:.0f}%"

    def when(self, value: datetime | None) -> str:
        """A UTC time to the minute."""
        return self.dash if value is None else value.strftime("%Y-%m-%d %H:%M UTC")

    def signed(self, value: float | None, unit: str = "") -> str:
        """A signed difference."""
        return self.dash if value is None else f"{value:+.1f}{unit}"


FMT = Fmt()
