"""A month of retirement under the arena's own matchmaking, with prompts of known discrimination.

What it reproduces, and how:

- Pairs: the real matchmaker, `arena.voting.matchmaking.choose_pair`, with the vote plan refitted every `batch`
  votes from a Bradley-Terry fit of the votes so far (as the pool cache does after each snapshot), voters in
  sessions of 20 matchups under the variety rules and the model share cap at ARENA_MODEL_SHARE_FACTOR's
  default (the rules arm of bench/bench_matchmaking.py). The arena has `history` votes before the month and
  serves `month` more in it; only the month's served pairs are dealt to the simulated prompts.
- Prompts: the prompt sampler is independent of the pair choice (every prompt has every model's output), so a
  prompt's votes are a uniform draw of its `votes` matchups from the month's served stream. On a prompt of
  slope beta, model i beats j with probability sigmoid(beta * (theta_i - theta_j)) of the *true* strengths;
  10% of votes are ties (dropped by both rules).
- Board: strengths *estimated* by a Bradley-Terry fit of all votes (history and month, board-like voters),
  as the monthly job reads the latest overall snapshot; both rules read this board, not the truth.

`simulate` returns, per (beta, votes per prompt), the share of prompts each rule flags.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from arena.settings import Settings
from arena.voting.matchmaking import History, Standing, choose_pair, model_share_cap, pair_key
from prompts_taxonomy.retirement import (
    BINOMIAL_ALPHA,
    BINOMIAL_MIN_DECISIVE,
    DEFAULT_BETA_MAX,
    DEFAULT_CONFIDENCE,
    DEFAULT_MIN_DECISIVE,
    judge_binomial,
    judge_discrimination,
    tally_favorites,
)
from ratings import ELO_PER_NAT, count_pairs, fit_bradley_terry
from ratings.vote_plan import plan_votes

TIE_RATE = 0.10
SESSION = 20
SHARE_FACTOR = float(Settings.model_fields["model_share_factor"].default)

__all__ = ["Month", "Rule", "flagged", "serve_month", "simulate", "true_strengths"]


@dataclass(frozen=True)
class Rule:
    """One retirement rule's settings: "slope" (confidence, beta_max, min decisive) or "binomial" (alpha in
    `confidence`'s place as 1 - confidence, min decisive)."""

    kind: str
    confidence: float
    min_decisive: int
    beta_max: float = DEFAULT_BETA_MAX

    @classmethod
    def slope(
        cls,
        confidence: float = DEFAULT_CONFIDENCE,
        beta_max: float = DEFAULT_BETA_MAX,
        min_decisive: int = DEFAULT_MIN_DECISIVE,
    ) -> Rule:
        return cls("slope", confidence, min_decisive, beta_max)

    @classmethod
    def binomial(cls, alpha: float = BINOMIAL_ALPHA, min_decisive: int = BINOMIAL_MIN_DECISIVE) -> Rule:
        return cls("binomial", 1.0 - alpha, min_decisive)


@dataclass(frozen=True)
class Month:
    """The month's served pairs (model indices, first shown first), the true and the board's strengths (nats)."""

    first: np.ndarray
    second: np.ndarray
    truth: np.ndarray
    board: np.ndarray

    @property
    def models(self) -> list[str]:
        return [f"m{i:02d}" for i in range(len(self.truth))]

    def mean_gap(self) -> float:
        """Mean true |gap| (Elo) of the served pairs."""
        return float(np.mean(np.abs(self.truth[self.first] - self.truth[self.second])) * ELO_PER_NAT)


def true_strengths(n_models: int, spread: float, rng: np.random.Generator) -> np.ndarray:
    """True strengths in nats: Elo ratings 1000 + spread * N(0, 1), as bench_matchmaking's "spread"."""
    return spread * rng.standard_normal(n_models) / ELO_PER_NAT


def _standings(models: list[str], a: list[str], b: list[str], outcome: list[str]) -> dict[str, Standing]:
    """Ratings (Elo) and 95% half-widths from a Bradley-Terry fit, as the snapshot gives matchmaking."""
    counts = count_pairs(np.array(a), np.array(b), np.array(outcome))
    if len(counts.models) < len(models):
        return {}
    try:
        theta = fit_bradley_terry(counts).theta
    except Exception:  # disconnected or unbounded early on: "unknown", as before a first snapshot
        return {}
    i, j = counts.pairs[:, 0], counts.pairs[:, 1]
    p = expit(theta[i] - theta[j])
    w = counts.weight.sum(axis=1) * p * (1 - p)
    info = np.zeros((len(theta), len(theta)))
    np.add.at(info, (i, j), -w)
    np.add.at(info, (j, i), -w)
    np.add.at(info, (i, i), w)
    np.add.at(info, (j, j), w)
    se = np.sqrt(np.clip(np.diag(np.linalg.pinv(info)), 1e-18, None))
    index = {m: k for k, m in enumerate(counts.models)}
    return {
        m: Standing(float(theta[index[m]] * ELO_PER_NAT), float(1.96 * se[index[m]] * ELO_PER_NAT))
        for m in models
    }


