"""Exact multinomial resampling of counted rows, fast when the rows hold many votes.

Resampling ``N`` votes with replacement and recounting them per row is a draw from
``Multinomial(N, counts / N)``. numpy's multinomial sampler costs one binomial draw per row and
per replicate, which dominates a 1,000-round bootstrap over a million rows. We draw the same
distribution from cheaper parts:

1. *Poissonization.* With ``s`` a little under ``1 - z / sqrt(N)``, draw independent
   ``X_k ~ Poisson(s c_k)`` (total mean ``s N``, ``z`` standard deviations under ``N``).
   Given their total ``M = k``, ``X`` is exactly ``Multinomial(k, c / N)``.
2. *Top-up.* If ``M <= N``, add ``N - M`` single votes drawn from ``c / N``; the sum is exactly
   ``Multinomial(N, c / N)`` whatever ``M`` was. If ``M > N`` (probability about 2% with
   ``z = 2``), the replicate is redrawn; the rejection depends on ``M`` only, so it leaves the
   law intact. ``z = 2`` balances the cost of top-up draws against that of redraws.
3. *Table inversion.* Rows with the same count share one Poisson law. For each law we tabulate,
   for each of the 65,536 values of a 16-bit uniform, the Poisson value its interval maps to by
   CDF inversion; the rare intervals that straddle a CDF step are resolved with a fresh double
   uniform. One 16-bit draw and one table lookup per row and replicate, exact up to the
   resolution of a double.

Tables are made only for Poisson means up to ``TABLE_MAX_MEAN``: rows with more votes (few, and
their number does not grow with ``N`` as fast as the number of distinct counts does) draw from
numpy's Poisson sampler directly, so the tables' memory is bounded whatever the vote count (one
table per distinct mean made it grow with the history: 3.3 GB at 5 million votes).

When ``N`` is smaller than the number of rows, the votes themselves are drawn instead. When the rows are few
(at most ``sqrt(N)``: a board of 20 models has 570 rows for a million votes), numpy's own multinomial sampler is
used: its binomial per row costs less than the top-up's ``2 sqrt(N)`` single votes per replicate (0.034 s against
0.30 s for 1,000 replicates of 570 rows and a million votes, measured in one run; the Poisson path wins from a
few times ``sqrt(N)`` rows up).

:class:`ClusterSampler` resamples whole clusters (prompts) instead of votes, for boards whose votes carry
one (see :mod:`ratings.aggregate` for why prompts).
"""

from __future__ import annotations

import math

import numpy as np

from ratings.special import poisson_cdf

__all__ = ["METHODS", "ClusterSampler", "MultinomialSampler", "TableCache"]

#: How :class:`MultinomialSampler` draws: "auto" picks numpy's sampler for few rows, else the Poisson path;
#: "numpy" and "poisson" force one (the votes themselves are drawn when there are fewer votes than rows).
METHODS = ("auto", "numpy", "poisson")

_GUIDE_BITS = 16
_GUIDE_CELLS = 1 << _GUIDE_BITS
_ELEMENTS_PER_BLOCK = 1 << 20
_MARGIN = 2.0  # standard deviations between the Poisson total's mean and N
#: Largest Poisson mean given an inversion table; larger means are drawn by ``Generator.poisson``.
TABLE_MAX_MEAN = 64.0

#: Up to this many votes, the top-up finds each draw's row in a table of every vote's row and gets the rows of
#: its sorted draws by counting them per row; above, by sorting the draws and searching the cumulative counts.
#: Both give the same rows, hence the same replicates.
_VOTE_TABLE_MAX = 1 << 23


def _step_counts(starts: np.ndarray) -> np.ndarray:
    """For each cell ``a`` of the guide, the number of ``starts`` that are ``<= a`` (int32)."""
    edges = np.clip(starts, 0, _GUIDE_CELLS).astype(np.int64)
    runs = np.diff(np.concatenate([[0], edges, [_GUIDE_CELLS]]))
    return np.repeat(np.arange(len(edges) + 1, dtype=np.int32), runs)


