"""Sufficient statistics: votes counted once, so that every later fit is independent of their number.

Three levels, each derived from the one before:

* :class:`VoteRows` - the distinct ``(use case, capability, pair, outcome, weight)`` rows of a
  modality with the number of votes on each. Pairs are stored as ``i < j``; the outcome is
  re-expressed from model ``i``'s side (0: ``i`` won, 1: ``j`` won, 2: tie).
* :class:`BoardRows` - the rows feeding one board, with the board's own model numbering and, on
  the overall board, the taxonomy cell of each row (for cell balancing). Resampling these rows
  with multinomial counts is the same as resampling the board's votes, which is what the
  bootstrap does.
* :class:`~ratings.pairs.PairCounts` - per model pair, the weighted number of wins of ``i``, wins
  of ``j`` and ties, plus raw vote counts and squared weights. This is all Bradley-Terry needs.

Rows may also carry a *cluster* (the prompt a vote was cast on). Votes on one prompt are not independent:
each model has one stored output per prompt, so every vote on that prompt sees the same images. The
cluster-robust bootstrap resamples clusters and the cluster-robust sandwich sums scores per cluster
(:mod:`ratings.bootstrap`, :mod:`ratings.intervals`); the fit itself ignores the cluster. The cluster is the
prompt rather than the output (prompt x model): each output belongs to exactly one prompt, so prompt
clusters contain the output clusters and resampling prompts covers dependence through either (a vote
between two outputs of one prompt is correlated with the votes on both); it is the conservative choice.
Keeping the cluster multiplies the rows by at most the number of prompts, never by the number of votes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ratings.votes import A_WINS, B_WINS, TIE

__all__ = ["BoardRows", "VoteRows", "aggregate_votes", "board_rows", "restrict_board"]


def _group(*keys: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Distinct combinations of non-negative integer keys and, for each input row, its group."""
    dims = tuple(int(k.max()) + 1 if len(k) else 1 for k in keys)
    n = len(keys[0])
    size = 1
    for d in dims:
        size *= d
    if size < 2**62:
        flat = np.ravel_multi_index(keys, dims) if n else np.zeros(0, dtype=np.int64)
        if size <= max(4 * n, 1 << 20):
            present = np.bincount(flat, minlength=size) > 0
            uniq = np.flatnonzero(present)
            lookup = np.cumsum(present) - 1
            inverse = lookup[flat]
        else:
            uniq, inverse = np.unique(flat, return_inverse=True)
        return list(np.unravel_index(uniq, dims)), inverse.ravel()
    stacked = np.column_stack(keys)
    uniq_rows, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return [uniq_rows[:, c] for c in range(len(keys))], inverse.ravel()


def _canonical(ia: np.ndarray, ib: np.ndarray, outcome: np.ndarray) -> tuple[np.ndarray, ...]:
    """Order each pair as ``i < j`` and express the outcome from ``i``'s side."""
    swap = ia > ib
    i = np.where(swap, ib, ia).astype(np.int32)
    j = np.where(swap, ia, ib).astype(np.int32)
    o = outcome.astype(np.int8).copy()
    flip = swap & (outcome != TIE)
    o[flip] = np.where(outcome[flip] == A_WINS, B_WINS, A_WINS)
    return i, j, o


@dataclass(frozen=True, eq=False)
class VoteRows:
    """Distinct vote rows of one modality with their vote counts (see module docstring)."""

    models: tuple[str, ...]
    use_cases: tuple[str, ...]
    capabilities: tuple[str, ...]
    i: np.ndarray
    j: np.ndarray
    outcome: np.ndarray
    use_case: np.ndarray
    capability: np.ndarray
    weight: np.ndarray
    count: np.ndarray
    cluster: np.ndarray | None = None

    @property
    def n_votes(self) -> int:
        """Number of votes represented."""
        return int(self.count.sum())


