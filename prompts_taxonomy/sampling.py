"""Uniform sampling over the taxonomy: a cell uniformly among the cells that have prompts, then a prompt in it.

Sampling cells first (not prompts) is what makes coverage uniform: a cell with ten prompts is drawn exactly as
often as a cell with one, so no use case or capability dominates the votes because it was easier to write for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")
Cell = tuple[str, str]


def sample_cell(cells: Sequence[Cell], rng: np.random.Generator) -> Cell:
    """A cell drawn uniformly from `cells` (which must be non-empty)."""
    if not cells:
        raise ValueError("no cell has an active prompt")
    return cells[int(rng.integers(len(cells)))]


def sample_prompt(pool: Mapping[Cell, Sequence[T]], rng: np.random.Generator) -> tuple[Cell, T]:
    """Draw a cell uniformly among the non-empty ones, then an item uniformly within it."""
    cells = sorted(cell for cell, items in pool.items() if items)
    cell = sample_cell(cells, rng)
    items = pool[cell]
    return cell, items[int(rng.integers(len(items)))]
