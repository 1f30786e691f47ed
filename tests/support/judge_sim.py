"""Simulated calibration with known truth: human voters and judges of known accuracy and bias, for the bench
and the tests. Population values (agreement, kappa, position-bias rate, rank correlations) are computed
exactly from the model's probabilities, so each estimate of the report can be checked against its interval.

Humans: one kept vote per matchup, Bradley-Terry on the true strengths, ties with a fixed probability.
A judge answers each order independently: P(left) = (1 - tie) * sigmoid(s_left - s_right + position_bias),
with its own strengths s = scale * true strength + style bonus (a model family it over-rates).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import expit

from arena.judge.boards import HumanBoard, fit_judge_board
from ratings import Votes, compute_board, count_pairs, fit_bradley_terry
from ratings.agreement import Agreement, measure_agreement
from ratings.proportions import wilson_interval
from ratings.rank_correlation import RankCorrelation

__all__ = ["SimJudge", "Truth", "known_values", "make_truth", "simulate_once"]

A, B, T = 0, 1, 2


@dataclass(frozen=True)
class SimJudge:
    """A simulated judge: how sharply it follows the true strengths, which models it over-rates, its position
    bias in nats (``inf``: always the left image), and its tie probability."""

    name: str
    scale: float = 1.0
    style_bonus: float = 0.0
    styled: tuple[int, ...] = ()
    position_bias: float = 0.0
    tie: float = 0.1


@dataclass(frozen=True)
class Truth:
    """True human strengths (nats) of the models and the human tie probability."""

    strengths: np.ndarray
    human_tie: float = 0.1

    @property
    def models(self) -> list[str]:
        """Model names m00, m01, ..."""
        return [f"m{k:02d}" for k in range(len(self.strengths))]


def make_truth(n_models: int = 12, spread_elo: float = 400.0) -> Truth:
    """Evenly spaced strengths spanning `spread_elo` Elo points."""
    return Truth(np.linspace(-0.5, 0.5, n_models) * spread_elo / (400 / np.log(10)))


def _judge_strengths(judge: SimJudge, truth: Truth) -> np.ndarray:
    s = judge.scale * truth.strengths.copy()
    s[list(judge.styled)] += judge.style_bonus
    return s


def _left_prob(judge: SimJudge, d: np.ndarray) -> np.ndarray:
    """P(left) for strength differences d = s_left - s_right (before ties)."""
    if np.isinf(judge.position_bias):
        return np.ones_like(d)
    return expit(d + judge.position_bias)


def _judge_probs(
    judge: SimJudge, truth: Truth, ia: np.ndarray, ib: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(P of combined outcome A/B/tie per pair, P of a position flip per pair) under the both-orders rule."""
    s = _judge_strengths(judge, truth)
    tie = 0.0 if np.isinf(judge.position_bias) else judge.tie
    first_left = (1 - tie) * _left_prob(judge, s[ia] - s[ib])  # A on the left: left means A
    first_right = (1 - tie) - first_left
    second_left = (1 - tie) * _left_prob(judge, s[ib] - s[ia])  # B on the left: left means B
    second_right = (1 - tie) - second_left
    p_a = first_left * second_right
    p_b = first_right * second_left
    probs = np.stack([p_a, p_b, 1 - p_a - p_b], axis=1)
    return probs, first_left * second_left + first_right * second_right


