"""An independent Plackett-Luce fit for tests: Hunter's (2004) MM algorithm, written from the paper, in plain loops.

Hunter (2004), "MM algorithms for generalized Bradley-Terry models", eq. (30): with ``w_i`` the number of
stages item ``i`` wins (it is chosen first among the items left, the last stage of a ranking excluded) and
``delta_ijs = 1`` when item ``i`` is among the items left at stage ``s`` of ranking ``j``, the update is

    gamma_i <- w_i / sum_j sum_{s < m_j} delta_ijs / sum_{t >= s} gamma_{r_jt}

It shares no code with :mod:`ratings.plackett_luce` (no Newton step, no information matrix, no numpy softmax).
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def sample_ranking(strengths: Sequence[float], items: Sequence[int], u: Sequence[float]) -> list[int]:
    """A Plackett-Luce draw of ``items`` by sequential choice with uniforms ``u`` (one per stage)."""
    left = list(items)
    out = []
    for s in range(len(items) - 1):
        total = sum(math.exp(strengths[i]) for i in left)
        acc = 0.0
        pick = left[-1]
        for i in left:
            acc += math.exp(strengths[i]) / total
            if u[s] < acc:
                pick = i
                break
        out.append(pick)
        left.remove(pick)
    out.append(left[0])
    return out


def mm_plackett_luce(
    rankings: Sequence[Sequence[int]], n_items: int, *, iterations: int = 20000, tol: float = 1e-13
) -> list[float]:
    """Log-strengths summing to zero by Hunter's MM iteration (slow, simple, monotone)."""
    wins = [0.0] * n_items
    for r in rankings:
        for s in range(len(r) - 1):
            wins[r[s]] += 1.0
    gamma = [1.0] * n_items
    for _ in range(iterations):
        denom = [0.0] * n_items
        for r in rankings:
            tail = [0.0] * len(r)
            acc = 0.0
            for t in range(len(r) - 1, -1, -1):
                acc += gamma[r[t]]
                tail[t] = acc
            partial = 0.0
            for s in range(len(r) - 1):
                partial += 1.0 / tail[s]
                denom[r[s]] += partial
            denom[r[-1]] += partial
        new = [wins[i] / denom[i] if denom[i] > 0 else gamma[i] for i in range(n_items)]
        total = sum(new)
        new = [g * n_items / total for g in new]
        change = max(abs(math.log(a) - math.log(b)) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if change < tol:
            break
    logs = [math.log(g) for g in gamma]
    mean = sum(logs) / n_items
    return [x - mean for x in logs]
