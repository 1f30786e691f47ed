"""Bootstrap replicates of a board's log-strengths, resampled and fitted in batches.

When the board's rows carry clusters (the prompt of each vote), a replicate resamples prompts with
replacement instead of votes (:class:`~ratings.resample.ClusterSampler`): votes on one prompt share the
same stored outputs, so they are not independent, and resampling them one by one makes intervals shrink
with the vote count while the error from the fixed prompt pool does not. Without clusters, votes are
resampled one by one (vote-level intervals). Cluster replicates are spread about the estimate by the square
root of :func:`ratings.intervals.cluster_correction`, the sandwich's CR1 factor: to first order the cluster
bootstrap's variance is the uncorrected cluster sandwich (the fit absorbs part of each cluster's variation in
both, as that function's docstring explains).

A replicate resamples the board's votes with replacement, which is an exact multinomial draw
over the board's distinct rows (:class:`~ratings.resample.MultinomialSampler`); on the overall
board the cell-balancing weights are recomputed from each replicate's cell totals, as they would
be for real data. Replicates are then refitted side by side, as columns of ``(P, R)`` arrays,
starting from the full-data estimate and stepping with the inverse information at that estimate
(see :func:`ratings.bt.solve_columns`); the few that need it finish with exact Newton steps.

A resample can lose the conditions for finite ratings (say, a model with few votes drew no
loss). Such replicates take the likelihood's limit (:func:`ratings.graph.limit_states`) relative
to the replicate's largest strongly connected part: the model's log-strength is ``+inf``/``-inf``
(or undefined, ``nan``) in that replicate, and the percentile interval keeps it, which is the honest
answer for a model with that little evidence.

Replicates never see the anchor: each is returned in the board's sum-zero gauge
(:func:`ratings.intervals.center`), so intervals and ranks built on them do not depend on which
model reads 1000 (see :mod:`ratings.intervals`).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ratings.aggregate import BoardRows
from ratings.bt import DEFAULT_MAX_ITER
from ratings.graph import FINITE, MINUS_INF, PLUS_INF, UNDEFINED, largest_strong_member, limit_states
from ratings.intervals import center, cluster_correction
from ratings.newton import Incidence, preconditioner, solve_columns
from ratings.pairs import pair_counts
from ratings.resample import ClusterSampler, MultinomialSampler, TableCache
from ratings.weighting import cell_balance_factors

__all__ = ["BOOTSTRAP_TOL", "BootstrapResult", "bootstrap_board"]

#: Replicates are solved to a scaled gradient below this: about 1e-3 Elo, far below the Monte
#: Carlo noise of a 1,000-round percentile (tenths of an Elo point), and two iterations cheaper
#: than the point estimate's 1e-10.
BOOTSTRAP_TOL = 1e-6
_CHORD_ITER = 30
_FIT_ELEMENTS = 1 << 18


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Bootstrap replicates of one board.

    Attributes
    ----------
    theta : numpy.ndarray
        ``(R, n)`` log-strengths, each replicate summing to zero (the anchor plays no part);
        ``+inf``, ``-inf`` or ``nan`` where a replicate's likelihood has no finite maximum for that
        model, and then the finite models are placed so that their mean equals the full-data
        estimate's mean over the same models.
    n_limit : int
        Replicates in which some model's rating was infinite or undefined.
    n_unconverged : int
        Replicates whose fit did not reach the tolerance (kept as they are).
    """

    theta: np.ndarray
    n_limit: int
    n_unconverged: int


@dataclass(frozen=True, eq=False)
class _FitSetup:
    """What every batch of replicate fits shares (read-only, so threads can share it)."""

    theta_hat: np.ndarray  # sum-zero
    pairs: np.ndarray
    precond: np.ndarray
    inc: Incidence  # sums pair rows by model: wins of each model from the two sides
    tol: float
    max_iter: int


