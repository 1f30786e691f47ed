"""Prompt retirement statistics: does a prompt still tell the models apart?

The methodology flags a prompt whose favourite win rate (the favourite: the model placed higher on the current
overall board) is statistically indistinguishable from chance. A raw win rate cannot test that on an arena
whose matchmaking serves close pairs: between two models 10 Elo apart even the board's own favourite wins only
51%, so a prompt that discriminates exactly like the board looks like a coin flip. The rule therefore measures
discrimination on the board's own scale, with the served gaps taken into account (`prompts_taxonomy.slope`):

    logit P(i beats j) = beta * (theta_i - theta_j)      theta: board strengths in nats, ties dropped

beta = 1 discriminates like the board, beta = 0 is chance. A prompt is flagged when the one-sided
profile-likelihood upper bound of beta at ``confidence`` is below ``beta_max``: the votes show, at that
confidence, that the prompt discriminates less than ``beta_max`` times as well as the board. A prompt whose
bound is above it is *not enough evidence* (or, when the lower bound is above 0, shown to discriminate) and is
judged again next month; a prompt with fewer than ``min_decisive`` decisive votes is not judged. Because the
flag needs positive evidence of weak discrimination, a prompt with beta >= beta_max is flagged at most about
``1 - confidence`` of the time whatever the served pairs (more only through board error), while the chance of
catching a coin flip grows with the information its votes carry, sum of gap**2 / 4: few votes or close pairs
can not catch it, and the report says so instead of retiring.

Defaults (``ARENA_RETIREMENT_CONFIDENCE`` = 0.95, ``ARENA_RETIREMENT_BETA_MAX`` = 0.5,
``ARENA_RETIREMENT_MIN_DECISIVE_VOTES`` = 20) and their error rates under the arena's matchmaking:
``bench/bench_retirement.py`` (docs/methodology.md, Prompt retirement).

The favourite tally (`tally_favorites`) stays in the report as a description, and the old rule, an exact
binomial test of the favourite win rate against 0.5 (`judge_binomial`), is kept for the bench's comparison and
to read reports stored before the change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from prompts_taxonomy.slope import SlopeFit, fit_slope

DEFAULT_CONFIDENCE = 0.95
DEFAULT_BETA_MAX = 0.5
DEFAULT_MIN_DECISIVE = 20
BINOMIAL_ALPHA = 0.10  # the old rule's defaults (ARENA_RETIREMENT_ALPHA, min 100 decisive votes)
BINOMIAL_MIN_DECISIVE = 100
DECISIVE = ("model_a", "model_b")
TIES = ("tie", "tie (bothbad)")

__all__ = [
    "BINOMIAL_ALPHA",
    "BINOMIAL_MIN_DECISIVE",
    "DEFAULT_BETA_MAX",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MIN_DECISIVE",
    "BinomialVerdict",
    "Discrimination",
    "FavoriteTally",
    "binomial_p_value",
    "board_gaps",
    "board_positions",
    "clopper_pearson",
    "flag_probability",
    "judge_binomial",
    "judge_discrimination",
    "tally_favorites",
]


def binomial_p_value(k: int, n: int, p: float = 0.5) -> float:
    """Exact two-sided binomial p-value of ``k`` successes in ``n`` trials against success rate ``p``.

    Sums the probabilities of every outcome no more likely than the observed one (the "minlike" method of
    ``scipy.stats.binomtest``); 1.0 when ``n`` is 0.
    """
    from scipy import stats

    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    if p == 0.5:
        return float(_p_values_all_k(n)[k])
    return float(stats.binomtest(k, n, p, alternative="two-sided").pvalue)


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) central interval for a binomial rate; (0, 1) when ``n`` is 0."""
    from scipy import stats

    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    tail = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else float(stats.beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1.0 - tail, k + 1, n - k))
    return low, high


@lru_cache(maxsize=4096)
def _p_values_all_k(n: int) -> np.ndarray:
    """The two-sided p-value against 0.5 for every k in 0..n (twice the smaller tail, capped at 1: with a
    symmetric null this equals scipy's "minlike" two-sided p-value). Cached per n; read-only."""
    from scipy import stats

    k = np.arange(n + 1)
    lower = stats.binom.cdf(k, n, 0.5)
    upper = stats.binom.sf(k - 1, n, 0.5)
    values = np.minimum(1.0, 2.0 * np.minimum(lower, upper))
    values.setflags(write=False)
    return values


