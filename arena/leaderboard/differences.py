"""Stored pairwise differences of a board: how a rating snapshot keeps them, and "X - reference" from them.

A board's rows carry each model's interval on the board's centred scale, which is not an interval of its gap to
the anchor (:mod:`ratings.differences`). So the snapshot job also stores, per board, the Elo-like standard
error of every pairwise difference (the ones the ranks' max-T rule uses) and the ranks' critical value, in
``rating_snapshots.differences``:

``{"rule": "normal-se", "level": 0.95, "critical": 3.1, "models": [slugs in row order], "se": [upper triangle,
row by row, 0.01 Elo, null when unbounded]}``

From that payload and the published ratings, :func:`relative_to` gives every model's difference from any chosen
model with a per-pair interval ``d -+ z se`` and the simultaneous one ``d -+ critical se``: the same numbers
whichever model is the display anchor. Boards published before the column existed have none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ratings.differences import Difference, relative_differences

__all__ = [
    "DIFFERENCE_RULE",
    "NoDifferences",
    "NotOnBoard",
    "StoredDifferences",
    "differences_payload",
    "relative_to",
]

#: How the stored differences become intervals: ``d -+ z se`` per pair (normal, the board's standard errors).
DIFFERENCE_RULE = "normal-se"
#: Stored standard errors are rounded to this many decimals of an Elo point.
DECIMALS = 2


class NoDifferences(Exception):
    """The board has no stored differences (published before they were): a message for the reader."""


class NotOnBoard(NoDifferences):
    """The asked reference model is not on the board."""


@dataclass(frozen=True, eq=False)
class StoredDifferences:
    """A board's pairwise standard errors (Elo-like, ``nan``: unbounded), the ranks' critical value, the level."""

    models: tuple[str, ...]
    se: np.ndarray
    critical: float
    level: float
    index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.index.update({m: k for k, m in enumerate(self.models)})

    @classmethod
    def parse(cls, payload: dict[str, Any] | None) -> StoredDifferences | None:
        """The stored payload as arrays, or None when the board has none (or a rule this code does not know)."""
        if not payload or payload.get("rule") != DIFFERENCE_RULE:
            return None
        models = tuple(str(m) for m in payload["models"])
        n = len(models)
        se = np.zeros((n, n))
        i, j = np.triu_indices(n, 1)
        values = np.array([math.nan if v is None else float(v) for v in payload["se"]], dtype=np.float64)
        if len(values) != len(i):
            return None
        se[i, j] = values
        se[j, i] = values
        critical = payload.get("critical")
        return cls(models, se, math.nan if critical is None else float(critical), float(payload["level"]))


def differences_payload(models: list[str], se: np.ndarray, critical: float, level: float) -> dict[str, Any]:
    """What a snapshot stores: ``se`` (``(n, n)``, Elo-like, in ``models`` order) as its rounded upper triangle."""
    i, j = np.triu_indices(len(models), 1)
    upper = np.asarray(se, dtype=np.float64)[i, j]
    return {
        "rule": DIFFERENCE_RULE,
        "level": float(level),
        "critical": float(critical) if math.isfinite(critical) else None,
        "models": list(models),
        "se": [round(float(v), DECIMALS) if math.isfinite(v) else None for v in upper],
    }


def relative_to(
    stored: StoredDifferences | None, ratings: dict[str, float], reference: str
) -> dict[str, Difference]:
    """``R_model - R_reference`` with its intervals for every model of ``ratings`` (a board's published ratings).

    Raises
    ------
    NoDifferences
        When the board has no stored differences; :class:`NotOnBoard` when ``reference`` is not on it.
    """
    if stored is None:
        raise NoDifferences(
            "this board was published before difference intervals were stored; the next snapshot has them"
        )
    if reference not in stored.index or reference not in ratings:
        raise NotOnBoard(
            f"model '{reference}' is not on this board; relative_to takes a slug of a model on it"
        )
    models = [m for m in stored.models if m in ratings]
    keep = [stored.index[m] for m in models]
    se = stored.se[np.ix_(keep, keep)]
    values = np.array([ratings[m] for m in models])
    found = relative_differences(
        models, values, se, models.index(reference), level=stored.level, critical=stored.critical
    )
    return {d.model: d for d in found}
