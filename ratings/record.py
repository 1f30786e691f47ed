"""A model's record: its wins, losses and ties from its own side, as the model pages, the head-to-head tables
and a voter's personal board count them (one definition for all of them)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Record"]


@dataclass
class Record:
    """Outcomes from one model's side."""

    wins: int = 0
    losses: int = 0
    ties: int = 0

    @property
    def votes(self) -> int:
        """All votes counted."""
        return self.wins + self.losses + self.ties

    @property
    def win_rate(self) -> float | None:
        """(wins + ties / 2) / votes, or None without votes."""
        return (self.wins + self.ties / 2) / self.votes if self.votes else None
