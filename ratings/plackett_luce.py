"""Plackett-Luce (rank-ordered logit) maximum likelihood: the K-wise twin of :mod:`ratings.bt`.

A ranking ``r_1 > r_2 > ... > r_m`` of the items it lists has probability

    prod over s < m of  exp(theta_{r_s}) / sum over t >= s of exp(theta_{r_t})

(the best is chosen from all listed items, the second from the rest, ...). With ``m = 2`` this is
``1 / (1 + exp(theta_{r_2} - theta_{r_1}))``, the Bradley-Terry probability of :mod:`ratings.bt`, so a
two-item ranking is exactly one pairwise vote and the log-strengths share the pairwise board's scale.

The log-likelihood is concave; its Hessian is minus ``sum over stages of diag(p) - p p'`` (``p`` the
choice probabilities of a stage), whose rows sum to zero like the Bradley-Terry Laplacian, so the same
sum-zero Newton step ``(A + c 11') step = gradient`` applies (:func:`ratings.newton.sum_zero_inverse`).
The maximum is finite if and only if the "ranked above" graph (an arc ``i -> j`` whenever ``i`` was
ranked above ``j`` in some ranking) is strongly connected (Hunter 2004, Assumption 1), which is the
win-graph condition of :mod:`ratings.graph` applied to the rankings' implied pairs.

References: Plackett (1975); Luce (1959); Hunter (2004), "MM algorithms for generalized Bradley-Terry
models", section 5 (Plackett-Luce).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["PLFit", "RankingData", "fit_plackett_luce", "pl_cluster_scores", "pl_evaluate"]

_MAX_HALVINGS = 50


@dataclass(frozen=True, eq=False)
class RankingData:
    """Rankings grouped by length: ``groups[m]`` is an ``(N_m, m)`` int array of item indices, best first,
    with per-ranking ``weights[m]`` (``(N_m,)``) and ``clusters[m]`` (``(N_m,)`` cluster codes ``0..C-1``)."""

    n_items: int
    groups: dict[int, np.ndarray]
    weights: dict[int, np.ndarray]
    clusters: dict[int, np.ndarray]
    n_clusters: int

    @classmethod
    def build(
        cls,
        rankings: Sequence[Sequence[int]],
        n_items: int,
        clusters: Sequence[int] | None = None,
        weights: Sequence[float] | None = None,
    ) -> RankingData:
        """Group ``rankings`` (lists of distinct item indices, best first, length >= 2) by length.

        Clusters are any integer labels; they are re-coded ``0..C-1`` in order of first appearance.
        """
        n = len(rankings)
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
        raw = np.arange(n) if clusters is None else np.asarray(clusters)
        _, codes = np.unique(raw, return_inverse=True) if n else (None, np.zeros(0, dtype=np.int64))
        by_len: dict[int, list[int]] = {}
        for k, r in enumerate(rankings):
            by_len.setdefault(len(r), []).append(k)
        groups, gw, gc = {}, {}, {}
        for m, rows in sorted(by_len.items()):
            groups[m] = np.array([list(rankings[k]) for k in rows], dtype=np.int64).reshape(len(rows), m)
            gw[m] = w[rows]
            gc[m] = np.asarray(codes, dtype=np.int64)[rows]
        return cls(n_items, groups, gw, gc, int(codes.max()) + 1 if n else 0)

    def unclustered(self) -> RankingData:
        """The same rankings with each one its own cluster."""
        codes, start = {}, 0
        for m, idx in self.groups.items():
            codes[m] = np.arange(start, start + len(idx))
            start += len(idx)
        return RankingData(self.n_items, self.groups, self.weights, codes, start)

    def appearances(self) -> np.ndarray:
        """Total weight of the rankings each item appears in, ``(n_items,)``."""
        out = np.zeros(self.n_items)
        for m, idx in self.groups.items():
            out += np.bincount(idx.ravel(), np.repeat(self.weights[m], m), minlength=self.n_items)
        return out

    def implied_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(winner, loser)`` index arrays of every pair a ranking orders (``m (m - 1) / 2`` per ranking)."""
        win, lose = [], []
        for m, idx in self.groups.items():
            for s in range(m - 1):
                for t in range(s + 1, m):
                    win.append(idx[:, s])
                    lose.append(idx[:, t])
        if not win:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(win), np.concatenate(lose)


@dataclass(frozen=True, eq=False)
class PLFit:
    """Result of :func:`fit_plackett_luce`: sum-zero log-strengths and convergence facts (as :class:`ratings.BTFit`)."""

    theta: np.ndarray
    converged: bool
    iterations: int
    max_gradient: float
    log_likelihood: float
    message: str


