"""The both-orders rule: every pairwise question is asked with A on the left and again with B on the left.

A side wins only when both answers name it; any other pair of answers is a tie. An answer pair that picks the
same screen side both times (the verdict flips with the order) is a *position-inconsistent tie*; its share of
the judged matchups is the position-bias rate the report shows. One decisive answer and one tie is an
*order-dependent tie* (also counted as a tie, reported apart).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["Choice", "OrderedVerdict", "combine_orders", "position_bias_rate"]

Choice = Literal["left", "right", "tie"]
CHOICES: tuple[Choice, ...] = ("left", "right", "tie")

# Outcome codes from A's point of view, as in the ratings package.
A_WINS, B_WINS, TIE = 0, 1, 2


@dataclass(frozen=True)
class OrderedVerdict:
    """The combined verdict of one matchup from its two answers."""

    outcome: int  # A_WINS / B_WINS / TIE
    position_flip: bool  # both answers decisive, same screen side: the order decided
    order_dependent: bool  # the two answers disagree in any way (a flip, or one tie and one win)

    @property
    def winner(self) -> str:
        """The battles-format winner: ``model_a``, ``model_b`` or ``tie``."""
        return ("model_a", "model_b", "tie")[self.outcome]


def _for_a(choice: Choice, a_on_left: bool) -> int:
    if choice == "tie":
        return TIE
    return A_WINS if (choice == "left") == a_on_left else B_WINS


def combine_orders(a_left: Choice, b_left: Choice) -> OrderedVerdict:
    """Combine the answer with A shown on the left (``a_left``) and the one with B on the left (``b_left``)."""
    if a_left not in CHOICES or b_left not in CHOICES:
        raise ValueError(f"choices must be one of {CHOICES} (got {a_left!r}, {b_left!r})")
    first, second = _for_a(a_left, True), _for_a(b_left, False)
    outcome = first if first == second else TIE
    flip = first != second and TIE not in (first, second)
    return OrderedVerdict(outcome, flip, first != second)


def position_bias_rate(flips: np.ndarray) -> float:
    """Share of judged matchups whose two answers picked the same screen side (nan when none were judged)."""
    flips = np.asarray(flips, dtype=bool)
    return float(flips.mean()) if flips.size else float("nan")
