"""Rank correlations between two boards (a judge's and people's): Kendall's tau-b and Spearman's rho with
bootstrap intervals widened by the order bounds of pairs neither board resolves. Pure numpy/scipy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "RankCorrelation",
    "kendall_rows",
    "order_bounds",
    "rank_correlation",
    "resolved_signs",
    "spearman_rows",
]


@dataclass(frozen=True)
class RankCorrelation:
    """Kendall's tau-b and Spearman's rho between two boards' ratings, with intervals (see
    :func:`rank_correlation`)."""

    n_models: int
    kendall: float
    kendall_low: float
    kendall_high: float
    spearman: float
    spearman_low: float
    spearman_high: float
    replicates: int

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-safe (nan becomes None)."""
        return {
            k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in self.__dict__.items()
        }


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row of ``x`` with the same row of ``y`` (rows of equal length, finite)."""
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    i, j = np.triu_indices(x.shape[1], 1)
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sx * sy).sum(axis=1) / np.sqrt((sx != 0).sum(axis=1) * (sy != 0).sum(axis=1))


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho (Pearson correlation of average ranks) of each row pair."""
    from scipy import stats

    rx = stats.rankdata(np.atleast_2d(x), axis=1)
    ry = stats.rankdata(np.atleast_2d(y), axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(axis=1) / np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))