class _PoissonTable:
    """Inversion table of one Poisson law (see module docstring, step 3).

    ``guide[a]`` is the value for every uniform in cell ``a`` or, for an ambiguous cell, the
    negative marker ``-(k + 1)`` of its ``k``-th ambiguous cell; ``base[k]`` is the value at that
    cell's start and ``breaks[k]`` (padded with ``inf``) the CDF values strictly inside it, so a
    uniform ``u`` in the cell maps to ``base[k] + #{breaks[k] <= u}``.
    """

    def __init__(self, lam: float) -> None:
        sd = math.sqrt(lam)
        self.offset = max(0, math.floor(lam - 12.0 * sd - 12.0))
        top = math.ceil(lam + 12.0 * sd + 30.0)
        self.cdf = cdf = poisson_cdf(top, lam)[self.offset :]
        cdf[-1] = 1.0
        # Cell a covers u in [a/G, (a+1)/G). Inversion gives offset + #{cdf <= u}; that count is
        # #{cdf <= a/G} = #{ceil(cdf G) <= a} at the cell's start, and it changes inside the cell
        # iff some cdf value lies strictly inside, i.e. #{floor(cdf G) <= a} is larger.
        # (Products with G = 2**16 are exact in floating point.)
        scaled = cdf * _GUIDE_CELLS
        left = _step_counts(np.ceil(scaled))
        right = _step_counts(np.floor(scaled))
        guide = left + self.offset
        ambiguous = np.flatnonzero(right > left)
        inside = right[ambiguous] - left[ambiguous]
        self.base = guide[ambiguous].astype(np.int64)
        self.breaks = np.full((len(ambiguous), int(inside.max(initial=1))), np.inf)
        for k in range(self.breaks.shape[1]):
            rows = np.flatnonzero(inside > k)
            self.breaks[rows, k] = cdf[left[ambiguous[rows]] + k]
        guide[ambiguous] = -1 - np.arange(len(ambiguous), dtype=np.int32)
        small = max(top, len(ambiguous)) < np.iinfo(np.int16).max
        self.guide = guide.astype(np.int16) if small else guide


#: Inversion tables by Poisson mean, shareable between samplers.
TableCache = dict[float, _PoissonTable]


