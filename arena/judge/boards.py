"""The judge's own leaderboard, fitted from judge verdicts alone with the ratings package, and its rank
correlation with the human board. Intervals: the judged matchups are resampled with replacement and the judge
board refitted (the ratings package's batched bootstrap); the human board's uncertainty enters as normal draws
matching its published 95% interval. The same replicates decide which pairs of models each board orders
with confidence, and the correlation's interval covers every ordering of the others (see `rank_correlation`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ratings import Board, RatingsError, Votes, bootstrap_board, compute_board, fit_bradley_terry
from ratings.aggregate import aggregate_votes, board_rows
from ratings.pairs import pair_counts
from ratings.rank_correlation import RankCorrelation, rank_correlation
from ratings.votes import factorize

__all__ = ["HumanBoard", "JudgeBoardResult", "fit_judge_board"]

WINNERS = np.array(["model_a", "model_b", "tie"], dtype=object)


@dataclass(frozen=True)
class HumanBoard:
    """The human ratings compared with: rating and 95% interval per model, and where they came from."""

    ratings: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]
    source: str


@dataclass(frozen=True)
class JudgeBoardResult:
    """The judge board (or why it could not be fitted) and its correlation with the human board."""

    board: Board | None
    error: str | None
    correlation: RankCorrelation | None
    skipped_replicates: int


def _replicates(
    a: np.ndarray, b: np.ndarray, outcome: np.ndarray, models: list[str], n: int, rng: np.random.Generator
) -> np.ndarray:
    """(n, len(models)) bootstrap log-strengths of the judge board (verdicts resampled with replacement),
    from the ratings package's batched bootstrap; +-inf where a replicate has no finite rating."""
    names, (ia, ib) = factorize(a, b)
    rows = board_rows(aggregate_votes(ia, ib, outcome.astype(np.int8), models=names))
    fit = fit_bradley_terry(pair_counts(rows))
    boot = bootstrap_board(rows, fit.theta - fit.theta.mean(), n_rounds=n, rng=rng, workers=1)
    index = {m: k for k, m in enumerate(names)}
    return boot.theta[:, [index[m] for m in models]]


def fit_judge_board(
    model_a: np.ndarray,
    model_b: np.ndarray,
    outcome: np.ndarray,
    human: HumanBoard | None,
    *,
    anchor: str | None = None,
    n_bootstrap: int = 200,
    seed: int = 0,
) -> JudgeBoardResult:
    """Fit the judge board from scored verdicts (outcome codes for A) and correlate it with `human`."""
    model_a, model_b = np.asarray(model_a, dtype=object), np.asarray(model_b, dtype=object)
    outcome = np.asarray(outcome, dtype=np.int64)
    models = sorted(set(model_a.tolist()) | set(model_b.tolist()))
    if not models:
        return JudgeBoardResult(None, "no scored judge verdicts", None, 0)
    anchor = anchor if anchor in models else models[0]
    try:
        board = compute_board(
            Votes.from_columns(model_a, model_b, WINNERS[outcome]),
            anchor=anchor,
            interval="bootstrap",
            n_bootstrap=n_bootstrap,
            seed=seed,
            min_votes=0,
        )
    except RatingsError as exc:
        return JudgeBoardResult(None, str(exc), None, 0)
    if human is None:
        return JudgeBoardResult(board, None, None, 0)
    common = [r.model for r in board.rows if r.model in human.ratings]
    if len(common) < 3:
        return JudgeBoardResult(board, "fewer than 3 models are on both boards: no correlation", None, 0)
    judge_point = np.array([board.row(m).rating for m in common])
    human_point = np.array([human.ratings[m] for m in common])
    sd = np.array([max(human.high[m] - human.low[m], 0.0) / (2 * 1.959964) for m in common])
    rng = np.random.default_rng(seed)
    judge_boot = _replicates(model_a, model_b, outcome, common, n_bootstrap, rng)
    human_boot = human_point + rng.normal(0.0, 1.0, judge_boot.shape) * sd
    skipped = int(
        (~np.isfinite(judge_boot)).any(axis=1).sum()
    )  # replicates where a model had no finite rating
    corr = rank_correlation(judge_point, human_point, judge_boot, human_boot)
    return JudgeBoardResult(board, None, corr, skipped)
