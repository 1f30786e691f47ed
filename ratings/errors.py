"""Typed errors for everything that can stop a leaderboard from being computed.

Each error carries the facts a caller needs (line number, model names, components) and renders a
one-line message that a command line can print as is. They all derive from :class:`RatingsError`
(a :class:`ValueError`), so "bad data" can be caught in one place.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AnchorNotOnBoardError",
    "BattleFormatError",
    "DisconnectedComparisonsError",
    "NoVotesError",
    "RankingFormatError",
    "RatingsError",
    "SingleModelError",
    "UnboundedRatingError",
    "UnknownBattleFormatError",
]

_SHOWN = 6


def _names(models: Sequence[str]) -> str:
    """``a, b, c`` with the tail elided after a few names, so messages stay one line."""
    shown = ", ".join(models[:_SHOWN])
    more = len(models) - _SHOWN
    return f"{shown}, ... (+{more} more)" if more > 0 else shown


class RatingsError(ValueError):
    """Base class: the votes cannot produce the requested leaderboard."""


class BattleFormatError(RatingsError):
    """A line of a battles file is malformed.

    Parameters
    ----------
    line : int
        1-based line number in the file (record number when the file is one JSON array).
    reason : str
        What is wrong with it.
    unit : str
        ``"line"`` or ``"record"``: what ``line`` counts.
    """

    def __init__(self, line: int, reason: str, unit: str = "line") -> None:
        self.line = line
        self.reason = reason
        super().__init__(f"{unit} {line}: {reason}")


class NoVotesError(RatingsError):
    """There are no votes to fit (after filters, on this board)."""

    def __init__(self, where: str = "this board") -> None:
        self.where = where
        super().__init__(f"no votes on {where}")


class SingleModelError(RatingsError):
    """Only one model has votes, so there is nothing to compare it with."""

    def __init__(self, model: str) -> None:
        self.model = model
        super().__init__(
            f"only one model on this board ({model}); a rating needs at least two models that were compared"
        )


class DisconnectedComparisonsError(RatingsError):
    """The comparison graph falls apart: ratings of different parts share no scale.

    Bradley-Terry only identifies differences between models linked by a chain of votes, so a
    board whose models split into groups that never met cannot be put on one scale.
    """

    def __init__(self, components: Sequence[Sequence[str]]) -> None:
        self.components = [list(c) for c in components]
        parts = " | ".join("{" + _names(list(c)) + "}" for c in self.components[:4])
        if len(self.components) > 4:
            parts += f" | ... ({len(self.components) - 4} more)"
        super().__init__(
            f"the comparison graph has {len(self.components)} disconnected parts, so their ratings "
            f"share no common scale: {parts}; add votes between them or rate them separately"
        )


class UnboundedRatingError(RatingsError):
    """The maximum-likelihood ratings do not exist (they run off to infinity).

    This happens when some models never lost (or never won) against the rest of the board:
    raising them further always increases the likelihood. ``reasons`` maps each such model to a
    human-readable explanation.
    """

    def __init__(self, reasons: dict[str, str]) -> None:
        self.reasons = dict(reasons)
        listed = "; ".join(f"{m} {r}" for m, r in list(self.reasons.items())[:_SHOWN])
        if len(self.reasons) > _SHOWN:
            listed += f"; ... (+{len(self.reasons) - _SHOWN} more)"
        super().__init__(f"ratings are unbounded (no finite maximum-likelihood estimate): {listed}")


class AnchorNotOnBoardError(RatingsError):
    """The anchor model, which defines the scale's zero point, has no rating on this board."""

    def __init__(self, anchor: str, models: Sequence[str], why: str | None = None) -> None:
        self.anchor = anchor
        self.models = list(models)
        detail = f" ({why})" if why else f"; models on it: {_names(list(models))}"
        super().__init__(f"anchor model '{anchor}' is not on this board{detail}; choose another anchor")


class UnknownBattleFormatError(RatingsError):
    """A battles file whose first record has none of the column sets of the formats known."""

    def __init__(self, columns: Sequence[str], formats: dict[str, tuple[str, ...]]) -> None:
        self.columns = list(columns)
        seen = ", ".join(self.columns[:12]) + (
            f", ... (+{len(self.columns) - 12} more)" if len(columns) > 12 else ""
        )
        known = "; ".join(f"{name} ({', '.join(cols)})" for name, cols in formats.items())
        super().__init__(
            f"the battles match no known format: columns seen: {seen or 'none'}; formats known: {known}"
        )


class RankingFormatError(RatingsError):
    """A K-wise ranking is malformed (an index out of range, a repeated item, fewer than two items)."""

    def __init__(self, index: int, reason: str) -> None:
        self.index = index
        self.reason = reason
        super().__init__(f"ranking {index}: {reason}")