def pl_evaluate(
    theta: np.ndarray, data: RankingData, *, curvature: bool = True
) -> tuple[float, np.ndarray, np.ndarray | None]:
    """Log-likelihood, gradient ``(n,)`` and observed information ``(n, n)`` (minus the Hessian) at ``theta``."""
    from scipy.special import logsumexp, softmax  # scipy only when rankings are fitted

    n = data.n_items
    theta = np.asarray(theta, dtype=np.float64)
    ll = 0.0
    grad = np.zeros(n)
    info = np.zeros(n * n) if curvature else None
    for m, idx in data.groups.items():
        w = data.weights[m]
        for s in range(m - 1):
            sub = idx[:, s:]
            t = theta[sub]
            ll += float(w @ (t[:, 0] - logsumexp(t, axis=1)))
            p = softmax(t, axis=1)
            grad += np.bincount(sub[:, 0], w, minlength=n)
            grad -= np.bincount(sub.ravel(), (w[:, None] * p).ravel(), minlength=n)
            if info is not None:
                outer = -w[:, None, None] * p[:, :, None] * p[:, None, :]
                k = m - s
                outer[:, np.arange(k), np.arange(k)] += w[:, None] * p
                flat = sub[:, :, None] * n + sub[:, None, :]
                info += np.bincount(flat.ravel(), outer.ravel(), minlength=n * n)
    return ll, grad, None if info is None else info.reshape(n, n)


def pl_cluster_scores(theta: np.ndarray, data: RankingData) -> np.ndarray:
    """``(C, n)`` score vectors summed per cluster: each ranking's score is ``sum over stages of e_winner - p``."""
    from scipy.special import softmax

    n, c = data.n_items, data.n_clusters
    theta = np.asarray(theta, dtype=np.float64)
    out = np.zeros(c * n)
    for m, idx in data.groups.items():
        w, cl = data.weights[m], data.clusters[m]
        for s in range(m - 1):
            sub = idx[:, s:]
            p = softmax(theta[sub], axis=1)
            out += np.bincount(cl * n + sub[:, 0], w, minlength=c * n)
            cells = (cl[:, None] * n + sub).ravel()
            out -= np.bincount(cells, (w[:, None] * p).ravel(), minlength=c * n)
    return out.reshape(c, n)


def _sum_zero_solve(info: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Solve ``(A + c 11') x = grad`` (``c`` on the scale of ``A``'s eigenvalues), as :mod:`ratings.newton` does."""
    from scipy.linalg import cho_factor, cho_solve

    n = len(grad)
    c = np.trace(info) / (n * n)
    system = info + (c if c > 0 else 1.0)
    try:
        return cho_solve(cho_factor(system, check_finite=False), grad, check_finite=False)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(system, grad, rcond=None)[0]


def fit_plackett_luce(
    data: RankingData, *, theta0: np.ndarray | None = None, tol: float = 1e-10, max_iter: int = 100
) -> PLFit:
    """Maximum-likelihood Plackett-Luce log-strengths by Newton's method with a backtracking line search.

    Stops when ``max_k |dl/dtheta_k| / n_k < tol`` with ``n_k`` the weight of the rankings item ``k`` is in
    (the convergence rule of :func:`ratings.fit_bradley_terry`). The caller checks that the estimate exists
    (strongly connected "ranked above" graph); items in no ranking keep ``theta = 0`` before centring and
    should be left out by the caller.
    """
    n = data.n_items
    theta = np.zeros(n) if theta0 is None else np.asarray(theta0, dtype=np.float64).copy()
    theta -= theta.mean()
    scale = data.appearances()
    scale = np.where(scale > 0, scale, 1.0)
    ll, grad, info = pl_evaluate(theta, data)
    it = 0
    gmax = float(np.max(np.abs(grad) / scale)) if n else 0.0
    while gmax >= tol and it < max_iter:
        step = _sum_zero_solve(info, grad)
        alpha = 1.0
        for _ in range(_MAX_HALVINGS):
            trial = theta + alpha * step
            ll_t, grad_t, info_t = pl_evaluate(trial, data)
            if ll_t >= ll - 1e-10 * (abs(ll) + 1.0):
                break
            alpha *= 0.5
        else:
            break
        theta, ll, grad, info = trial, ll_t, grad_t, info_t
        it += 1
        gmax = float(np.max(np.abs(grad) / scale))
    converged = gmax < tol
    if converged:
        message = f"converged in {it} Newton iterations (max scaled gradient {gmax:.1e} < {tol:.0e})"
    else:
        message = f"did not converge in {it} Newton iterations (max scaled gradient {gmax:.1e}, tolerance {tol:.0e})"
    return PLFit(theta - theta.mean(), bool(converged), it, gmax, float(ll), message)
