"""K-wise boards: a Plackett-Luce fit of rankings on the pairwise board's Elo-like scale, with cluster-robust intervals.

:func:`fit_ranking_board` is the entry point the K-wise voting flow calls. It follows the pairwise board's steps
(:mod:`ratings.board`) on rankings instead of pairs:

1. check the rankings (item indices in range, distinct, at least two per ranking);
2. check that finite ratings exist: the comparison graph of the rankings' implied pairs is connected (else
   :class:`~ratings.errors.DisconnectedComparisonsError`), and the "ranked above" graph is strongly connected.
   When it is not, the models whose rating is unbounded (ranked above, or below, everyone they met) are excluded
   with a reason, keeping the anchor's strongly connected part (``unbounded="exclude"``, as the pairwise board),
   or the fit raises :class:`~ratings.errors.UnboundedRatingError` (``unbounded="raise"``). An excluded model is
   dropped from the rankings it is in (under Plackett-Luce the order induced on a subset of a ranking's items is
   again Plackett-Luce on that subset, so the rest of the ranking keeps its meaning);
3. fit Plackett-Luce (:mod:`ratings.plackett_luce`; with two-item rankings it *is* Bradley-Terry, so a K-wise
   rating and a pairwise rating mean the same thing) and map it with :func:`ratings.to_elo`: 400/ln 10 Elo per
   nat, the anchor reads ``anchor_rating``;
4. intervals by the cluster-robust sandwich ``A^-1 J_C A^-1`` with CR1's small-sample factor
   (:func:`ratings.intervals.cluster_correction`), clusters being the voter sessions the caller passes; with
   fewer than ``MIN_CLUSTERS`` clusters the intervals are vote-level (each ranking its own unit), as the
   pairwise board does. Display intervals are ``offset + ELO_PER_NAT * (center(theta) -+ z se)`` with the
   board's one offset (the anchor has an interval too), and ranks come from the simultaneous (max-T) normal
   intervals of all pairwise differences (:func:`ratings.intervals.pairwise_above_normal_simultaneous`).

"All about equal" votes carry no ordering information under Plackett-Luce (every order of the shown items is
equally compatible with them and the model has no tie parameter), so they are not in ``rankings``: pass their
number as ``n_all_equal`` and the board reports it. (Scoring them as half wins over all ``K (K - 1) / 2`` pairs,
as the pairwise board does with a tie, would pull every shown pair together by an amount that depends on how
lopsided the shown set is, i.e. on matchmaking, not on the models.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ratings.errors import (
    AnchorNotOnBoardError,
    DisconnectedComparisonsError,
    NoVotesError,
    RankingFormatError,
    UnboundedRatingError,
)
from ratings.graph import comparison_components, unbounded_models
from ratings.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_MIN_VOTES,
    cluster_correction,
    display_offset,
    pairwise_above_normal_simultaneous,
    ranks_from_above,
    sandwich_intervals,
)
from ratings.newton import sum_zero_inverse
from ratings.pairs import PairCounts
from ratings.plackett_luce import PLFit, RankingData, fit_plackett_luce, pl_cluster_scores, pl_evaluate
from ratings.scale import DEFAULT_ANCHOR_RATING, to_elo

__all__ = ["MIN_CLUSTERS", "RankingBoard", "fit_ranking_board", "implied_pair_counts", "ranking_covariance"]

#: Fewer clusters (voter sessions) than this: vote-level intervals, as :data:`ratings.board.MIN_CLUSTERS`.
MIN_CLUSTERS = 10


@dataclass(frozen=True, eq=False)
class RankingBoard:
    """A K-wise board, arrays indexed by item (``0 .. n_items - 1``; ``nan`` / ``0`` for items not on the board).

    Attributes
    ----------
    rating, lower, upper : numpy.ndarray
        ``(n_items,)`` Elo-like rating and display interval (``level``), on the pairwise board's scale.
    n_rankings : numpy.ndarray
        ``(n_items,)`` rankings each item appears in (as passed, before any exclusion).
    rank : numpy.ndarray
        ``(n_items,)`` 1 + the number of items whose lead over it is significant (all pairs together, max-T);
        0 off the board.
    provisional : numpy.ndarray
        ``(n_items,)`` bool: fewer than ``min_votes`` rankings.
    theta : numpy.ndarray
        ``(n_items,)`` sum-zero log-strengths of the items on the board (``nan`` off it).
    on_board : numpy.ndarray
        Indices of the items on the board; ``covariance`` is in this order.
    covariance : numpy.ndarray
        Sandwich covariance of the sum-zero log-strengths of ``on_board``.
    excluded : tuple of (int, str)
        Items left off and why (in no ranking; unbounded rating).
    n_all_equal : int
        "All about equal" votes: counted, not fitted (no ordering information under Plackett-Luce).
    n_clusters : int
        Clusters the sandwich summed scores over; 0 when the intervals are vote-level.
    """

    n_items: int
    anchor: int
    anchor_rating: float
    level: float
    rating: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    n_rankings: np.ndarray
    rank: np.ndarray
    provisional: np.ndarray
    theta: np.ndarray
    on_board: np.ndarray
    covariance: np.ndarray
    fit: PLFit
    n_fitted: int
    n_all_equal: int = 0
    n_clusters: int = 0
    critical: float = float("nan")
    interval: Literal["sandwich"] = "sandwich"
    excluded: tuple[tuple[int, str], ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def half_width(self) -> np.ndarray:
        """``(n_items,)`` half widths of the display intervals (Elo-like)."""
        return (self.upper - self.lower) / 2.0


def _name(k: int) -> str:
    return f"item {k}"


def _check(rankings: Sequence[Sequence[int]], clusters: Sequence[int], n_items: int) -> None:
    if n_items < 0:
        raise ValueError(f"n_items must be non-negative (got {n_items})")
    if len(clusters) != len(rankings):
        raise ValueError(f"{len(rankings)} rankings but {len(clusters)} cluster labels")
    for k, r in enumerate(rankings):
        if len(r) < 2:
            raise RankingFormatError(k, f"ranks {len(r)} item(s); a ranking needs at least two")
        if len(set(r)) != len(r):
            raise RankingFormatError(k, f"repeats an item ({list(r)})")
        bad = [x for x in r if not 0 <= int(x) < n_items]
        if bad:
            raise RankingFormatError(k, f"item index {bad[0]} is not in 0..{n_items - 1}")


def implied_pair_counts(data: RankingData, items: np.ndarray) -> PairCounts:
    """The pairs the rankings order (winner above loser), as :class:`ratings.PairCounts` over ``items``.

    Used for the existence checks (:mod:`ratings.graph`) only: the pairs of one ranking are not independent votes.
    """
    win, lose = data.implied_pairs()
    n = len(items)
    i, j = np.minimum(win, lose), np.maximum(win, lose)
    key = i * n + j
    uniq, inv = np.unique(key, return_inverse=True)
    votes = np.zeros((len(uniq), 3), dtype=np.int64)
    np.add.at(votes, (inv, np.where(win == i, 0, 1)), 1)
    return PairCounts(
        models=tuple(_name(int(k)) for k in items),
        pairs=np.column_stack([uniq // n, uniq % n]).astype(np.int64),
        votes=votes,
        weight=votes.astype(np.float64),
        weight_sq=votes.astype(np.float64),
    )


def _restrict(
    rankings: list[list[int]], clusters: list[int], keep: set[int]
) -> tuple[list[list[int]], list[int]]:
    out, cl = [], []
    for r, c in zip(rankings, clusters, strict=True):
        kept = [x for x in r if x in keep]
        if len(kept) >= 2:
            out.append(kept)
            cl.append(c)
    return out, cl


def ranking_covariance(theta: np.ndarray, data: RankingData, *, clustered: bool) -> np.ndarray:
    """Sandwich covariance ``A^-1 J A^-1`` of the sum-zero log-strengths.

    ``clustered``: ``J = f * sum_c u_c u_c'`` over the data's clusters with CR1's factor ``f``; otherwise each
    ranking is its own unit and ``f = 1`` (the pairwise board's vote-level sandwich).
    """
    _, _, info = pl_evaluate(theta, data)
    if info is None:  # pragma: no cover - pl_evaluate returns the information by default
        raise AssertionError("no information")
    a_inv = sum_zero_inverse(info)
    if clustered:
        u = pl_cluster_scores(theta, data)
        n_rank = sum(len(g) for g in data.groups.values())
        meat = cluster_correction(data.n_clusters, data.n_items, n_rank) * (u.T @ u)
    else:
        single = data.unclustered()
        u = pl_cluster_scores(theta, single)
        meat = u.T @ u
    return a_inv @ meat @ a_inv


def fit_ranking_board(
    rankings: Sequence[Sequence[int]],
    clusters: Sequence[int],
    n_items: int,
    *,
    anchor: int = 0,
    anchor_rating: float = DEFAULT_ANCHOR_RATING,
    interval: Literal["sandwich"] = "sandwich",
    level: float = DEFAULT_LEVEL,
    min_votes: int = DEFAULT_MIN_VOTES,
    unbounded: Literal["exclude", "raise"] = "exclude",
    tol: float = 1e-10,
    max_iter: int = 100,
    n_all_equal: int = 0,
) -> RankingBoard:
    """Fit a K-wise board from rankings (Plackett-Luce on the pairwise board's Elo-like scale).

    Parameters
    ----------
    rankings : sequence of sequences of int
        One ranking per vote: item indices best to worst, at least two, distinct. A ranking orders exactly the
        items it lists (a partial ranking lists fewer items than were shown; items not listed are not in it).
    clusters : sequence of int
        One label per ranking: the voter session it came from (any integers). Intervals are cluster-robust over
        them (vote-level when there are fewer than :data:`MIN_CLUSTERS`).
    n_items : int
        Number of models; rankings index ``0 .. n_items - 1``. Items in no ranking are left off the board.
    anchor, anchor_rating : int, float
        The item that reads ``anchor_rating`` (1000): the pairwise board's scale convention.
    interval : {"sandwich"}
        The cluster-robust sandwich (the only method for rankings).
    level, min_votes, unbounded, tol, max_iter
        As in :func:`ratings.compute_board` (``min_votes`` counts rankings).
    n_all_equal : int
        "All about equal" votes on this board: counted and reported, not fitted (see the module docstring).

    Raises
    ------
    RatingsError
        :class:`~ratings.errors.RankingFormatError` for a malformed ranking; no rankings, a single model, a
        disconnected comparison graph, unbounded ratings (``unbounded="raise"``) or an anchor not on the board,
        as the pairwise board. ``ValueError`` for bad options.
    """
    if interval != "sandwich":
        raise ValueError(f"rankings support interval='sandwich' only (got {interval!r})")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1 (got {level})")
    if unbounded not in ("exclude", "raise"):
        raise ValueError(f"unbounded must be 'exclude' or 'raise' (got {unbounded!r})")
    if n_all_equal < 0:
        raise ValueError(f"n_all_equal must be non-negative (got {n_all_equal})")
    _check(rankings, clusters, n_items)
    if not rankings:
        raise NoVotesError("this K-wise board")
    ranks_in = [[int(x) for x in r] for r in rankings]
    clusters_in = [int(c) for c in clusters]
    n_rankings = np.bincount(np.concatenate([np.array(r) for r in ranks_in]), minlength=n_items).astype(
        np.int64
    )
    present = np.flatnonzero(n_rankings > 0)
    excluded: list[tuple[int, str]] = [
        (int(k), "appears in no ranking") for k in np.flatnonzero(n_rankings == 0)
    ]
    items, kept_rankings, kept_clusters = _existence(
        ranks_in, clusters_in, present, anchor, unbounded, excluded
    )
    local = {int(k): p for p, k in enumerate(items)}
    data = RankingData.build([[local[x] for x in r] for r in kept_rankings], len(items), kept_clusters)
    fit = fit_plackett_luce(data, tol=tol, max_iter=max_iter)
    a = local[anchor]
    notes: list[str] = [] if fit.converged else [f"the fit {fit.message}"]
    clustered = data.n_clusters >= MIN_CLUSTERS
    if not clustered:
        notes.append(
            f"only {data.n_clusters} cluster(s) on this board, too few for cluster-robust intervals: "
            "they are vote-level"
        )
    cov = ranking_covariance(fit.theta, data, clustered=clustered)
    offset = display_offset(fit.theta, a, anchor_rating)
    low, high = sandwich_intervals(fit.theta, cov, offset, level)
    above, critical = pairwise_above_normal_simultaneous(fit.theta, cov, level)

    def spread(values: np.ndarray, fill: float) -> np.ndarray:
        out = np.full(n_items, fill, dtype=np.float64)
        out[items] = values
        return out

    if n_all_equal:
        notes.append(f"{n_all_equal} 'all about equal' vote(s) counted, not fitted (they rank nothing)")
    return RankingBoard(
        n_items=n_items,
        anchor=anchor,
        anchor_rating=anchor_rating,
        level=level,
        rating=spread(to_elo(fit.theta, a, anchor_rating), np.nan),
        lower=spread(low, np.nan),
        upper=spread(high, np.nan),
        n_rankings=n_rankings,
        rank=spread(ranks_from_above(above), 0).astype(np.int64),
        provisional=n_rankings < min_votes,
        theta=spread(fit.theta, np.nan),
        on_board=items,
        covariance=cov,
        fit=fit,
        n_fitted=len(kept_rankings),
        n_all_equal=int(n_all_equal),
        n_clusters=data.n_clusters if clustered else 0,
        critical=float(critical),
        excluded=tuple(sorted(excluded)),
        notes=tuple(notes),
    )


def _existence(
    rankings: list[list[int]],
    clusters: list[int],
    present: np.ndarray,
    anchor: int,
    unbounded: str,
    excluded: list[tuple[int, str]],
) -> tuple[np.ndarray, list[list[int]], list[int]]:
    """Items on the board and the rankings restricted to them, after the pairwise board's existence rules."""
    local = {int(k): p for p, k in enumerate(present)}
    data = RankingData.build([[local[x] for x in r] for r in rankings], len(present), clusters)
    counts = implied_pair_counts(data, present)
    parts = comparison_components(counts.n_models, counts.pairs, counts.weight.sum(axis=1))
    if len(parts) > 1:
        raise DisconnectedComparisonsError([[counts.models[k] for k in p] for p in parts])
    if anchor not in local:
        raise AnchorNotOnBoardError(_name(anchor), counts.models)
    by_size = unbounded_models(counts)
    if not by_size:
        return present, rankings, clusters
    if unbounded == "raise" or len(by_size) >= counts.n_models - 1:
        raise UnboundedRatingError(by_size)
    reasons = unbounded_models(counts, keep_model=local[anchor])
    if len(reasons) >= counts.n_models - 1:
        raise AnchorNotOnBoardError(
            _name(anchor), counts.models, why=f"excluded: it {by_size[_name(anchor)]}"
        )
    out = {k for k in present.tolist() if _name(k) not in reasons}
    for k in present.tolist():
        if k not in out:
            excluded.append((k, f"{reasons[_name(k)]}; its rating is unbounded"))
    kept, kept_clusters = _restrict(rankings, clusters, out)
    return np.array(sorted(out), dtype=np.int64), kept, kept_clusters