def flag_probability(p_true: float, n: int, *, alpha: float = BINOMIAL_ALPHA) -> float:
    """Exact probability that the old binomial rule flags a prompt with ``n`` decisive votes whose favorite wins with
    probability ``p_true`` (for ``p_true`` = 0.5 this is one minus the missed-retirement rate)."""
    from scipy import stats

    if n <= 0:
        return 0.0
    keep_region = _p_values_all_k(n) >= alpha
    return float(stats.binom.pmf(np.arange(n + 1), n, p_true)[keep_region].sum())


def board_positions(ratings: Mapping[str, float]) -> dict[str, int]:
    """Position of each model on a board (0 = top): by rating, highest first, ties by slug.

    The board's ``rank`` column is interval-based and shares ranks between close models, so "ranked higher"
    is taken as the board's own order, by the rating point estimate.
    """
    ordered = sorted(ratings, key=lambda m: (-float(ratings[m]), m))
    return {model: i for i, model in enumerate(ordered)}


@dataclass(frozen=True)
class FavoriteTally:
    """Vote counts of one prompt from the favorite's side."""

    favorite_wins: int = 0
    favorite_losses: int = 0
    ties: int = 0
    both_bad: int = 0
    unranked: int = 0  # votes where a model is not on the board: no favorite, left out

    @property
    def decisive(self) -> int:
        """Votes with a winner."""
        return self.favorite_wins + self.favorite_losses


def tally_favorites(
    votes: Iterable[tuple[str, str, str, int]], positions: Mapping[str, int]
) -> FavoriteTally:
    """Count votes, given as (model_a, model_b, winner, count) rows, by whether the favorite (the model with
    the lower board position) won; ties are counted apart, votes with a model off the board as unranked."""
    wins = losses = ties = both_bad = unranked = 0
    for model_a, model_b, winner, count in votes:
        if model_a not in positions or model_b not in positions or model_a == model_b:
            unranked += count
        elif winner == "tie":
            ties += count
        elif winner == "tie (bothbad)":
            both_bad += count
        elif winner in DECISIVE:
            favorite = model_a if positions[model_a] < positions[model_b] else model_b
            won = model_a if winner == "model_a" else model_b
            if won == favorite:
                wins += count
            else:
                losses += count
        else:
            raise ValueError(f"unknown winner {winner!r}")
    return FavoriteTally(wins, losses, ties, both_bad, unranked)


@dataclass(frozen=True)
class BinomialVerdict:
    """The old rule's verdict on one prompt (the shape of schema-1 report rows)."""

    favorite_wins: int
    decisive: int
    ties: int
    both_bad: int
    win_rate: float | None
    ci_low: float
    ci_high: float
    p_value: float
    evaluated: bool  # enough decisive votes for the rule to apply
    flagged: bool
    reason: str


def judge_binomial(
    tally: FavoriteTally, *, alpha: float = BINOMIAL_ALPHA, min_decisive: int = BINOMIAL_MIN_DECISIVE
) -> BinomialVerdict:
    """The old rule: flagged when the exact two-sided binomial test of the favourite wins against 0.5 fails
    to reject at `alpha` (with at least `min_decisive` decisive votes). It reads "failed to show discrimination"
    as "does not discriminate", so under close-pair matchmaking it retires good prompts (bench_retirement)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be in (0, 1)")
    k, n = tally.favorite_wins, tally.decisive
    p_value = binomial_p_value(k, n)
    low, high = clopper_pearson(k, n, 1.0 - alpha)
    rate = k / n if n else None
    evaluated = n >= max(1, min_decisive)
    flagged = evaluated and p_value >= alpha
    if not evaluated:
        reason = f"too few decisive votes ({n} < {min_decisive}): not judged"
    elif flagged:
        reason = (
            f"favorite win rate {k}/{n} = {k / n:.2f} [{low:.2f}, {high:.2f}] is indistinguishable from "
            f"chance (p = {p_value:.3f} >= {alpha:g})"
        )
    elif k / n < 0.5:
        reason = (
            f"favorite loses more often than chance (p = {p_value:.3g}): discriminates, against the board"
        )
    else:
        reason = f"favorite wins {k / n:.2f} (p = {p_value:.3g} < {alpha:g}): discriminates"
    return BinomialVerdict(
        favorite_wins=k,
        decisive=n,
        ties=tally.ties,
        both_bad=tally.both_bad,
        win_rate=rate,
        ci_low=low,
        ci_high=high,
        p_value=p_value,
        evaluated=evaluated,
        flagged=flagged,
        reason=reason,
    )


def board_gaps(
    votes: Iterable[tuple[str, str, str, int]], theta: Mapping[str, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The decisive votes (model_a, model_b, winner, count) between two models on the board as arrays for
    `fit_slope`: (theta_a - theta_b in nats, model_a won, count). Ties and votes off the board are left out."""
    gap, won, weight = [], [], []
    for model_a, model_b, winner, count in votes:
        if winner in DECISIVE and model_a in theta and model_b in theta and model_a != model_b:
            gap.append(float(theta[model_a]) - float(theta[model_b]))
            won.append(winner == "model_a")
            weight.append(float(count))
    return np.array(gap, dtype=float), np.array(won, dtype=bool), np.array(weight, dtype=float)


