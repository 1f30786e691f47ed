"""The Bradley-Terry solver: Newton steps on many fits at once.

Fits that share the model pairs are columns of ``(P, R)`` arrays (``R = 1`` for a single fit,
``R`` = a batch of bootstrap replicates), so every operation is one vectorised pass. Per pair
with difference ``d = theta_i - theta_j``, effective wins ``w_i``, ``w_j`` and ``n = w_i + w_j``:

* log-likelihood ``w_i log s(d) + w_j log s(-d) = (w_i - w_j) d / 2 - n (log(1 + e) + |d| / 2)``
  with ``e = exp(-|d|)`` (no overflow for any ``d``);
* residual ``w_i - n s(d)`` (gradient = incidence matrix times residuals);
* curvature ``n s(d) (1 - s(d))`` (information = Laplacian weighted by curvatures).

Steps solve ``(L + c 11') step = gradient``; the gradient sums to zero, so the step does too and
``sum(theta) = 0`` is kept without biasing anything. With ``precond`` the step is
``precond @ gradient`` for a fixed matrix instead (see :func:`preconditioner`). Every step is
checked by a backtracking line search on the log-likelihood, so the iterates always climb.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Incidence", "incidence", "laplacians", "preconditioner", "solve_columns", "sum_zero_inverse"]

_MAX_HALVINGS = 50


class Incidence:
    """The ``(n, P)`` incidence matrix of ``P`` model pairs (``+1`` at ``(i, p)``, ``-1`` at ``(j, p)`` for pair
    ``p = (i, j)``) as an operator: ``inc @ x`` sums ``x``'s rows (``(P,)`` or ``(P, R)``) into models.

    Sums run over segments of rows sorted by model (``numpy.add.reduceat``), which needs no scipy.sparse (whose
    import cost a fresh `arena ratings fit` a tenth of a second) and is as fast as its product here.
    """

    def __init__(self, n: int, pairs: np.ndarray) -> None:
        self.shape = (n, len(pairs))
        self._sides = [self._side(np.asarray(pairs[:, k], dtype=np.intp)) for k in (0, 1)]

    @staticmethod
    def _side(models: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        """(row order sorting ``models``, or None if sorted; the models present; where their runs start)."""
        order = None if np.all(models[1:] >= models[:-1]) else np.argsort(models, kind="stable")
        ordered = models if order is None else models[order]
        starts = (
            np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]])) if len(ordered) else ordered
        )
        return order, ordered[starts], starts

    def _sum(self, side: int, x: np.ndarray) -> np.ndarray:
        """``out[k] = sum of x[p] over pairs p whose model on ``side`` is k``."""
        order, present, starts = self._sides[side]
        out = np.zeros((self.shape[0], *x.shape[1:]))
        if len(starts):
            out[present] = np.add.reduceat(x if order is None else x[order], starts, axis=0)
        return out

    def first(self, x: np.ndarray) -> np.ndarray:
        """Rows of ``x`` summed by each pair's first model."""
        return self._sum(0, np.asarray(x, dtype=np.float64))

    def second(self, x: np.ndarray) -> np.ndarray:
        """Rows of ``x`` summed by each pair's second model."""
        return self._sum(1, np.asarray(x, dtype=np.float64))

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        """``inc @ x``: the first model's sums minus the second's."""
        return self.first(x) - self.second(x)

    def unsigned(self, x: np.ndarray) -> np.ndarray:
        """``abs(inc) @ x``: every pair's row added to both of its models."""
        return self.first(x) + self.second(x)


def incidence(n: int, pairs: np.ndarray) -> Incidence:
    """The ``(n, P)`` incidence operator of ``pairs`` (see :class:`Incidence`)."""
    return Incidence(n, pairs)