def aggregate_votes(
    model_a: np.ndarray,
    model_b: np.ndarray,
    outcome: np.ndarray,
    *,
    models: tuple[str, ...],
    weight: np.ndarray | None = None,
    use_case: np.ndarray | None = None,
    capability: np.ndarray | None = None,
    use_cases: tuple[str, ...] = (),
    capabilities: tuple[str, ...] = (),
    multiplicity: np.ndarray | None = None,
    cluster: np.ndarray | None = None,
) -> VoteRows:
    """Count integer-coded votes into :class:`VoteRows`.

    Parameters
    ----------
    model_a, model_b : numpy.ndarray
        Model indices into ``models``.
    outcome : numpy.ndarray
        Outcome codes from ``model_a``'s side.
    weight : numpy.ndarray, optional
        Per-vote weights; votes with equal weights share a row.
    use_case, capability : numpy.ndarray, optional
        Tag codes into ``use_cases`` / ``capabilities`` (``-1`` = no tag).
    multiplicity : numpy.ndarray, optional
        How many identical votes each entry stands for (default 1 each), so that rows already
        counted elsewhere (a database ``GROUP BY``) give the same result as the votes themselves.
    cluster : numpy.ndarray, optional
        Non-negative cluster codes (the prompt of each vote), kept on the rows for cluster-robust
        intervals; ``None``: votes are treated as independent.
    """
    n = len(model_a)
    i, j, o = _canonical(np.asarray(model_a), np.asarray(model_b), np.asarray(outcome))
    uc = np.full(n, -1, np.int32) if use_case is None else np.asarray(use_case, np.int32)
    cap = np.full(n, -1, np.int32) if capability is None else np.asarray(capability, np.int32)
    if weight is None or n == 0 or np.all(weight == weight[0]):
        levels = np.array([1.0 if weight is None or n == 0 else float(weight[0])])
        wl = np.zeros(n, dtype=np.int64)
    else:
        levels, wl = np.unique(weight, return_inverse=True)
    cl = np.zeros(n, np.int64) if cluster is None else np.asarray(cluster, np.int64).ravel()
    if cluster is not None and n and cl.min() < 0:
        raise ValueError("cluster codes must be non-negative")
    keys, inverse = _group(uc + 1, cap + 1, i, j, o, wl.ravel(), cl)
    if multiplicity is None:
        count = np.bincount(inverse, minlength=len(keys[0])).astype(np.int64)
    else:
        mult = np.asarray(multiplicity, dtype=np.int64).ravel()
        count = np.zeros(len(keys[0]), dtype=np.int64)
        np.add.at(count, inverse, mult)
    return VoteRows(
        models=models,
        use_cases=use_cases,
        capabilities=capabilities,
        i=keys[2].astype(np.int32),
        j=keys[3].astype(np.int32),
        outcome=keys[4].astype(np.int8),
        use_case=(keys[0] - 1).astype(np.int32),
        capability=(keys[1] - 1).astype(np.int32),
        weight=levels[keys[5]].astype(np.float64),
        count=count,
        cluster=None if cluster is None else keys[6].astype(np.int64),
    )


@dataclass(frozen=True, eq=False)
class BoardRows:
    """The distinct vote rows of one board, in the board's own model numbering.

    Attributes
    ----------
    models : tuple of str
        Models with votes on the board (sorted); indices below refer to this tuple.
    pairs : numpy.ndarray
        ``(P, 2)`` distinct model pairs ``i < j``.
    pair, outcome, weight, count : numpy.ndarray
        Per row: pair index, outcome from ``i``'s side, per-vote weight, number of votes.
        Rows are sorted by ``count`` (the bootstrap sampler groups rows by count), then cell.
    cell : numpy.ndarray or None
        Per row: taxonomy cell index, when the board balances cells (overall board with more
        than one cell); ``None`` otherwise.
    n_cells : int
        Number of cells indexed by ``cell`` (0 when ``cell`` is ``None``).
    cluster : numpy.ndarray or None
        Per row: cluster index (renumbered ``0 .. n_clusters - 1`` over the board's clusters), or
        ``None`` when the votes carry no cluster (vote-level intervals).
    n_clusters : int
        Number of clusters on the board (0 when ``cluster`` is ``None``).
    """

    models: tuple[str, ...]
    pairs: np.ndarray
    pair: np.ndarray
    outcome: np.ndarray
    weight: np.ndarray
    count: np.ndarray
    cell: np.ndarray | None
    n_cells: int
    cluster: np.ndarray | None = None
    n_clusters: int = 0

    @property
    def n_votes(self) -> int:
        """Number of votes on the board."""
        return int(self.count.sum())


