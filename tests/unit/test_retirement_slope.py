"""The slope rule of prompt retirement: the 1-D maximum likelihood and its profile bounds against known answers
and an independent optimizer, the bound's coverage on simulated prompts of known slope, and the verdicts
(including the regression the rule was made for: a board-like prompt served close pairs is not retired)."""

import math

import numpy as np
import pytest
from scipy import optimize, stats

from arena.prompts.retirement import discrimination_row
from arena.settings import Settings
from prompts_taxonomy.retirement import (
    DEFAULT_BETA_MAX,
    FavoriteTally,
    judge_binomial,
    judge_discrimination,
)
from prompts_taxonomy.slope import fit_slope
from ratings import ELO_PER_NAT


def _loglik(beta: float, gap: np.ndarray, won: np.ndarray, weight: np.ndarray) -> float:
    """The same likelihood written independently: log P = -log(1 + exp(-s beta gap)), s = +1 when won."""
    s = np.where(won, 1.0, -1.0)
    return float(-np.sum(weight * np.logaddexp(0.0, -s * beta * gap)))


def test_one_pair_has_the_closed_form_estimate_and_the_binomial_likelihood_ratio_bounds():
    # All votes on one pair with gap g: P(first wins) = sigmoid(beta g), so beta_hat = logit(k / n) / g and the
    # profile bounds are the binomial likelihood-ratio bounds on p, mapped through logit(p) / g.
    g, k, n, conf = 0.4, 70, 100, 0.9
    fit = fit_slope([g, g], [True, False], [k, n - k], confidence=conf)
    assert fit.beta == pytest.approx(math.log(k / (n - k)) / g, rel=1e-9)
    cut = 0.5 * stats.norm.ppf(conf) ** 2

    def drop(p: float) -> float:
        top = k * math.log(k / n) + (n - k) * math.log(1 - k / n)
        return top - (k * math.log(p) + (n - k) * math.log(1 - p)) - cut

    p_low, p_high = optimize.brentq(drop, 1e-9, k / n), optimize.brentq(drop, k / n, 1 - 1e-9)
    assert fit.lower == pytest.approx(math.log(p_low / (1 - p_low)) / g, rel=1e-7)
    assert fit.upper == pytest.approx(math.log(p_high / (1 - p_high)) / g, rel=1e-7)
    assert fit.votes == 100 and fit.information == pytest.approx(n * g * g * 0.7 * 0.3, rel=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_the_estimate_matches_an_independent_optimizer_on_random_votes(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 300))
    gap = rng.normal(0, rng.uniform(0.05, 1.5), n)
    beta = rng.normal(0.8, 0.6)
    won = rng.random(n) < 1 / (1 + np.exp(-beta * gap))
    weight = rng.integers(1, 4, n).astype(float)
    fit = fit_slope(gap, won, weight)
    best = optimize.minimize_scalar(
        lambda b: -_loglik(b, gap, won, weight), bounds=(-50, 50), method="bounded", options={"xatol": 1e-10}
    )
    assert fit.beta == pytest.approx(best.x, abs=1e-6)
    top = _loglik(fit.beta, gap, won, weight)
    for bound in (fit.lower, fit.upper):  # both bounds sit where the likelihood drop is z**2 / 2
        assert top - _loglik(bound, gap, won, weight) == pytest.approx(
            0.5 * stats.norm.ppf(0.95) ** 2, abs=1e-6
        )


def test_separated_votes_have_an_infinite_estimate_and_upper_bound_but_a_finite_lower_one():
    fit = fit_slope([0.3, -0.2, 0.5], [True, False, True], [10, 5, 8])
    assert fit.beta == math.inf and fit.upper == math.inf and 0 < fit.lower < math.inf
    empty = fit_slope([], [])
    assert math.isnan(empty.beta) and (empty.lower, empty.upper) == (-math.inf, math.inf)
    row = discrimination_row(judge_discrimination([("a", "b", "model_a", 30)], {"a": 0.3, "b": 0.0}))
    assert row["beta"] is None and row["beta_upper"] is None and row["beta_lower"] > 0  # JSON-safe


