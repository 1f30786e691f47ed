"""Leaderboards: from votes to ranked rows with ratings, intervals and vote counts.

:func:`compute_board` computes one board; :func:`compute_all_boards` computes every board of a
modality (overall, one per use case, one per capability), counting the votes once for all of
them. Both follow the same steps:

1. cohort filter (:mod:`ratings.cohorts`), then count votes into rows (:mod:`ratings.aggregate`), and
2. select the board's rows (both in :mod:`ratings.counting`); the overall board balances taxonomy cells
   (:mod:`ratings.weighting`);
3. check that finite ratings exist (:mod:`ratings.graph`). Models whose rating is unbounded (no
   loss or no win against the rest) are, by default, excluded with a reason and the board is
   fitted without them; ``unbounded="raise"`` makes that an error instead. A disconnected
   comparison graph, no votes, a single model or a missing anchor are always errors;
4. fit Bradley-Terry (:mod:`ratings.bt`), put it on the Elo-like scale (:mod:`ratings.scale`);
5. uncertainty by bootstrap (seeded per board: the same votes and seed give the same digits,
   whether the board is computed alone or with the others) or sandwich, on quantities the anchor
   cannot change (:mod:`ratings.intervals`): display intervals are the replicates shifted by one
   constant per board, and ranks come from simultaneous (max-T) intervals of pairwise differences of the
   settled models (enough votes, finite interval; the others rank after them, :mod:`ratings.settled`). The
   board keeps the standard error of every pairwise difference and the max-T critical value, so the interval
   of a model's gap to the anchor (or to any model) can be given later (:mod:`ratings.differences`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ratings.aggregate import BoardRows, VoteRows, board_rows, restrict_board
from ratings.bt import DEFAULT_MAX_ITER, DEFAULT_TOL, fit_bradley_terry
from ratings.certainty import Certainty, board_certainty
from ratings.cohorts import CohortRule
from ratings.counting import count_votes, select_board
from ratings.differences import difference_standard_errors, sandwich_difference_standard_errors
from ratings.errors import AnchorNotOnBoardError, NoVotesError, RatingsError, UnboundedRatingError
from ratings.graph import comparison_components, unbounded_models
from ratings.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_MIN_VOTES,
    board_sandwich_covariance,
    provisional_models,
    ranks_from_above,
    vote_level_covariance,
)
from ratings.leaderboard import Board, BoardRow, BoardSet, Exclusion, IntervalMethod
from ratings.pairs import pair_counts
from ratings.resample import TableCache
from ratings.scale import (
    DEFAULT_ANCHOR_RATING,
    DEFAULT_OVERALL_ANCHOR,
    DEFAULT_SLICE_ANCHOR,
    anchor_index,
    default_anchor,
    to_elo,
)
from ratings.settled import settled_models, settled_ranks, settled_relation
from ratings.uncertainty import board_uncertainty
from ratings.votes import Votes
from ratings.weighting import OVERALL, BoardKey

__all__ = [
    "board_rng",
    "compute_all_boards",
    "compute_board",
    "count_votes",
    "fit_selected_rows",
]  # count_votes: ratings.counting

UnboundedPolicy = Literal["exclude", "raise"]

#: Fewer prompts than this on a board say nothing about the spread between prompts (one prompt resampled is
#: always the same prompt): its intervals are vote-level, and a note says so.
MIN_CLUSTERS = 10


@dataclass(frozen=True)
class _Options:
    anchor_rating: float
    interval: IntervalMethod
    n_bootstrap: int
    seed: int
    level: float
    min_votes: int
    unbounded: UnboundedPolicy
    tol: float
    max_iter: int
    workers: int | None = None
    extras: bool = True  # the certainty figures and difference standard errors (see compute_board)

    def __post_init__(self) -> None:
        if self.interval not in ("bootstrap", "sandwich"):
            raise ValueError(f"interval must be 'bootstrap' or 'sandwich' (got {self.interval!r})")
        if self.interval == "bootstrap" and self.n_bootstrap < 1:
            raise ValueError(f"n_bootstrap must be at least 1 (got {self.n_bootstrap})")
        if not 0.0 < self.level < 1.0:
            raise ValueError(f"level must be between 0 and 1 (got {self.level})")
        if self.unbounded not in ("exclude", "raise"):
            raise ValueError(f"unbounded must be 'exclude' or 'raise' (got {self.unbounded!r})")


def board_rng(seed: int, key: BoardKey | str) -> np.random.Generator:
    """The bootstrap generator of one board: a function of the seed and the board's name only."""
    digest = hashlib.blake2b(str(key).encode(), digest_size=8).digest()
    words = tuple(int.from_bytes(digest[k : k + 4], "little") for k in (0, 4))
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=words))


