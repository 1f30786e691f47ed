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

import numpy as np

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
    "strong_components",
    "unbounded_models",
]

FINITE, PLUS_INF, MINUS_INF, UNDEFINED = 0, 1, 2, 3

# The graphs have one node per model (tens to hundreds), so they are dense boolean matrices searched with numpy
# and a few lines of Python: no scipy.sparse.csgraph, whose import cost a fresh `arena ratings fit` a tenth of a
# second. tests/unit/test_ratings_graph_numpy.py checks them against csgraph on random graphs.


def _win_graph(n: int, pairs: np.ndarray, wins: np.ndarray) -> np.ndarray:
    """``(n, n)`` bool: arc ``i -> j`` where ``i`` has positive (effective) wins over ``j``."""
    graph = np.zeros((n, n), dtype=bool)
    i, j = pairs[:, 0], pairs[:, 1]
    fwd = wins[:, 0] > 0
    back = wins[:, 1] > 0
    graph[i[fwd], j[fwd]] = True
    graph[j[back], i[back]] = True
    return graph


def _reachable(graph: np.ndarray, start: int) -> np.ndarray:
    """Models reachable from ``start`` along arcs (``start`` included): breadth first, a level at a time."""
    seen = np.zeros(len(graph), dtype=bool)
    seen[start] = True
    frontier = np.array([start])
    while len(frontier):
        new = graph[frontier].any(axis=0) & ~seen
        seen |= new
        frontier = np.flatnonzero(new)
    return seen


def strong_components(graph: np.ndarray) -> tuple[int, np.ndarray]:
    """Strongly connected components of a dense directed graph: their number and each node's label.

    Tarjan's algorithm, iterative, from nodes in index order and along each node's arcs from the highest index
    down, so components are labelled in the order they complete, the labels
    ``scipy.sparse.csgraph.connected_components`` gives (sinks first); :func:`unbounded_models` breaks ties
    between components by that label.
    """
    n = len(graph)
    succ = [np.flatnonzero(row)[::-1].tolist() for row in graph]
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    labels = [-1] * n
    counter = n_comp = 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]
        while work:
            v, k = work[-1]
            if k < len(succ[v]):
                work[-1] = (v, k + 1)
                w = succ[v][k]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            if work and low[v] < low[work[-1][0]]:
                low[work[-1][0]] = low[v]
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    labels[w] = n_comp
                    if w == v:
                        break
                n_comp += 1
    return n_comp, np.array(labels, dtype=np.int64)


def comparison_components(n: int, pairs: np.ndarray, total: np.ndarray) -> list[np.ndarray]:
    """Connected parts of the comparison graph (pairs with positive total), largest first."""
    met = np.asarray(total) > 0
    graph = np.zeros((n, n), dtype=bool)
    graph[pairs[met, 0], pairs[met, 1]] = True
    graph |= graph.T
    parts = []
    unseen = np.ones(n, dtype=bool)
    while unseen.any():
        part = _reachable(graph, int(np.argmax(unseen)))
        parts.append(np.flatnonzero(part))
        unseen &= ~part
    return sorted(parts, key=lambda p: (-len(p), p[0]))


def largest_strong_member(n: int, pairs: np.ndarray, wins: np.ndarray) -> int:
    """Lowest-index model of the win graph's largest strongly connected part (ties: lowest index).

    A reference that depends only on the votes, never on the anchor (the bootstrap uses it).
    """
    _n_comp, labels = strong_components(_win_graph(n, pairs, wins))
    sizes = np.bincount(labels)
    return int(np.flatnonzero(sizes[labels] == sizes.max())[0])


def unbounded_models(counts: PairCounts, keep_model: int | None = None) -> dict[str, str]:
    """Models outside the kept strongly connected part of the win graph, with reasons.

    Returns an empty dict when the maximum-likelihood estimate exists. Otherwise the kept part is
    the strongly connected component of ``keep_model`` (the board's anchor) when given, else the
    one with the most models (then the most votes); every other model is listed with why its
    rating is unbounded. The comparison graph is assumed connected.
    """
    n = counts.n_models
    wins = counts.wins
    graph = _win_graph(n, counts.pairs, wins)
    n_comp, labels = strong_components(graph)
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
    above = _reachable(graph.T, start)
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
    graph = _win_graph(n, pairs, wins)
    below = _reachable(graph, reference)
    above = _reachable(graph.T, reference)
    states = np.full(n, UNDEFINED, dtype=np.int8)
    states[below & ~above] = MINUS_INF
    states[above & ~below] = PLUS_INF
    states[above & below] = FINITE
    return states