@dataclass(frozen=True)
class Discrimination:
    """The rule's verdict on one prompt, with everything an operator needs to check it: the slope estimate and
    its one-sided bounds (inf when unbounded), the mean served gap (Elo) that explains how much the votes could
    show, and the favourite tally as a description."""

    favorite_wins: int
    decisive: int
    ties: int
    both_bad: int
    win_rate: float | None
    mean_gap: float | None  # mean |rating gap| of the decisive votes' pairs, Elo
    beta: float | None
    beta_lower: float
    beta_upper: float
    confidence: float
    beta_max: float
    evaluated: bool  # enough decisive votes for the rule to apply
    flagged: bool
    verdict: str  # "retire", "discriminates", "not enough evidence" or "not judged"
    reason: str


def judge_discrimination(
    votes: Iterable[tuple[str, str, str, int]],
    theta: Mapping[str, float],
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    beta_max: float = DEFAULT_BETA_MAX,
    min_decisive: int = DEFAULT_MIN_DECISIVE,
    elo_per_nat: float = 400.0 / np.log(10.0),
) -> Discrimination:
    """Apply the rule (module docstring) to one prompt's votes, given as (model_a, model_b, winner, count)
    rows, against board strengths `theta` in nats."""
    if not 0.5 < confidence < 1.0:
        raise ValueError("confidence must be in (0.5, 1)")
    rows = list(votes)
    tally = tally_favorites(rows, board_positions(theta))
    gap, won, weight = board_gaps(rows, theta)
    n = tally.decisive
    fit: SlopeFit = fit_slope(gap, won, weight, confidence=confidence)
    mean_gap = float(np.sum(weight * np.abs(gap)) / weight.sum() * elo_per_nat) if weight.sum() else None
    evaluated = n >= max(1, min_decisive)
    flagged = evaluated and fit.upper < beta_max
    level = f"{confidence:.0%}"
    bounds = f"beta {fit.beta:.2f}, {level} bounds [{fit.lower:.2f}, {fit.upper:.2f}]"
    if not evaluated:
        verdict, reason = "not judged", f"too few decisive votes ({n} < {min_decisive}): not judged"
    elif flagged:
        verdict = "retire"
        against = " (the favourite loses: it reverses the board)" if fit.upper < 0 else ""
        reason = f"{bounds}: upper bound below {beta_max:g}, discriminates less than the board{against}"
    elif fit.lower > 0:
        verdict, reason = "discriminates", f"{bounds}: lower bound above 0, discriminates"
    else:
        verdict = "not enough evidence"
        reason = f"{bounds}: cannot tell (mean served gap {mean_gap or 0:.0f} Elo); kept and judged again next month"
    return Discrimination(
        favorite_wins=tally.favorite_wins,
        decisive=n,
        ties=tally.ties,
        both_bad=tally.both_bad,
        win_rate=tally.favorite_wins / n if n else None,
        mean_gap=mean_gap,
        beta=None if np.isnan(fit.beta) else fit.beta,
        beta_lower=fit.lower,
        beta_upper=fit.upper,
        confidence=confidence,
        beta_max=beta_max,
        evaluated=evaluated,
        flagged=flagged,
        verdict=verdict,
        reason=reason,
    )
