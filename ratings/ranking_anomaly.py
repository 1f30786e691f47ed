"""Does a voter rank by screen position? A test for the anomaly filter of K-wise votes.

The arena shuffles the screen positions of the K images independently of the models, so for an honest voter,
whatever their taste, the order of the screen positions within their ranking is a uniformly random permutation
(each of the ``m!`` orders of the ``m`` ranked items equally likely, independently across votes). A voter who
ranks by position (left to right, or right to left) breaks that. :func:`position_bias` gives two exact tests
against the uniform null:

* **identical**: how many rankings equal the screen order (or its reverse, the other direction), against a sum
  of Bernoulli(``1 / m!``) (Poisson-binomial when ranking lengths differ), exact upper tail;
* **Kendall distance**: the total number of inverted pairs between each ranking and the screen order, against
  its exact null distribution (the convolution of Mahonian distributions, one per vote), exact lower tail. It
  also catches a voter who mostly, not always, follows position.

The filter applies a threshold to a p-value (with whatever multiple-testing rule it uses across voters).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["PositionBias", "inversions", "mahonian", "position_bias"]


@dataclass(frozen=True)
class PositionBias:
    """What :func:`position_bias` measured for one voter, in the direction (``forward``: first shown ranked
    best; else reversed) with the stronger evidence.

    ``fraction_identical`` of ``n_rankings`` equal the screen order (``expected_identical`` under the null,
    ``p_identical`` its exact upper tail); ``mean_tau`` is the mean Kendall tau between ranking and screen order
    (1: always by position; 0 expected), ``p_kendall`` the exact lower tail of the total inversions.
    ``p_value`` is the smaller of the two p-values doubled for the two tests and again for the two directions
    (Bonferroni, capped at 1): the figure to threshold.
    """

    n_rankings: int
    forward: bool
    n_identical: int
    fraction_identical: float
    expected_identical: float
    p_identical: float
    mean_tau: float
    p_kendall: float
    p_value: float


def mahonian(m: int) -> np.ndarray:
    """Probabilities of ``0 .. m(m-1)/2`` inversions in a uniformly random permutation of ``m`` items."""
    counts = np.array([1.0])
    for k in range(2, m + 1):
        counts = np.convolve(counts, np.ones(k))
    return counts / math.factorial(m)


def inversions(order: Sequence[int]) -> int:
    """Pairs out of increasing order in ``order`` (the Kendall distance to the identity)."""
    return sum(1 for a in range(len(order)) for b in range(a + 1, len(order)) if order[a] > order[b])


def _positions(ranking: Sequence[int], shown: Sequence[int], k: int) -> list[int]:
    where = {item: p for p, item in enumerate(shown)}
    if len(where) != len(shown):
        raise ValueError(f"vote {k}: an item is shown twice ({list(shown)})")
    missing = [x for x in ranking if x not in where]
    if missing:
        raise ValueError(f"vote {k}: ranked item {missing[0]} was not shown ({list(shown)})")
    if len(set(ranking)) != len(ranking) or len(ranking) < 2:
        raise ValueError(f"vote {k}: a ranking needs two or more distinct items ({list(ranking)})")
    return [where[x] for x in ranking]


def _one_direction(pos: list[list[int]]) -> tuple[int, float, float, float, float]:
    """Identical count, its expectation and exact upper tail; mean tau and exact lower tail of inversions."""
    identical = sum(1 for p in pos if all(p[s] < p[s + 1] for s in range(len(p) - 1)))
    success = np.array([1.0])
    total_inv = np.array([1.0])
    observed_inv = 0
    tau = 0.0
    for p in pos:
        m = len(p)
        q = 1.0 / math.factorial(m)
        success = np.convolve(success, [1.0 - q, q])
        total_inv = np.convolve(total_inv, mahonian(m))
        inv = inversions(p)
        observed_inv += inv
        tau += 1.0 - 4.0 * inv / (m * (m - 1))
    expected = float(sum(1.0 / math.factorial(len(p)) for p in pos))
    p_id = float(min(1.0, success[identical:].sum()))
    p_kt = float(min(1.0, total_inv[: observed_inv + 1].sum()))
    return identical, expected, p_id, tau / len(pos), p_kt


def position_bias(rankings: Sequence[Sequence[int]], shown: Sequence[Sequence[int]]) -> PositionBias:
    """Test one voter's rankings for ranking by screen position.

    Parameters
    ----------
    rankings : sequence of sequences of int
        Each vote's ranking, item ids best to worst (partial rankings allowed: the test uses the listed items).
    shown : sequence of sequences of int
        Each vote's items in screen order (first position first), the same ids.

    Raises
    ------
    ValueError
        No votes, different lengths, a ranked item that was not shown, a repeated item.
    """
    if len(rankings) != len(shown):
        raise ValueError(f"{len(rankings)} rankings but {len(shown)} screen orders")
    if not rankings:
        raise ValueError("no rankings to test")
    pos = [_positions(r, s, k) for k, (r, s) in enumerate(zip(rankings, shown, strict=True))]
    best = None
    for forward in (True, False):
        oriented = pos if forward else [[-x for x in p] for p in pos]
        identical, expected, p_id, tau, p_kt = _one_direction(oriented)
        p_value = min(1.0, 4.0 * min(p_id, p_kt))
        result = PositionBias(
            len(pos), forward, identical, identical / len(pos), expected, p_id, tau, p_kt, p_value
        )
        if best is None or result.p_value < best.p_value:
            best = result
    assert best is not None
    return best