def test_the_upper_bound_falls_below_the_true_slope_about_one_minus_confidence_of_the_time():
    rng = np.random.default_rng(7)
    misses, reps = 0, 1500
    for _ in range(reps):
        gap = rng.normal(0, 0.4, 150)
        won = rng.random(150) < 1 / (1 + np.exp(-0.5 * gap))
        misses += fit_slope(gap, won, confidence=0.9).upper < 0.5
    se = math.sqrt(0.1 * 0.9 / reps)
    assert abs(misses / reps - 0.10) < 4 * se


def _close_pairs_month(beta: float, gap_elo: float, votes: int, rng: np.random.Generator):
    """Decisive votes of one prompt on pairs `gap_elo` apart on the board, the favourite winning with
    sigmoid(beta * gap): as (model_a, model_b, winner, count) rows and board strengths in nats."""
    theta = {f"m{i}": i * gap_elo / ELO_PER_NAT for i in range(6)}
    rows = []
    for _ in range(votes):
        i = int(rng.integers(5))
        top, low = f"m{i + 1}", f"m{i}"
        fav_wins = rng.random() < 1 / (1 + math.exp(-beta * gap_elo / ELO_PER_NAT))
        rows.append((top, low, "model_a" if fav_wins else "model_b", 1))
    return rows, theta


def test_regression_a_board_like_prompt_served_close_pairs_is_not_retired_but_the_binomial_rule_retires_it():
    rng = np.random.default_rng(3)
    old = new = 0
    for _ in range(200):
        rows, theta = _close_pairs_month(1.0, 15.0, 200, rng)  # favourite wins ~52%
        verdict = judge_discrimination(rows, theta)
        tally = FavoriteTally(verdict.favorite_wins, verdict.decisive - verdict.favorite_wins)
        old += judge_binomial(tally).flagged
        new += verdict.flagged
        assert verdict.verdict in {"not enough evidence", "discriminates", "retire"}
    assert old / 200 > 0.7  # the old rule reads "too close to show it" as "does not discriminate"
    assert new / 200 < 0.05


def test_a_coin_flip_on_well_separated_pairs_is_retired_and_a_board_like_one_discriminates():
    rng = np.random.default_rng(4)
    rows, theta = _close_pairs_month(0.0, 200.0, 150, rng)
    flip = judge_discrimination(rows, theta)
    assert flip.evaluated and flip.flagged and flip.verdict == "retire" and flip.beta_upper < DEFAULT_BETA_MAX
    assert flip.mean_gap == pytest.approx(200.0) and "upper bound below 0.5" in flip.reason
    rows, theta = _close_pairs_month(1.0, 200.0, 150, rng)
    good = judge_discrimination(rows, theta)
    assert not good.flagged and good.verdict == "discriminates" and good.beta_lower > 0


def test_too_few_decisive_votes_are_not_judged_and_ties_do_not_count():
    rows = [("a", "b", "model_b", 12), ("a", "b", "tie", 40), ("a", "b", "tie (bothbad)", 9)]
    verdict = judge_discrimination(rows, {"a": 2.0, "b": 0.0}, min_decisive=20)
    assert not verdict.evaluated and not verdict.flagged and verdict.verdict == "not judged"
    assert (verdict.decisive, verdict.ties, verdict.both_bad) == (12, 40, 9)
    assert "too few decisive votes (12 < 20)" in verdict.reason


def test_the_removed_binomial_setting_is_refused_and_the_new_ones_have_the_documented_defaults(monkeypatch):
    monkeypatch.setenv("ARENA_RETIREMENT_ALPHA", "0.1")
    with pytest.raises(ValueError, match="ARENA_RETIREMENT_CONFIDENCE"):
        Settings()
    monkeypatch.delenv("ARENA_RETIREMENT_ALPHA")
    s = Settings()
    assert (s.retirement_confidence, s.retirement_beta_max, s.retirement_min_decisive_votes) == (
        0.95,
        0.5,
        20,
    )