def _rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both correlations per row; a row with a non-finite rating drops that model from that row."""
    tau, rho = np.full(len(x), np.nan), np.full(len(x), np.nan)
    ok = np.isfinite(x).all(axis=1) & np.isfinite(y).all(axis=1)
    if ok.any():
        tau[ok], rho[ok] = kendall_rows(x[ok], y[ok]), spearman_rows(x[ok], y[ok])
    for k in np.flatnonzero(~ok):
        keep = np.isfinite(x[k]) & np.isfinite(y[k])
        if keep.sum() >= 3:
            tau[k] = kendall_rows(x[k, keep], y[k, keep])[0]
            rho[k] = spearman_rows(x[k, keep], y[k, keep])[0]
    return tau, rho


def resolved_signs(point: np.ndarray, boot: np.ndarray, level: float = 0.95) -> np.ndarray:
    """(n, n) matrix of the order each pair of models is known to have: ``sign(point_i - point_k)`` where the
    pair's rating difference has a percentile bootstrap interval (from the replicates, rows of ``boot``) that
    excludes 0 on that side, else 0 (unresolved: the data cannot say which of the two is ahead)."""
    point = np.asarray(point, float)
    boot = np.asarray(boot, float)
    sign = np.sign(point[:, None] - point[None, :])
    with np.errstate(invalid="ignore"):
        diff = boot[:, :, None] - boot[:, None, :]
    defined = ~np.isnan(diff)  # inf - inf: that replicate says nothing about the pair
    n_def = defined.sum(axis=0)
    same = ((np.sign(np.where(defined, diff, 0.0)) == sign[None]) & defined).sum(axis=0)
    ok = (n_def > 0) & (sign != 0) & (same >= (1 - (1 - level) / 2) * np.maximum(n_def, 1))
    return np.where(ok, sign, 0.0)


MAX_ORDER_STATES = 200_000  # beyond this many partial orderings, order_bounds falls back to its relaxation


def _extension_sums(ordered: np.ndarray, other: np.ndarray) -> tuple[float, float, float, float] | None:
    """Extremes of the Kendall sum (pairs in the same order minus pairs in opposite orders) and the Spearman sum
    (products of centred ranks) over every total order of the ``ordered`` board that keeps its resolved pairs,
    the ``other`` board's unresolved pairs (and its ranks within their ranges) counted at their best or worst.

    Exact when the other board is fully resolved; an outer bound otherwise. Dynamic programming over the sets of
    models that can fill the top places (the board's down-sets), so the cost grows with how many models are
    mutually unresolved; None when that exceeds MAX_ORDER_STATES or the resolved pairs contain a cycle.
    """
    n = ordered.shape[0]
    bits = [1 << k for k in range(n)]

    def mask(row: np.ndarray) -> int:
        return sum(bits[k] for k in np.flatnonzero(row))

    above = [mask(ordered[m] < 0) for m in range(n)]  # models resolved above m: placed before it
    pos = [mask(other[m] > 0) for m in range(n)]
    neg = [mask(other[m] < 0) for m in range(n)]
    free = [mask((other[m] == 0) & (np.arange(n) != m)) for m in range(n)]
    centre = (n + 1) / 2
    q_lo = 1 + (other < 0).sum(axis=1) - centre  # the other board's centred rank range, 1 = top
    q_hi = n - (other > 0).sum(axis=1) - centre
    layer: dict[int, tuple[float, float, float, float]] = {0: (0.0, 0.0, 0.0, 0.0)}
    full, seen = (1 << n) - 1, 1
    for place in range(1, n + 1):
        p = place - centre
        nxt: dict[int, tuple[float, float, float, float]] = {}
        for placed, (k_hi, k_lo, s_hi, s_lo) in layer.items():
            rest = full & ~placed
            for m in range(n):
                if not rest & bits[m] or above[m] & ~placed:
                    continue
                r = rest & ~bits[m]
                k = (r & pos[m]).bit_count() - (r & neg[m]).bit_count()
                u = (r & free[m]).bit_count()
                s_a, s_b = p * q_lo[m], p * q_hi[m]
                cand = (k_hi + k + u, k_lo + k - u, s_hi + max(s_a, s_b), s_lo + min(s_a, s_b))
                key = placed | bits[m]
                old = nxt.get(key)
                nxt[key] = (
                    cand
                    if old is None
                    else (
                        max(old[0], cand[0]),
                        min(old[1], cand[1]),
                        max(old[2], cand[2]),
                        min(old[3], cand[3]),
                    )
                )
        seen += len(nxt)
        if not nxt or seen > MAX_ORDER_STATES:
            return None
        layer = nxt
    return layer.get(full)


def order_bounds(judge_signs: np.ndarray, human_signs: np.ndarray) -> tuple[float, float, float, float]:
    """(Kendall low, Kendall high, Spearman low, Spearman high) over the pairs of untied orderings that keep the
    resolved pairs of each board (:func:`resolved_signs`, +1 / -1 / 0 per ordered pair) and let each unresolved
    pair go either way.

    Each board in turn is ordered exactly (:func:`_extension_sums`, which respects transitivity) with the other
    board's unresolved pairs and rank ranges relaxed, and the tighter of the two ways round is kept: exact when
    one board is fully resolved, an outer bound otherwise. When there are too many orderings to enumerate, plain
    relaxations are used: Kendall (C - D -+ U) / (n (n - 1) / 2) with U the pairs unresolved in either board,
    Spearman a linear assignment of ranks on one board with the other's ranks free inside their ranges (a model's
    rank lies between 1 + the models resolved below it and n - the models resolved above it)."""
    n = judge_signs.shape[0]
    pairs = n * (n - 1) / 2
    norm = n * (n * n - 1) / 12
    ways = [_extension_sums(judge_signs, human_signs), _extension_sums(human_signs, judge_signs)]
    found = [w for w in ways if w is not None]
    if found:
        k_high, k_low = min(w[0] for w in found), max(w[1] for w in found)
        s_high, s_low = min(w[2] for w in found), max(w[3] for w in found)
        return (
            max(-1.0, float(k_low / pairs)),
            min(1.0, float(k_high / pairs)),
            max(-1.0, float(s_low / norm)),
            min(1.0, float(s_high / norm)),
        )
    iu = np.triu_indices(n, 1)
    sj, sh = judge_signs[iu], human_signs[iu]
    both = (sj != 0) & (sh != 0)
    s = float((sj * sh)[both].sum())
    u = float((~both).sum())
    k_low, k_high = (s - u) / pairs, (s + u) / pairs
    centre = (n + 1) / 2

    def ranges(signs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return 1 + (signs > 0).sum(axis=1), n - (signs < 0).sum(axis=1)

    def extreme(
        fixed: tuple[np.ndarray, np.ndarray], free: tuple[np.ndarray, np.ndarray], maximize: bool
    ) -> float:
        """Extreme of sum (r_i - c)(s_i - c): r a permutation with r_i in `fixed`'s ranges, s_i anywhere in
        `free`'s ranges independently."""
        from scipy.optimize import linear_sum_assignment

        slot = np.arange(1, n + 1)[None, :] - centre  # (1, n) centred rank of each slot
        lo_s, hi_s = free[0][:, None] - centre, free[1][:, None] - centre
        pick = np.maximum if maximize else np.minimum
        value = pick(slot * lo_s, slot * hi_s)  # (model, slot): best free rank for that slot
        allowed = (np.arange(1, n + 1)[None, :] >= fixed[0][:, None]) & (
            np.arange(1, n + 1)[None, :] <= fixed[1][:, None]
        )
        big = 4.0 * n**3
        cost = np.where(allowed, value, -big if maximize else big)
        rows, cols = linear_sum_assignment(cost, maximize=maximize)
        if not allowed[rows, cols].all():  # the ranges admit no permutation: inconsistent resolution
            return float(n**3) if maximize else -float(n**3)
        return float(value[rows, cols].sum())

    rj, rh = ranges(judge_signs), ranges(human_signs)
    s_high = min(extreme(rj, rh, True), extreme(rh, rj, True)) / norm
    s_low = max(extreme(rj, rh, False), extreme(rh, rj, False)) / norm
    return (max(-1.0, k_low), min(1.0, k_high), max(-1.0, s_low), min(1.0, s_high))