def _board_from_parts(
    models: tuple[str, ...],
    i: np.ndarray,
    j: np.ndarray,
    outcome: np.ndarray,
    weight: np.ndarray,
    count: np.ndarray,
    cell: np.ndarray | None,
    cluster: np.ndarray | None = None,
) -> BoardRows:
    """Renumber models (and clusters) to those present, merge duplicate rows, index pairs, sort rows by count."""
    present = np.unique(np.concatenate([i, j]))
    li = np.searchsorted(present, i).astype(np.int64)
    lj = np.searchsorted(present, j).astype(np.int64)
    n_cells = 0
    if cell is not None:
        cells, cell = np.unique(cell, return_inverse=True)
        n_cells = len(cells)
        if n_cells <= 1:
            cell, n_cells = None, 0
    _, wl = np.unique(weight, return_inverse=True) if len(weight) else (None, np.zeros(0, np.int64))
    cell_key = np.zeros(len(li), np.int64) if cell is None else cell.ravel()
    n_clusters = 0
    if cluster is not None:
        clusters, cluster = np.unique(cluster, return_inverse=True)
        n_clusters = len(clusters)
    cluster_key = np.zeros(len(li), np.int64) if cluster is None else cluster.ravel().astype(np.int64)
    keys, inverse = _group(cell_key, li, lj, outcome.astype(np.int64), wl.ravel(), cluster_key)
    merged = np.bincount(inverse, weights=count, minlength=len(keys[0])).astype(np.int64)
    first = np.zeros(len(keys[0]), dtype=np.int64)
    first[inverse] = np.arange(len(inverse))
    (pi, pj), pair = _group(keys[1], keys[2])
    # by count (the sampler's groups), then by cell (contiguous cell runs for the bootstrap's sums)
    order = np.lexsort((keys[0], merged))
    return BoardRows(
        models=tuple(models[k] for k in present),
        pairs=np.column_stack([pi, pj]).astype(np.int32).reshape(-1, 2),
        pair=pair[order].astype(np.int32),
        outcome=keys[3][order].astype(np.int8),
        weight=weight[first][order].astype(np.float64),
        count=merged[order],
        cell=None if cell is None else keys[0][order].astype(np.int32),
        n_cells=n_cells,
        cluster=None if cluster is None else keys[5][order].astype(np.int64),
        n_clusters=n_clusters,
    )


def board_rows(rows: VoteRows, mask: np.ndarray | None = None, *, balance_cells: bool = False) -> BoardRows:
    """The rows of one board.

    Parameters
    ----------
    rows : VoteRows
        The modality's rows.
    mask : numpy.ndarray of bool, optional
        Which rows belong to the board (default: all).
    balance_cells : bool
        Keep the taxonomy cell of each row so that :func:`pair_counts` and the bootstrap give
        each cell equal total weight (the overall board). Otherwise rows from different cells
        are merged.
    """
    sel = np.ones(len(rows.count), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    cell = None
    if balance_cells:
        cell = (rows.use_case[sel].astype(np.int64) + 1) * (len(rows.capabilities) + 1) + (
            rows.capability[sel] + 1
        )
    cluster = None if rows.cluster is None else rows.cluster[sel]
    return _board_from_parts(
        rows.models,
        rows.i[sel],
        rows.j[sel],
        rows.outcome[sel],
        rows.weight[sel],
        rows.count[sel],
        cell,
        cluster,
    )


def restrict_board(board: BoardRows, keep: np.ndarray) -> BoardRows:
    """The board without the votes of models where ``keep`` is false (models renumbered)."""
    keep = np.asarray(keep, dtype=bool)
    i = board.pairs[board.pair, 0]
    j = board.pairs[board.pair, 1]
    sel = keep[i] & keep[j]
    cell = None if board.cell is None else board.cell[sel]
    cluster = None if board.cluster is None else board.cluster[sel]
    return _board_from_parts(
        board.models, i[sel], j[sel], board.outcome[sel], board.weight[sel], board.count[sel], cell, cluster
    )