def laplacians(weights: np.ndarray, pairs: np.ndarray, n: int) -> np.ndarray:
    """Weighted graph Laplacians: ``(n, n)`` for ``weights`` of shape ``(P,)``, ``(R, n, n)`` for ``(P, R)``."""
    w = np.asarray(weights, dtype=np.float64)
    flat = w.ndim == 1
    w = w.reshape(len(pairs), -1)
    i, j = pairs[:, 0].astype(np.intp), pairs[:, 1].astype(np.intp)
    lap = np.zeros((w.shape[1], n * n))
    lap[:, i * n + j] = -w.T
    lap[:, j * n + i] = -w.T
    lap = lap.reshape(-1, n, n)
    diag = np.arange(n)
    lap[:, diag, diag] = -lap.sum(axis=2)
    return lap[0] if flat else lap


def _with_ones(lap: np.ndarray) -> np.ndarray:
    """``L + c 11'`` with ``c`` on the scale of ``L``'s eigenvalues: invertible when connected."""
    n = lap.shape[-1]
    c = np.trace(lap, axis1=-2, axis2=-1) / (n * n)
    return lap + np.where(c > 0, c, 1.0)[..., None, None]


def sum_zero_inverse(lap: np.ndarray) -> np.ndarray:
    """``(L + c 11')^-1`` of one Laplacian: on vectors summing to zero it is ``L``'s pseudo-inverse.

    Through the Cholesky factor ``G`` (``G^-1' G^-1``, symmetric by construction); the pseudo-inverse if the
    matrix is not positive definite.
    """
    system = _with_ones(lap)
    try:
        inv_factor = np.linalg.inv(np.linalg.cholesky(system))
    except np.linalg.LinAlgError:
        return np.linalg.pinv(system)
    return inv_factor.T @ inv_factor


class _Columns:
    """Per-column data of the active fits and a reusable workspace (avoids allocation churn)."""

    def __init__(self, theta: np.ndarray, wi: np.ndarray, wj: np.ndarray, cols: np.ndarray) -> None:
        self.theta, self.cols = theta, cols
        self.tot = wi + wj
        self.half = 0.5 * (wi - wj)
        self.work = _fresh(self.tot.shape)

    def keep(self, mask: np.ndarray) -> _Columns:
        out = _Columns.__new__(_Columns)
        out.theta, out.cols = self.theta[:, mask], self.cols[mask]
        out.tot, out.half = self.tot[:, mask], self.half[:, mask]
        out.work = _fresh(out.tot.shape)
        return out