def _human_probs(truth: Truth, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    p = expit(truth.strengths[ia] - truth.strengths[ib])
    t = truth.human_tie
    return np.stack([(1 - t) * p, (1 - t) * (1 - p), np.full_like(p, t)], axis=1)


def _all_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (i, j), i != j: which model is "A" is arbitrary, as in the arena (name order)."""
    ia, ib = np.nonzero(~np.eye(n, dtype=bool))
    return ia, ib


def _population_theta(probs: np.ndarray, ia: np.ndarray, ib: np.ndarray, models: list[str]) -> np.ndarray:
    """The Bradley-Terry fit of infinitely many verdicts: expected counts per pair as weights."""
    a = np.repeat(np.array(models, dtype=object)[ia], 3)
    b = np.repeat(np.array(models, dtype=object)[ib], 3)
    outcome = np.tile(np.array(["model_a", "model_b", "tie"], dtype=object), len(ia))
    weight = probs.ravel() * 1000 + 1e-12
    counts = count_pairs(a, b, outcome, weight)
    theta = fit_bradley_terry(counts).theta
    index = {m: k for k, m in enumerate(counts.models)}
    return np.array([theta[index[m]] for m in models])


def known_values(judge: SimJudge, truth: Truth) -> dict[str, float]:
    """Population agreement, kappa, position-bias rate and rank correlations for matchups drawn uniformly
    over model pairs."""
    ia, ib = _all_pairs(len(truth.strengths))
    pj, flip = _judge_probs(judge, truth, ia, ib)
    ph = _human_probs(truth, ia, ib)
    table = np.einsum("pi,pj->ij", pj, ph) / len(ia)  # judge rows, human columns
    agree = float(np.trace(table))
    chance = float((table.sum(axis=1) * table.sum(axis=0)).sum())
    theta_j = _population_theta(pj, ia, ib, truth.models)
    theta_h = _population_theta(ph, ia, ib, truth.models)
    kappa = (agree - chance) / (1 - chance) if chance < 1 else float("nan")
    decisive = table[:2, :2]
    return {
        "agreement": agree,
        "decisive": float(np.trace(decisive) / decisive.sum()) if decisive.sum() > 0 else float("nan"),
        # every ordered pair is drawn, so the population table is A/B-symmetric: both kappas have this value
        "cohen_kappa": kappa,
        "sym_kappa": kappa,
        "position_bias": float(flip.mean()),
        "kendall": float(stats.kendalltau(theta_j, theta_h).statistic),
        "spearman": float(stats.spearmanr(theta_j, theta_h).statistic),
    }


@dataclass(frozen=True)
class SimEstimate:
    """What the report would say for one simulated run."""

    agreement: Agreement
    position_bias: tuple[float, float, float]
    correlation: RankCorrelation | None


def human_board_from_votes(truth: Truth, n_votes: int, rng: np.random.Generator) -> HumanBoard:
    """A human board fitted (sandwich 95% intervals) from `n_votes` simulated kept votes on uniform pairs."""
    n = len(truth.strengths)
    ia, ib = _all_pairs(n)
    pick = rng.integers(0, len(ia), n_votes)
    probs = _human_probs(truth, ia[pick], ib[pick])
    outcome = (rng.random(n_votes)[:, None] > probs.cumsum(axis=1)).sum(axis=1)
    names = np.array(truth.models, dtype=object)
    winners = np.array(["model_a", "model_b", "tie"], dtype=object)[outcome]
    board = compute_board(
        Votes.from_columns(names[ia[pick]], names[ib[pick]], winners),
        anchor=truth.models[0],
        interval="sandwich",
    )
    return HumanBoard(
        board.ratings(),
        {r.model: r.ci_low for r in board.rows},
        {r.model: r.ci_high for r in board.rows},
        "simulated",
    )


def simulate_once(
    judge: SimJudge, truth: Truth, *, matchups: int, human_votes: int, seed: int, n_bootstrap: int = 200
) -> SimEstimate:
    """One simulated calibration run: sample matchups, one human vote each, judge both orders, estimate."""
    rng = np.random.default_rng(seed)
    n = len(truth.strengths)
    ia_all, ib_all = _all_pairs(n)
    pick = rng.integers(0, len(ia_all), matchups)
    ia, ib = ia_all[pick], ib_all[pick]
    ph = _human_probs(truth, ia, ib)
    human = (rng.random(matchups)[:, None] > ph.cumsum(axis=1)).sum(axis=1)
    pj, _ = _judge_probs(judge, truth, ia, ib)
    # Draw both orders separately to count flips, as the report does from the two answers.
    s = _judge_strengths(judge, truth)
    tie = 0.0 if np.isinf(judge.position_bias) else judge.tie
    u1, u2 = rng.random(matchups), rng.random(matchups)
    pl1 = (1 - tie) * _left_prob(judge, s[ia] - s[ib])
    pl2 = (1 - tie) * _left_prob(judge, s[ib] - s[ia])
    first = np.where(u1 < pl1, A, np.where(u1 < 1 - tie, B, T))  # in A's terms
    second = np.where(u2 < pl2, B, np.where(u2 < 1 - tie, A, T))
    outcome = np.where(first == second, first, T)
    flips = (first != second) & (first != T) & (second != T)
    agreement = measure_agreement(outcome, human, rng=rng, n_bootstrap=1000)
    k = int(flips.sum())
    low, high = wilson_interval(k, matchups)
    names = np.array(truth.models, dtype=object)
    hb = human_board_from_votes(truth, human_votes, rng)
    jb = fit_judge_board(names[ia], names[ib], outcome, hb, n_bootstrap=n_bootstrap, seed=seed)
    assert pj.shape[0] == matchups
    return SimEstimate(agreement, (k / matchups, low, high), jb.correlation)