def _solve_limit_group(
    states: np.ndarray, setup: _FitSetup, wi: np.ndarray, wj: np.ndarray
) -> tuple[np.ndarray, int]:
    """Theta ``(n, R)`` for replicates sharing one limit pattern ``states``.

    Models in the reference strongly connected part are fitted on the votes among them (exact
    Newton, from the full-data estimate) and placed so their mean is the estimate's mean over
    them; the others are ``+inf``, ``-inf`` or ``nan``.
    """
    n, r = len(states), wi.shape[1]
    out = np.zeros((n, r))
    out[states == PLUS_INF] = np.inf
    out[states == MINUS_INF] = -np.inf
    out[states == UNDEFINED] = np.nan
    finite = states == FINITE
    level = setup.theta_hat[finite].mean() if finite.any() else 0.0
    if finite.sum() < 2:
        out[finite] = level
        return out, 0
    local = np.cumsum(finite) - 1
    inside = finite[setup.pairs[:, 0]] & finite[setup.pairs[:, 1]]
    sub_pairs = local[setup.pairs[inside]]
    start = np.repeat(setup.theta_hat[finite][:, None], r, axis=1)
    theta, conv, _, _, _ = solve_columns(
        start, sub_pairs, wi[inside], wj[inside], tol=setup.tol, max_iter=setup.max_iter
    )
    out[finite] = theta - theta.mean(axis=0) + level
    return out, int((~conv).sum())