def _fresh(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return (np.empty(shape), np.empty(shape), np.empty(shape), np.empty(shape))


def _evaluate(
    theta: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    half: np.ndarray,
    tot: np.ndarray,
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    exact: bool,
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
    """Residuals ``(P, R)`` (in ``work[3]``) and, if ``exact``, log-likelihood ``(R,)`` and curvatures."""
    d, ad, e, res = work
    np.take(theta, i, axis=0, out=d)
    np.subtract(d, np.take(theta, j, axis=0, out=ad), out=d)
    np.abs(d, out=ad)
    np.negative(ad, out=e)
    np.exp(e, out=e)
    e += 1.0
    ll = curv = None
    if exact:
        ll = np.einsum("pr,pr->r", half, d) - 0.5 * np.einsum("pr,pr->r", tot, ad)
    x = np.reciprocal(e, out=ad)
    x -= 0.5  # x = s(|d|) - 1/2, so s(d) = 1/2 + sign(d) x and s(d) (1 - s(d)) = 1/4 - x^2
    if exact:
        np.log(e, out=e)
        ll -= np.einsum("pr,pr->r", tot, e)
        curv = 0.25 - x * x
        curv *= tot
    np.sign(d, out=d)
    d *= x
    d *= tot
    np.subtract(half, d, out=res)  # w_i - n s(d)
    return ll, res, curv


def solve_columns(
    theta0: np.ndarray,
    pairs: np.ndarray,
    wi: np.ndarray,
    wj: np.ndarray,
    *,
    tol: float,
    max_iter: int,
    precond: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fit many Bradley-Terry problems that share pairs, one per column.

    Parameters
    ----------
    theta0 : numpy.ndarray
        ``(n, R)`` starting points.
    pairs : numpy.ndarray
        ``(P, 2)`` model pairs.
    wi, wj : numpy.ndarray
        ``(P, R)`` effective wins of ``i`` and of ``j`` in each problem.
    tol : float
        Converged when ``max_k |gradient_k| / n_k < tol`` (``n_k``: model ``k``'s total weight).
    max_iter : int
        Iteration cap.
    precond : numpy.ndarray, optional
        ``(n, n)`` fixed step matrix ``M``. Without it, exact Newton steps are taken and each is
        accepted only if the log-likelihood does not drop (halving it up to 50 times). With it,
        steps are ``M g`` and are accepted only if the gradient's ``M``-norm shrinks (halving up
        to 4 times); this skips the logarithms, and a column that cannot progress stops
        unconverged, for the caller to finish with exact steps.

    Returns
    -------
    theta, converged, iterations, max_gradient, log_likelihood
        ``(n, R)`` estimates (columns sum to zero) and per-column diagnostics (the
        log-likelihood is ``nan`` with ``precond``). A column stops unconverged at the cap or
        when no acceptable step is found.
    """
    n, r = theta0.shape
    i, j = pairs[:, 0].astype(np.intp), pairs[:, 1].astype(np.intp)
    inc = Incidence(n, pairs)
    exact = precond is None
    halvings = _MAX_HALVINGS if exact else 4
    theta_out = theta0 - theta0.mean(axis=0)
    converged = np.zeros(r, dtype=bool)
    iterations = np.zeros(r, dtype=np.int64)
    gmax_out = np.full(r, np.inf)
    ll_out = np.full(r, np.nan)
    act = _Columns(theta_out.copy(), np.asarray(wi, float), np.asarray(wj, float), np.arange(r))
    scale = inc.unsigned(act.tot)
    scale = np.where(scale > 0, scale, 1.0)
    ll, res, curv = _evaluate(act.theta, i, j, act.half, act.tot, act.work, exact)
    grad = inc @ res
    pgrad = None if exact else precond @ grad  # the chord step, also the merit's weight
    stalled = np.zeros(r, dtype=bool)
    for it in range(max_iter + 1):
        gmax = np.max(np.abs(grad) / scale, axis=0)
        done = gmax < tol
        stop = done | stalled | (it == max_iter) | ~np.isfinite(gmax)
        if stop.any():
            c = act.cols[stop]
            theta_out[:, c], converged[c], iterations[c], gmax_out[c] = (
                act.theta[:, stop],
                done[stop],
                it,
                gmax[stop],
            )
            if ll is not None:
                ll_out[c] = ll[stop]
            keep = ~stop
            if not keep.any():
                break
            act, scale, grad = act.keep(keep), scale[:, keep], grad[:, keep]
            ll = None if ll is None else ll[keep]
            curv = None if curv is None else curv[:, keep]
            pgrad = None if pgrad is None else pgrad[:, keep]
        if exact:
            step = _newton_steps(laplacians(curv, pairs, n), grad)
            before = ll
        else:
            step = pgrad
            before = np.einsum("nr,nr->r", grad, pgrad)
        trial = act.theta + step
        ll_t, res, curv_t = _evaluate(trial, i, j, act.half, act.tot, act.work, exact)
        grad_t = inc @ res
        pgrad_t = None if exact else precond @ grad_t
        bad = _rejected(before, ll_t, grad_t, pgrad_t)
        alpha = 1.0
        for _ in range(halvings):
            if not bad.any():
                break
            alpha *= 0.5
            idx = np.flatnonzero(bad)
            trial[:, idx] = act.theta[:, idx] + alpha * step[:, idx]
            work = _fresh((len(i), len(idx)))
            ll_b, res_b, curv_b = _evaluate(
                trial[:, idx], i, j, act.half[:, idx], act.tot[:, idx], work, exact
            )
            grad_t[:, idx] = inc @ res_b
            if exact:
                ll_t[idx], curv_t[:, idx] = ll_b, curv_b
            else:
                pgrad_t[:, idx] = precond @ grad_t[:, idx]
            bad[idx] = _rejected(before[idx], ll_b, grad_t[:, idx], None if exact else pgrad_t[:, idx])
        stalled = bad
        if bad.any():  # keep the last accepted point; the column stops unconverged
            trial[:, bad], grad_t[:, bad] = act.theta[:, bad], grad[:, bad]
            if exact:
                ll_t[bad], curv_t[:, bad] = ll[bad], curv[:, bad]
            else:
                pgrad_t[:, bad] = pgrad[:, bad]
        act.theta, ll, curv, grad, pgrad = trial, ll_t, curv_t, grad_t, pgrad_t
    return theta_out - theta_out.mean(axis=0), converged, iterations, gmax_out, ll_out


def _newton_steps(lap: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Solve ``(L + c 11') step = grad`` for each column (least squares where not positive definite).

    ``L + c 11'`` is positive definite whenever the comparisons are connected; it stops being so
    only if curvatures underflow to zero (differences of hundreds of nats), which a finite
    estimate never reaches. The columns are solved together (numpy's batched solver); a batch
    that fails the Cholesky test is solved column by column, least squares for those that fail it.
    """
    system = _with_ones(lap)
    rhs = np.ascontiguousarray(grad.T)[..., None]  # (R, n, 1)
    try:
        np.linalg.cholesky(system)
    except np.linalg.LinAlgError:
        steps = np.empty_like(grad)
        for k in range(grad.shape[1]):
            try:
                np.linalg.cholesky(system[k])
                steps[:, k] = np.linalg.solve(system[k], grad[:, k])
            except np.linalg.LinAlgError:
                steps[:, k] = np.linalg.lstsq(system[k], grad[:, k], rcond=None)[0]
        return steps
    return np.linalg.solve(system, rhs)[..., 0].T


def _rejected(
    before: np.ndarray, ll: np.ndarray | None, grad: np.ndarray, pgrad: np.ndarray | None
) -> np.ndarray:
    """Columns whose trial point is worse: a lower log-likelihood (exact steps), or a larger
    gradient ``M``-norm ``g' M g`` (preconditioned steps, ``pgrad = M g``)."""
    if pgrad is None:
        return ~(ll >= before - 1e-10 * (np.abs(before) + 1.0))
    return ~(np.einsum("nr,nr->r", grad, pgrad) <= before)


def preconditioner(theta: np.ndarray, pairs: np.ndarray, wins: np.ndarray) -> np.ndarray:
    """Fixed step matrix ``(L + c 11')^-1`` with ``L`` the information at ``theta``.

    Near ``theta`` a bootstrap replicate's information differs from ``L`` by a few percent, so
    steps ``precond @ gradient`` converge about as fast as Newton's without one linear solve per
    replicate and iteration.
    """
    return sum_zero_inverse(laplacians(evaluate(theta, pairs, wins)[2], pairs, len(theta)))


def evaluate(theta: np.ndarray, pairs: np.ndarray, wins: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, per-pair residuals and per-pair curvatures of one fit (``wins``: ``(P, 2)``)."""
    i, j = pairs[:, 0].astype(np.intp), pairs[:, 1].astype(np.intp)
    wi, wj = wins[:, :1].astype(float), wins[:, 1:].astype(float)
    tot, half = wi + wj, 0.5 * (wi - wj)
    ll, res, curv = _evaluate(np.asarray(theta, float)[:, None], i, j, half, tot, _fresh(tot.shape), True)
    if ll is None or curv is None:  # pragma: no cover - exact evaluation always returns both
        raise AssertionError("exact evaluation returned no likelihood")
    return float(ll[0]), res[:, 0].copy(), curv[:, 0]