def _exclude_unbounded(
    board: BoardRows, anchor: str, opts: _Options
) -> tuple[BoardRows, tuple[Exclusion, ...]]:
    """Leave out models whose rating is unbounded, keeping the anchor's strongly connected part.

    The part kept is the anchor's, never the largest one: when leaving out a model with only wins
    or only losses cuts the board in two, the models on the anchor's side stay and the others are
    listed with why. If the anchor is alone in its part (it won or lost everything), the board fails.
    """
    counts = pair_counts(board)
    if counts.n_models < 2:
        return board, ()
    parts = comparison_components(counts.n_models, counts.pairs, counts.weight.sum(axis=1))
    if len(parts) > 1:
        return board, ()  # the fit names the disconnected parts
    by_size = unbounded_models(counts)
    if not by_size:
        return board, ()
    if opts.unbounded == "raise" or len(by_size) >= counts.n_models - 1:
        raise UnboundedRatingError(by_size)
    a = anchor_index(counts.models, anchor)
    reasons = unbounded_models(counts, keep_model=a)
    if len(reasons) >= counts.n_models - 1:  # the anchor is alone in its part
        raise AnchorNotOnBoardError(anchor, counts.models, why=f"excluded: it {by_size[anchor]}")
    keep = np.array([m not in reasons for m in counts.models])
    excluded = tuple(Exclusion(m, f"{r}; its rating is unbounded") for m, r in reasons.items())
    return restrict_board(board, keep), excluded