def _fit_replicates(setup: _FitSetup, wi: np.ndarray, wj: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Sum-zero theta ``(n, R)`` for a batch of replicates, and limit/unconverged counts.

    Replicates where every model has a win and a loss go through the preconditioned solver
    together; the rest, and any that did not converge, are classified by their likelihood limit
    (:func:`~ratings.graph.limit_states`) and refitted in groups that share a limit pattern.
    """
    n, r = len(setup.theta_hat), wi.shape[1]
    model_wins = setup.inc.first(wi) + setup.inc.second(wj)
    model_losses = setup.inc.first(wj) + setup.inc.second(wi)
    simple = np.all((model_wins > 0) & (model_losses > 0), axis=0)
    out = np.empty((n, r))
    todo = np.flatnonzero(~simple)
    if simple.any():
        cols = np.flatnonzero(simple)
        start = np.repeat(setup.theta_hat[:, None], len(cols), axis=1)
        theta, conv, _, _, _ = solve_columns(
            start,
            setup.pairs,
            wi[:, cols],
            wj[:, cols],
            tol=setup.tol,
            max_iter=_CHORD_ITER,
            precond=setup.precond,
        )
        out[:, cols] = theta - theta.mean(axis=0)
        todo = np.concatenate([todo, cols[~conv]])
    groups: dict[bytes, tuple[np.ndarray, list[int]]] = {}
    for c in todo.tolist():
        wins = np.column_stack([wi[:, c], wj[:, c]])
        states = limit_states(n, setup.pairs, wins, largest_strong_member(n, setup.pairs, wins))
        groups.setdefault(states.tobytes(), (states, []))[1].append(c)
    n_limit = n_unconverged = 0
    for states, members in groups.values():
        cols = np.array(members)
        values, failed = _solve_limit_group(states, setup, wi[:, cols], wj[:, cols])
        out[:, cols] = values
        n_limit += len(cols) if np.any(states != FINITE) else 0
        n_unconverged += failed
    return out, n_limit, n_unconverged


class _RowSums:
    """Sums of resampled rows per ``(pair, outcome)`` column, balancing cells if the board does.

    ``numpy.bincount`` reads the draws sequentially and scatters into a small output, which is
    several times faster here than a sparse matrix product with the same result.
    """

    def __init__(self, board: BoardRows) -> None:
        self.board = board
        self.columns = board.pair.astype(np.int64) * 3 + board.outcome
        self.cells = None if board.cell is None else board.cell.astype(np.int64)
        if self.cells is not None:  # rows come in runs of one cell: sum runs, then runs per cell
            runs = np.flatnonzero(np.diff(self.cells) != 0) + 1
            self.run_starts = np.concatenate([[0], runs])
            self.run_cells = self.cells[self.run_starts]
        self.unit = bool(np.all(board.weight == 1.0))
        self._flat: dict[tuple[str, int], np.ndarray] = {}

    def _bincount(self, which: str, index: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
        """``out[g, r] = sum of values[k, r] over rows k with index[k] == g``."""
        rounds = values.shape[1]
        if rounds == 1:
            return np.bincount(index, weights=values[:, 0], minlength=size)[:, None]
        flat = self._flat.get((which, rounds))
        if flat is None:  # a race between threads only computes the same array twice
            flat = self._flat[(which, rounds)] = (index[:, None] * rounds + np.arange(rounds)).ravel()
        return np.bincount(flat, weights=values.ravel(), minlength=size * rounds).reshape(size, rounds)

    def __call__(self, draws: np.ndarray) -> np.ndarray:
        """``(3P, R)`` weighted sums of a block of draws ``(K, R)``."""
        board = self.board
        x = draws.astype(np.float64, copy=False)
        if not self.unit:
            x *= board.weight[:, None]
        if self.cells is not None:
            run_sums = np.add.reduceat(x, self.run_starts, axis=0) if len(x) else x
            totals = self._bincount("cells", self.run_cells, run_sums, board.n_cells)
            x *= cell_balance_factors(totals.T).T[self.cells]
        return self._bincount("columns", self.columns, x, 3 * len(board.pairs))


def _replicate_block(
    board: BoardRows,
    sampler: MultinomialSampler | ClusterSampler,
    sums: _RowSums,
    rounds: int,
    rng: np.random.Generator,
    setup: _FitSetup,
) -> tuple[np.ndarray, int, int]:
    """Draw and fit ``rounds`` replicates with one generator (a unit of parallel work)."""
    p = len(board.pairs)
    block = sampler.block_rounds()
    totals = np.empty((3 * p, rounds))
    for s0 in range(0, rounds, block):
        s1 = min(rounds, s0 + block)
        totals[:, s0:s1] = sums(sampler.draw(rng, s1 - s0, np.float64))
    totals = totals.reshape(p, 3, rounds)
    wi = totals[:, 0] + 0.5 * totals[:, 2]
    wj = totals[:, 1] + 0.5 * totals[:, 2]
    values, n_limit, n_unconverged = _fit_replicates(setup, wi, wj)
    return values.T, n_limit, n_unconverged


def default_workers() -> int:
    """Threads for the bootstrap: the CPUs this process may use, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def bootstrap_board(
    board: BoardRows,
    theta_hat: np.ndarray,
    *,
    n_rounds: int,
    rng: np.random.Generator,
    tol: float = BOOTSTRAP_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    workers: int | None = None,
    tables: TableCache | None = None,
) -> BootstrapResult:
    """Resample a board's votes (or its clusters, when its rows carry them) ``n_rounds`` times and refit each replicate.

    Parameters
    ----------
    board : BoardRows
        The board's rows (its finite maximum-likelihood estimate must exist).
    theta_hat : numpy.ndarray
        The full-data estimate (warm start and preconditioner; any gauge).
    n_rounds : int
        Number of bootstrap replicates.
    rng : numpy.random.Generator
        Source of randomness. Replicates come in fixed blocks, each drawn from its own child
        generator (``rng.spawn``), so the same generator state gives the same replicates whatever
        the number of threads.
    tol, max_iter : float, int
        Convergence settings of each replicate's fit.
    workers : int, optional
        Threads (numpy releases the GIL in the heavy loops); default :func:`default_workers`.
    tables : dict, optional
        Inversion-table cache shared with other boards (see :class:`MultinomialSampler`).
    """
    n, p = len(board.models), len(board.pairs)
    pairs = board.pairs.astype(np.intp)
    precond = preconditioner(theta_hat, pairs, pair_counts(board).wins)
    theta_hat = center(theta_hat)
    setup = _FitSetup(theta_hat, pairs, precond, Incidence(n, pairs), tol, max_iter)
    sampler: MultinomialSampler | ClusterSampler
    if board.cluster is not None:
        sampler = ClusterSampler(board.count, board.cluster, board.n_clusters)
    else:
        sampler = MultinomialSampler(board.count, tables)
    sums = _RowSums(board)
    batch = int(min(max(_FIT_ELEMENTS // max(p, 1), 16), 1024))
    starts = list(range(0, n_rounds, batch))
    streams = rng.spawn(len(starts))

    def work(k: int) -> tuple[np.ndarray, int, int]:
        size = min(batch, n_rounds - starts[k])
        return _replicate_block(board, sampler, sums, size, streams[k], setup)

    threads = min(workers or default_workers(), len(starts))
    if threads > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(work, range(len(starts))))
    else:
        results = [work(k) for k in range(len(starts))]
    theta = np.concatenate([r[0] for r in results]) if results else np.empty((0, n))
    if board.cluster is not None:  # the cluster sandwich's CR1 factor, on the replicates' spread
        factor = np.sqrt(cluster_correction(board.n_clusters, n, board.n_votes))
        with np.errstate(invalid="ignore"):
            theta = theta_hat + factor * (theta - theta_hat)
    return BootstrapResult(
        theta=theta,
        n_limit=sum(r[1] for r in results),
        n_unconverged=sum(r[2] for r in results),
    )