def serve_month(
    truth: np.ndarray,
    rng: np.random.Generator,
    *,
    history: int = 10_000,
    month: int = 5_000,
    batch: int = 500,
) -> Month:
    """Run the matchmaker for `history` + `month` votes of board-like voters (see the module docstring)."""
    models = [f"m{i:02d}" for i in range(len(truth))]
    index = {m: k for k, m in enumerate(models)}
    n_pairs = len(models) * (len(models) - 1) // 2
    max_share = model_share_cap(len(models), SHARE_FACTOR)
    a: list[str] = []
    b: list[str] = []
    outcome: list[str] = []
    standings: dict[str, Standing] = {}
    plan: dict[tuple[str, str], float] = {}
    cast: dict[tuple[str, str], float] = {}
    served = History()
    while len(a) < history + month:
        for _ in range(batch):
            voter = f"s{len(a) // SESSION}"
            x, y = choose_pair(
                models,
                standings,
                rng,
                new_half_width=60.0,
                plan=plan,
                recent=served.recent(voter),
                n_pairs=n_pairs,
                max_share=max_share,
            )
            served.record(voter, x, y)
            if rng.random() < TIE_RATE:
                outcome.append("tie")
            else:
                won = rng.random() < expit(truth[index[x]] - truth[index[y]])
                outcome.append("model_a" if won else "model_b")
            a.append(x)
            b.append(y)
            cast[pair_key(x, y)] = cast.get(pair_key(x, y), 0.0) + 1.0
        standings = _standings(models, a, b, outcome)
        if standings:
            plan = plan_votes({m: s.rating for m, s in standings.items()}, cast, batch)
    board = (
        np.array([standings[m].rating / ELO_PER_NAT for m in models]) if standings else np.zeros(len(models))
    )
    first = np.array([index[m] for m in a[history:]])
    second = np.array([index[m] for m in b[history:]])
    return Month(first, second, np.asarray(truth, dtype=float), board)


def _prompt_votes(
    month: Month, beta: float, votes: int, rng: np.random.Generator
) -> list[tuple[str, str, str, int]]:
    """One prompt's month: `votes` matchups drawn from the served stream, outcomes on slope `beta`."""
    pick = rng.integers(len(month.first), size=votes)
    i, j = month.first[pick], month.second[pick]
    tie = rng.random(votes) < TIE_RATE
    won = rng.random(votes) < expit(beta * (month.truth[i] - month.truth[j]))
    code = np.where(tie, 2, np.where(won, 0, 1))
    keys, counts = np.unique(np.stack([i, j, code]), axis=1, return_counts=True)
    names = month.models
    winners = ("model_a", "model_b", "tie")
    return [
        (names[int(x)], names[int(y)], winners[int(c)], int(n))
        for (x, y, c), n in zip(keys.T, counts, strict=True)
    ]


def flagged(rule: Rule, votes: list[tuple[str, str, str, int]], board: dict[str, float]) -> tuple[bool, bool]:
    """(judged, flagged) for one prompt's votes under `rule`, against board strengths (nats)."""
    if rule.kind == "binomial":
        positions = {m: k for k, m in enumerate(sorted(board, key=lambda m: (-board[m], m)))}
        v = judge_binomial(
            tally_favorites(votes, positions), alpha=1.0 - rule.confidence, min_decisive=rule.min_decisive
        )
        return v.evaluated, v.flagged
    d = judge_discrimination(
        votes, board, confidence=rule.confidence, beta_max=rule.beta_max, min_decisive=rule.min_decisive
    )
    return d.evaluated, d.flagged


def simulate(
    month: Month,
    rules: Sequence[Rule],
    betas: Sequence[float],
    votes_per_prompt: Sequence[int],
    prompts: int,
    rng: np.random.Generator,
) -> dict[tuple[int, float, int], tuple[int, int]]:
    """Flag counts: (rule index, beta, votes) -> (prompts flagged, prompts simulated). The same simulated
    prompts are judged by every rule."""
    board = dict(zip(month.models, month.board.tolist(), strict=True))
    out: dict[tuple[int, float, int], tuple[int, int]] = {}
    for beta in betas:
        for n in votes_per_prompt:
            hits = np.zeros(len(rules), dtype=int)
            for _ in range(prompts):
                votes = _prompt_votes(month, beta, n, rng)
                for r, rule in enumerate(rules):
                    hits[r] += flagged(rule, votes, board)[1]
            for r in range(len(rules)):
                out[(r, beta, n)] = (int(hits[r]), prompts)
    return out
