"""Which votes feed which board, and with what weight.

A modality has an *overall* board plus one board per use case and one per capability. A slice
board (use case or capability) simply uses the votes of that slice. On the overall board each
taxonomy cell (use case x capability) carries the same total weight, so that every use case and
every capability contributes equally no matter how many votes each cell happened to collect
("Cada caso de uso y capacidad aporta el mismo peso a la puntuación global"). A vote in cell
``c`` therefore weighs ``W / (n_cells * W_c)`` times its own weight, where ``W_c`` is the cell's
total weight, ``W`` the board's and ``n_cells`` the number of non-empty cells: the total weight of
the board is unchanged. Votes without a tag form their own cell (tag ``None``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["OVERALL", "BoardKey", "cell_balance_factors"]

BoardKind = Literal["overall", "use_case", "capability"]


@dataclass(frozen=True, order=True)
class BoardKey:
    """A board of a modality: ``overall``, ``use_case=<name>`` or ``capability=<name>``."""

    kind: BoardKind = "overall"
    value: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("overall", "use_case", "capability"):
            raise ValueError(f"unknown board kind {self.kind!r}; expected overall, use_case or capability")
        if (self.kind == "overall") != (self.value is None):
            raise ValueError("the overall board takes no value; use_case and capability boards need one")

    @classmethod
    def parse(cls, text: str | BoardKey) -> BoardKey:
        """Read ``overall``, ``use_case=NAME`` or ``capability=NAME``.

        Raises
        ------
        ValueError
            On any other form.
        """
        if isinstance(text, BoardKey):
            return text
        if text.strip() == "overall":
            return cls()
        kind, sep, value = text.partition("=")
        kind = kind.strip()
        if not sep or kind not in ("use_case", "capability") or not value.strip():
            raise ValueError(f"board must be 'overall', 'use_case=NAME' or 'capability=NAME' (got {text!r})")
        return cls(kind, value.strip())  # type: ignore[arg-type]

    @property
    def is_slice(self) -> bool:
        """True for use-case and capability boards."""
        return self.kind != "overall"

    def __str__(self) -> str:
        return "overall" if self.value is None else f"{self.kind}={self.value}"


OVERALL = BoardKey()


def cell_balance_factors(cell_totals: np.ndarray) -> np.ndarray:
    """Per-cell multipliers that give every non-empty cell the same total weight.

    Parameters
    ----------
    cell_totals : numpy.ndarray
        Total vote weight of each cell, shape ``(..., n_cells)`` (leading axes are independent,
        e.g. bootstrap replicates).

    Returns
    -------
    numpy.ndarray
        Same shape: ``W / (n_nonempty * W_c)`` for non-empty cells and 0 for empty ones, so that
        ``sum(factors * cell_totals) == W``.
    """
    totals = np.asarray(cell_totals, dtype=np.float64)
    nonempty = totals > 0
    n_nonempty = nonempty.sum(axis=-1, keepdims=True)
    grand = totals.sum(axis=-1, keepdims=True)
    safe = np.where(nonempty, totals, 1.0)
    return np.where(nonempty, grand / (np.maximum(n_nonempty, 1) * safe), 0.0)