def rank_correlation(
    judge: np.ndarray, human: np.ndarray, judge_boot: np.ndarray, human_boot: np.ndarray, level: float = 0.95
) -> RankCorrelation:
    """Correlations of the point ratings, each with the hull of two intervals from paired replicates (rows of
    ``*_boot``), clipped to [-1, 1]:

    - a basic (reverse-percentile) bootstrap interval. Estimation noise pulls a sample rank correlation towards
      zero, and a replicate's noise pulls it further; the basic interval (2 x estimate - upper quantile,
      2 x estimate - lower quantile) undoes that shift to first order, where a percentile interval would sit
      below the true value;
    - the order bounds (:func:`order_bounds`): the range of the correlation over the orderings that keep every
      pair whose order is resolved in its board (:func:`resolved_signs`) and let each unresolved pair go either
      way.

    Why both: a rank correlation is a step function of the ratings. When two models are nearly tied on a board
    (closer than the estimation error), their sample order is a coin toss while the population order is fixed,
    so the sample correlation is biased and the bootstrap, which only re-tosses the same coin around the
    estimate, cannot see the bias; more data shrinks it only slowly. The order bounds are honest about such
    pairs, and the bootstrap interval keeps the report no narrower than before where every pair is resolved.
    """
    judge, human = np.asarray(judge, float), np.asarray(human, float)
    judge_boot, human_boot = np.asarray(judge_boot, float), np.asarray(human_boot, float)
    tau, rho = (float(v[0]) for v in _rows(judge[None, :], human[None, :]))
    boot_tau, boot_rho = _rows(judge_boot, human_boot)
    tail = (1 - level) / 2
    nan = float("nan")

    def basic(point: float, col: np.ndarray) -> tuple[float, float]:
        col = col[np.isfinite(col)]
        if col.size == 0 or not np.isfinite(point):
            return (nan, nan)
        lo_q, hi_q = np.quantile(col, [tail, 1 - tail])
        return (float(max(-1.0, 2 * point - hi_q)), float(min(1.0, 2 * point - lo_q)))

    def hull(point: float, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
        if not np.isfinite(point):
            return (nan, nan)
        lows, highs = [v for v in (a[0], b[0]) if np.isfinite(v)], [v for v in (a[1], b[1]) if np.isfinite(v)]
        return (min(lows, default=nan), max(highs, default=nan))

    keep = np.isfinite(judge) & np.isfinite(human)
    bounds = (nan, nan, nan, nan)
    if keep.sum() >= 3:
        bounds = order_bounds(
            resolved_signs(judge[keep], judge_boot[:, keep], level),
            resolved_signs(human[keep], human_boot[:, keep], level),
        )
    k_low, k_high = hull(tau, basic(tau, boot_tau), bounds[:2])
    s_low, s_high = hull(rho, basic(rho, boot_rho), bounds[2:])
    return RankCorrelation(len(judge), tau, k_low, k_high, rho, s_low, s_high, len(boot_tau))
