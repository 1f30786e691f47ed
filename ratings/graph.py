"""When do finite Bradley-Terry ratings exist? Graph checks on the comparisons.

Two graphs on the models matter (Zermelo 1929; Ford 1957):

* the *comparison graph* (an edge wherever two models met): if it is disconnected, the parts
  have no common scale;
* the *win graph* (an arc ``i -> j`` wherever ``i`` beat ``j``; a tie is half a win each way, so
  it gives both arcs): the maximum-likelihood estimate is finite if and only if this graph is
  strongly connected. Otherwise some group of models never lost (or never won) against the rest,
  and pushing it further away always increases the likelihood.

When the estimate does not exist, the supremum of the likelihood is still well defined as a
limit: models in a reference strongly connected component keep the ratings fitted on their own
votes, models that (transitively) beat that component go to ``+inf``, models it (transitively)
beat go to ``-inf``, and models with no one-sided chain to it are undefined. The bootstrap uses
this limit for the occasional resample where it happens (:func:`limit_states`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy.sparse import csr_array

from ratings.errors import DisconnectedComparisonsError, UnboundedRatingError
from ratings.pairs import PairCounts

__all__ = [
    "FINITE",
    "MINUS_INF",
    "PLUS_INF",
    "UNDEFINED",
    "check_identifiable",
    "comparison_components",
    "largest_strong_member",
    "limit_states",
    "unbounded_models",
]

FINITE, PLUS_INF, MINUS_INF, UNDEFINED = 0, 1, 2, 3


def _win_graph(n: int, pairs: np.ndarray, wins: np.ndarray) -> csr_array:
    """Arc ``i -> j`` where ``i`` has positive (effective) wins over ``j``."""
    from scipy.sparse import csr_array

    i, j = pairs[:, 0], pairs[:, 1]
    fwd = wins[:, 0] > 0
    back = wins[:, 1] > 0
    rows = np.concatenate([i[fwd], j[back]])
    cols = np.concatenate([j[fwd], i[back]])
    return csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))


def comparison_components(n: int, pairs: np.ndarray, total: np.ndarray) -> list[np.ndarray]:
    """Connected parts of the comparison graph (pairs with positive total), largest first."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import connected_components

    met = np.asarray(total) > 0
    graph = csr_array((np.ones(int(met.sum())), (pairs[met, 0], pairs[met, 1])), shape=(n, n))
    n_parts, labels = connected_components(graph, directed=False)
    parts = [np.flatnonzero(labels == k) for k in range(n_parts)]
    return sorted(parts, key=lambda p: (-len(p), p[0]))


def _reachable(graph: csr_array, start: int) -> np.ndarray:
    from scipy.sparse.csgraph import breadth_first_order

    order = breadth_first_order(graph, start, directed=True, return_predecessors=False)
    mask = np.zeros(graph.shape[0], dtype=bool)
    mask[order] = True
    return mask


def largest_strong_member(n: int, pairs: np.ndarray, wins: np.ndarray) -> int:
    """Lowest-index model of the win graph's largest strongly connected part (ties: lowest index).

    A reference that depends only on the votes, never on the anchor (the bootstrap uses it).
    """
    from scipy.sparse.csgraph import connected_components

    _n_comp, labels = connected_components(_win_graph(n, pairs, wins), directed=True, connection="strong")
    sizes = np.bincount(labels)
    return int(np.flatnonzero(sizes[labels] == sizes.max())[0])


def unbounded_models(counts: PairCounts, keep_model: int | None = None) -> dict[str, str]:
    """Models outside the kept strongly connected part of the win graph, with reasons.

    Returns an empty dict when the maximum-likelihood estimate exists. Otherwise the kept part is
    the strongly connected component of ``keep_model`` (the board's anchor) when given, else the
    one with the most models (then the most votes); every other model is listed with why its
    rating is unbounded. The comparison graph is assumed connected.
    """
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import connected_components

    n = counts.n_models
    wins = counts.wins
    graph = _win_graph(n, counts.pairs, wins)
    n_comp, labels = connected_components(graph, directed=True, connection="strong")
    if n_comp <= 1:
        return {}
    totals = counts.model_totals()
    sizes = np.bincount(labels, minlength=n_comp)
    votes = np.bincount(labels, weights=totals["votes"], minlength=n_comp)
    if keep_model is not None:
        keep = int(labels[keep_model])
    else:
        keep = max(range(n_comp), key=lambda c: (sizes[c], votes[c], -c))
    start = int(np.flatnonzero(labels == keep)[0])
    below = _reachable(graph, start)
    above = _reachable(csr_array(graph.T), start)
    i, j = counts.pairs[:, 0], counts.pairs[:, 1]
    eff_wins = np.bincount(i, wins[:, 0], minlength=n) + np.bincount(j, wins[:, 1], minlength=n)
    eff_losses = np.bincount(i, wins[:, 1], minlength=n) + np.bincount(j, wins[:, 0], minlength=n)
    reasons: dict[str, str] = {}
    for k in np.flatnonzero(labels != keep):
        name = counts.models[k]
        group = [counts.models[m] for m in np.flatnonzero(labels == labels[k])]
        v = int(totals["votes"][k])
        if eff_losses[k] == 0:
            reasons[name] = f"won all {v} of its votes (no loss or tie)"
        elif eff_wins[k] == 0:
            reasons[name] = f"lost all {v} of its votes (no win or tie)"
        elif above[k]:
            reasons[name] = f"is in a group ({', '.join(group)}) that never lost or tied to the rest"
        elif below[k]:
            reasons[name] = f"is in a group ({', '.join(group)}) that never won or tied against the rest"
        else:
            reasons[name] = f"is cut off from the main group by one-sided results ({', '.join(group)})"
    return reasons


def check_identifiable(counts: PairCounts) -> None:
    """Raise unless finite maximum-likelihood ratings exist.

    Raises
    ------
    DisconnectedComparisonsError
        If the comparison graph has several parts (names them).
    UnboundedRatingError
        If the win graph is not strongly connected (names the models and why).
    """
    parts = comparison_components(counts.n_models, counts.pairs, counts.weight.sum(axis=1))
    if len(parts) > 1:
        raise DisconnectedComparisonsError([[counts.models[k] for k in p] for p in parts])
    reasons = unbounded_models(counts)
    if reasons:
        raise UnboundedRatingError(reasons)


def limit_states(n: int, pairs: np.ndarray, wins: np.ndarray, reference: int) -> np.ndarray:
    """Where each model's rating goes in the likelihood's supremum, relative to model ``reference``.

    Parameters
    ----------
    n : int
        Number of models.
    pairs : numpy.ndarray
        ``(P, 2)`` model pairs.
    wins : numpy.ndarray
        ``(P, 2)`` effective wins of each side (zero rows allowed).
    reference : int
        Index of the model whose strongly connected part stays finite (the bootstrap passes
        :func:`largest_strong_member`, which does not depend on the anchor).

    Returns
    -------
    numpy.ndarray of int8
        :data:`FINITE` for the reference's strongly connected component, :data:`PLUS_INF` for models
        with a chain of wins onto it, :data:`MINUS_INF` for models it reaches by wins, and
        :data:`UNDEFINED` for the rest.
    """
    from scipy.sparse import csr_array

    graph = _win_graph(n, pairs, wins)
    below = _reachable(graph, reference)
    above = _reachable(csr_array(graph.T), reference)
    states = np.full(n, UNDEFINED, dtype=np.int8)
    states[below & ~above] = MINUS_INF
    states[above & ~below] = PLUS_INF
    states[above & below] = FINITE
    return states