def _fit_board(
    board: BoardRows, key: BoardKey | str, anchor: str, opts: _Options, tables: TableCache | None = None
) -> Board:
    if board.n_votes == 0:
        raise NoVotesError(f"board '{key}'")
    board, excluded = _exclude_unbounded(board, anchor, opts)
    counts = pair_counts(board)
    if anchor not in counts.models and counts.n_models > 1:
        raise AnchorNotOnBoardError(anchor, counts.models)
    fit = fit_bradley_terry(counts, tol=opts.tol, max_iter=opts.max_iter)
    a = anchor_index(counts.models, anchor)
    ratings = to_elo(fit.theta, a, opts.anchor_rating)
    notes: list[str] = [] if fit.converged else [f"the fit {fit.message}"]
    if board.cluster is not None and board.n_clusters < MIN_CLUSTERS:
        notes.append(
            f"only {board.n_clusters} prompt(s) on this board, too few to resample: intervals are vote-level"
        )
        board = dataclasses.replace(board, cluster=None, n_clusters=0)
    unc = board_uncertainty(
        board,
        fit.theta,
        a,
        interval=opts.interval,
        level=opts.level,
        anchor_rating=opts.anchor_rating,
        n_bootstrap=opts.n_bootstrap,
        rng=board_rng(opts.seed, key),
        max_iter=opts.max_iter,
        workers=opts.workers,
        tables=tables,
    )
    low, high, above, critical = unc.low, unc.high, unc.above, unc.critical
    notes += unc.notes
    totals = counts.model_totals()
    provisional = provisional_models(totals["votes"], opts.min_votes)
    order = sorted(range(counts.n_models), key=lambda k: (-ratings[k], counts.models[k]))
    settled = settled_models(totals["votes"], low, high, opts.min_votes)
    if 2 <= settled.sum() < counts.n_models:  # ranks compare settled models only (ratings.settled)
        above, critical = settled_relation(
            settled, fit.theta, opts.level, replicates=unc.replicates, covariance=unc.covariance
        )
    ranks = settled_ranks(above, settled) if settled.any() else ranks_from_above(above)
    cov = unc.covariance
    if cov is None and opts.extras:
        cov = board_sandwich_covariance(fit.theta, board, counts)
    nothing = np.full(counts.n_models, np.nan)  # without the extras: no certainty figures (None in the rows)
    sure = Certainty(nothing, nothing, nothing, nothing, "none")
    if opts.extras:
        sure = board_certainty(
            counts,
            fit.theta,
            above,
            cov,
            level=opts.level,
            replicates=unc.replicates,
            # normal draws (sandwich boards) seeded by the seed alone: the figures follow the votes, not the name
            rng=np.random.default_rng(opts.seed),
            critical=critical,
            vote_covariance=None
            if board.cluster is None
            else vote_level_covariance(fit.theta, board, counts),
            among=settled if 2 <= settled.sum() < counts.n_models else None,
        )
    rows = tuple(
        BoardRow(
            model=counts.models[k],
            rating=float(ratings[k]),
            ci_low=float(low[k]),
            ci_high=float(high[k]),
            rank=int(ranks[k]),
            votes=int(totals["votes"][k]),
            wins=int(totals["wins"][k]),
            losses=int(totals["losses"][k]),
            ties=int(totals["ties"][k]),
            provisional=bool(provisional[k]),
            above=tuple(counts.models[m] for m in order if above[m, k]),
            p_best=None if np.isnan(sure.p_best[k]) else float(sure.p_best[k]),
            p_top3=None if np.isnan(sure.p_top[k]) else float(sure.p_top[k]),
            settled_below=None if np.isnan(sure.votes_to_settle[k]) else bool(sure.settled_below[k]),
            votes_to_settle=None if np.isnan(sure.votes_to_settle[k]) else float(sure.votes_to_settle[k]),
        )
        for k in order
    )
    return Board(
        key=key,
        anchor=anchor,
        anchor_rating=opts.anchor_rating,
        rows=rows,
        counts=counts,
        fit=fit,
        interval=opts.interval,
        level=opts.level,
        n_bootstrap=opts.n_bootstrap if opts.interval == "bootstrap" else 0,
        seed=opts.seed,
        min_votes=opts.min_votes,
        excluded=excluded,
        notes=tuple(notes),
        replicates=unc.replicates,
        n_clusters=board.n_clusters if board.cluster is not None else 0,
        difference_se=None
        if not opts.extras
        else difference_standard_errors(unc.replicates, fit.theta)
        if unc.replicates is not None
        else sandwich_difference_standard_errors(cov),
        critical=float(critical),
    )


def compute_board(
    votes: Votes | VoteRows,
    *,
    board: BoardKey | str = OVERALL,
    anchor: str | None = None,
    anchor_rating: float = DEFAULT_ANCHOR_RATING,
    cohorts: CohortRule | None = None,
    interval: IntervalMethod = "bootstrap",
    n_bootstrap: int = 1000,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    min_votes: int = DEFAULT_MIN_VOTES,
    unbounded: UnboundedPolicy = "exclude",
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    workers: int | None = None,
    extras: bool = True,
) -> Board:
    """Compute one leaderboard of one modality.

    Parameters
    ----------
    votes : Votes or VoteRows
        The modality's votes (see :meth:`Votes.from_columns`), or rows already counted by
        :func:`count_votes` (``cohorts`` is then ignored: the rows were filtered when counted).
    board : BoardKey or str
        ``"overall"``, ``"use_case=NAME"`` or ``"capability=NAME"``.
    anchor : str, optional
        Model that reads ``anchor_rating``; default ``flux-1-schnell`` on the overall board and
        ``flux-2-dev`` on slice boards.
    cohorts : CohortRule, optional
        Apply the cohort filter (none by default).
    interval : {"bootstrap", "sandwich"}
        Percentile bootstrap with ``n_bootstrap`` rounds (seeded by ``seed``) or sandwich.
    level : float
        Interval coverage.
    min_votes : int
        Models with fewer votes on the board are marked provisional.
    unbounded : {"exclude", "raise"}
        What to do with models whose rating is unbounded.
    tol, max_iter : float, int
        Convergence settings of :func:`ratings.bt.fit_bradley_terry`.
    workers : int, optional
        Bootstrap threads (default: the usable CPUs, at most 4). The digits do not depend on it.
    extras : bool
        Also compute what the web pages show beside ratings, intervals and ranks: the rows' ``p_best``, ``p_top3``
        and votes to settle (:mod:`ratings.certainty`), the board's ``difference_se``. ``False`` leaves them
        ``None`` (the rest is the same): `arena ratings fit`, which prints none of them, saves their time.

    Returns
    -------
    Board

    Raises
    ------
    RatingsError
        No votes, a single model, a disconnected comparison graph, unbounded ratings (when
        ``unbounded="raise"``), an anchor not on the board, or mixed modalities.
    """
    key = BoardKey.parse(board)
    opts = _Options(
        anchor_rating,
        interval,
        n_bootstrap,
        seed,
        level,
        min_votes,
        unbounded,
        tol,
        max_iter,
        workers,
        extras,
    )
    rows = votes if isinstance(votes, VoteRows) else count_votes(votes, cohorts)
    return _fit_board(select_board(rows, key), key, anchor or default_anchor(key), opts)