class MultinomialSampler:
    """Draw replicates of ``Multinomial(N, counts / N)`` for fixed row counts.

    Parameters
    ----------
    counts : numpy.ndarray
        Number of votes on each row (non-negative integers, ``N`` = their sum).
    tables : dict, optional
        A cache of inversion tables to share between samplers (they depend on a Poisson mean
        only); pass the same dict to the samplers of a modality's boards.
    method : str
        One of :data:`METHODS`: "auto" (the default) takes numpy's sampler for at most ``sqrt(N)`` rows.

    Examples
    --------
    >>> sampler = MultinomialSampler(np.array([3, 1, 6]))
    >>> draws = sampler.draw(np.random.default_rng(0), 4)
    >>> draws.shape, draws.sum(axis=0).tolist()
    ((3, 4), [10, 10, 10, 10])
    """

    def __init__(self, counts: np.ndarray, tables: TableCache | None = None, *, method: str = "auto") -> None:
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
        self.counts = np.asarray(counts, dtype=np.int64)
        self.n_rows = len(self.counts)
        self.total = int(self.counts.sum())
        self._cum = np.cumsum(self.counts)
        self._order = None if np.all(np.diff(self.counts) >= 0) else np.argsort(self.counts, kind="stable")
        few_rows = self.n_rows * self.n_rows <= self.total
        self._numpy = self.total > 0 and (method == "numpy" or (method == "auto" and few_rows))
        self._poissonize = not self._numpy and self.total > self.n_rows and self.total > 9
        self._groups: list[tuple[int, int, _PoissonTable | None]] = []
        self._direct: list[tuple[int, int, float]] = []  # rows drawn by Generator.poisson(mean)
        self._row_of_vote: np.ndarray | None = None  # the row of each vote, for the top-up
        if self._poissonize:
            # Poisson means are counts times a scale about two standard deviations under 1, rounded
            # down to a 1/1024 grid so that boards of similar size share tables.
            scale = math.floor((1.0 - _MARGIN / math.sqrt(self.total)) * 1024.0) / 1024.0
            cache = {} if tables is None else tables
            srt = self.counts if self._order is None else self.counts[self._order]
            values, starts = np.unique(srt, return_index=True)
            ends = np.append(starts[1:], self.n_rows)
            for c, s, e in zip(values.tolist(), starts.tolist(), ends.tolist(), strict=True):
                table = None
                if c > 0 and c * scale > TABLE_MAX_MEAN:
                    self._direct.append((s, e, c * scale))
                    continue
                if c > 0:
                    lam = c * scale
                    table = cache.get(lam)
                    if table is None:
                        table = cache[lam] = _PoissonTable(lam)
                self._groups.append((s, e, table))
            self._starts = np.array([g[0] for g in self._groups])
            tables_in_order = [g[2] for g in self._groups]
            sizes = [0 if t is None else len(t.base) for t in tables_in_order]
            self._amb_offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
            width = max([1] + [t.breaks.shape[1] for t in tables_in_order if t is not None])
            self._amb_base = np.concatenate([np.zeros(0, np.int64)] + [t.base for t in tables_in_order if t])
            self._amb_breaks = np.concatenate(
                [np.zeros((0, width))]
                + [
                    np.pad(t.breaks, ((0, 0), (0, width - t.breaks.shape[1])), constant_values=np.inf)
                    for t in tables_in_order
                    if t is not None
                ]
            )

    @property
    def method(self) -> str:
        """How replicates are drawn: "numpy" (its multinomial), "poisson" (module docstring) or "votes"."""
        return "numpy" if self._numpy else "poisson" if self._poissonize else "votes"

    def block_rounds(self) -> int:
        """Replicates per call that keep temporary arrays around half a million elements."""
        per_round = self.n_rows if self._poissonize or self._numpy else self.total
        return max(1, _ELEMENTS_PER_BLOCK // max(1, per_round))

    def draw(self, rng: np.random.Generator, rounds: int, dtype: type = np.int32) -> np.ndarray:
        """``(n_rows, rounds)`` array (``int32`` or ``float64``): each column is one replicate."""
        if self.total == 0 or self.n_rows == 0:
            return np.zeros((self.n_rows, rounds), dtype=dtype)
        if self._numpy:
            draws = rng.multinomial(self.total, self.counts / self.total, size=rounds)
            return np.ascontiguousarray(draws.T, dtype=dtype)
        if not self._poissonize:
            return self._draw_votes(rng, rounds).astype(dtype, copy=False)
        out = self._draw_poisson(rng, rounds, dtype)
        totals = out.sum(axis=0, dtype=np.int64)
        while True:
            over = np.flatnonzero(totals > self.total)
            if not len(over):
                break
            out[:, over] = self._draw_poisson(rng, len(over), dtype)
            totals[over] = out[:, over].sum(axis=0, dtype=np.int64)
        missing = self.total - totals
        extra = rng.integers(0, self.total, size=int(missing.sum()))
        if self.total <= _VOTE_TABLE_MAX:  # the rows of the sorted draws, by counting instead of sorting
            if self._row_of_vote is None:  # built once per sampler; threads may build it twice
                self._row_of_vote = np.repeat(np.arange(self.n_rows, dtype=np.int32), self.counts)
            found = np.bincount(self._row_of_vote[extra], minlength=self.n_rows)
            rows = np.repeat(np.arange(self.n_rows), found)
        else:  # sorted: cache-friendly search
            rows = np.searchsorted(self._cum, np.sort(extra), side="right")
        replicate = rng.permutation(np.repeat(np.arange(rounds), missing))
        flat_index = rows * rounds + replicate
        if len(flat_index) * 8 >= out.size:  # dense top-up: one counting pass beats unbuffered adds
            out += np.bincount(flat_index, minlength=out.size).reshape(out.shape).astype(dtype, copy=False)
        else:
            np.add.at(out.reshape(-1), flat_index, 1)
        return out

    def _draw_poisson(self, rng: np.random.Generator, rounds: int, dtype: type) -> np.ndarray:
        cells = rng.integers(0, _GUIDE_CELLS, size=(self.n_rows, rounds), dtype=np.uint16)
        out = np.empty((self.n_rows, rounds), dtype=dtype)
        for start, end, table in self._groups:
            if table is None:
                out[start:end] = 0
            else:  # fancy indexing beats np.take(mode="clip") here
                out[start:end] = table.guide[cells[start:end]]
        for start, end, lam in self._direct:
            out[start:end] = rng.poisson(lam, size=(end - start, rounds))
        flat = out.reshape(-1)
        ambiguous = np.flatnonzero(flat < 0)
        if len(ambiguous):  # resolve all ambiguous cells of the block at once
            group = np.searchsorted(self._starts, ambiguous // rounds, side="right") - 1
            k = self._amb_offset[group] - 1 - flat[ambiguous].astype(np.int64)
            u = (cells.reshape(-1)[ambiguous] + rng.random(len(ambiguous))) / _GUIDE_CELLS
            flat[ambiguous] = self._amb_base[k] + (u[:, None] >= self._amb_breaks[k]).sum(axis=1)
        if self._order is not None:
            unsorted = np.empty_like(out)
            unsorted[self._order] = out
            out = unsorted
        return out

    def _draw_votes(self, rng: np.random.Generator, rounds: int) -> np.ndarray:
        rows = np.searchsorted(
            self._cum, rng.integers(0, self.total, size=(rounds, self.total)), side="right"
        )
        flat = rows + self.n_rows * np.arange(rounds)[:, None]
        counts = np.bincount(flat.ravel(), minlength=self.n_rows * rounds)
        return counts.reshape(rounds, self.n_rows).T.astype(np.int32)


class ClusterSampler:
    """Draw replicates of a cluster bootstrap: resample the ``C`` clusters with replacement.

    A replicate takes ``C`` clusters uniformly with replacement, i.e. multiplicities
    ``m ~ Multinomial(C, 1/C)``, and every row of cluster ``c`` then counts ``m_c`` times its votes.
    Same interface as :class:`MultinomialSampler` (``(n_rows, rounds)`` draws), so the bootstrap sums
    and refits replicates the same way whichever sampler made them.

    Parameters
    ----------
    counts : numpy.ndarray
        Number of votes on each row.
    cluster : numpy.ndarray
        Cluster index of each row, ``0 .. n_clusters - 1``.
    n_clusters : int
        Number of clusters.
    """

    def __init__(self, counts: np.ndarray, cluster: np.ndarray, n_clusters: int) -> None:
        self.counts = np.asarray(counts, dtype=np.float64)
        self.cluster = np.asarray(cluster, dtype=np.intp)
        self.n_clusters = int(n_clusters)
        self.n_rows = len(self.counts)

    def block_rounds(self) -> int:
        """Replicates per call that keep temporary arrays around a million elements."""
        return max(1, _ELEMENTS_PER_BLOCK // max(1, self.n_rows))

    def multiplicities(self, rng: np.random.Generator, rounds: int) -> np.ndarray:
        """``(n_clusters, rounds)`` times each cluster is drawn in each replicate."""
        c = self.n_clusters
        if c == 0:
            return np.zeros((0, rounds))
        return rng.multinomial(c, np.full(c, 1.0 / c), size=rounds).T.astype(np.float64)

    def draw(self, rng: np.random.Generator, rounds: int, dtype: type = np.float64) -> np.ndarray:
        """``(n_rows, rounds)`` resampled vote counts of each row."""
        m = self.multiplicities(rng, rounds)
        return (self.counts[:, None] * m[self.cluster]).astype(dtype, copy=False)