def fit_selected_rows(
    rows: VoteRows,
    mask: np.ndarray,
    *,
    name: str,
    anchor: str,
    anchor_rating: float = DEFAULT_ANCHOR_RATING,
    interval: IntervalMethod = "bootstrap",
    n_bootstrap: int = 1000,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    min_votes: int = DEFAULT_MIN_VOTES,
) -> Board:
    """Fit a board of any selection of counted rows (`mask` over `rows`), e.g. one use case x capability cell
    or the votes on prompts with some tags. Same steps as a slice board (no cell balancing); `name` seeds the
    bootstrap, as a board's key does. Raises RatingsError as `compute_board` does."""
    opts = _Options(
        anchor_rating, interval, n_bootstrap, seed, level, min_votes, "exclude", DEFAULT_TOL, DEFAULT_MAX_ITER
    )
    return _fit_board(board_rows(rows, np.asarray(mask, dtype=bool)), name, anchor, opts)


def compute_all_boards(
    votes: Votes | VoteRows,
    *,
    overall_anchor: str = DEFAULT_OVERALL_ANCHOR,
    slice_anchor: str = DEFAULT_SLICE_ANCHOR,
    anchor_rating: float = DEFAULT_ANCHOR_RATING,
    cohorts: CohortRule | None = None,
    interval: IntervalMethod = "bootstrap",
    n_bootstrap: int = 1000,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    min_votes: int = DEFAULT_MIN_VOTES,
    unbounded: UnboundedPolicy = "exclude",
    strict: bool = False,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BoardSet:
    """Compute the overall board and one board per use case and per capability of a modality.

    Votes are cohort-filtered and counted once; each board then works on its own rows. A board
    that cannot be fitted (too few votes in a new slice, say) is reported in
    ``BoardSet.failures`` instead of stopping the others, unless ``strict`` is true. Other
    parameters are those of :func:`compute_board`; each board's result is identical to what
    :func:`compute_board` returns for it with the same arguments. ``votes`` may also be rows already
    counted by :func:`count_votes` (``cohorts`` is then ignored: the rows were filtered when counted).
    ``progress(done, total)`` is called after each board.
    """
    opts = _Options(
        anchor_rating, interval, n_bootstrap, seed, level, min_votes, unbounded, tol, max_iter, workers
    )
    rows = votes if isinstance(votes, VoteRows) else count_votes(votes, cohorts)
    keys = [
        OVERALL,
        *(BoardKey("use_case", u) for u in rows.use_cases),
        *(BoardKey("capability", c) for c in rows.capabilities),
    ]
    boards: dict[str, Board] = {}
    failures: dict[str, RatingsError] = {}
    tables: TableCache = {}  # bootstrap inversion tables, shared by boards of similar size
    for done, key in enumerate(keys, start=1):
        anchor = default_anchor(key, overall_anchor=overall_anchor, slice_anchor=slice_anchor)
        try:
            boards[str(key)] = _fit_board(select_board(rows, key), key, anchor, opts, tables)
        except RatingsError as exc:
            if strict:
                raise
            failures[str(key)] = exc
        if progress is not None:
            progress(done, len(keys))
    return BoardSet(boards=boards, failures=failures)
