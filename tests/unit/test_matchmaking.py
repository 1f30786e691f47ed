"""The matchmaking rule: the vote plan (checked against an independent misorder count), the per-pair fallback,
new models oversampled, the share cap, random sides."""

from collections import Counter, deque

import numpy as np
import pytest
from scipy.stats import chisquare, norm

from arena.voting.inflight import InFlight
from arena.voting.matchmaking import (
    NEW_MODEL_BOOST,
    PLAN_FLOOR,
    Recent,
    Standing,
    apply_rules,
    choose_pair,
    model_share_cap,
    pair_weight,
    window_shares,
)
from ratings.vote_plan import misorder_benefit, plan_votes


def test_close_pairs_outweigh_far_pairs_and_wide_intervals_outweigh_narrow_ones():
    close = pair_weight(Standing(1000, 30), Standing(1010, 30), 60)
    far = pair_weight(Standing(1000, 30), Standing(1300, 30), 60)
    assert close > 20 * far
    wide = pair_weight(Standing(1000, 50), Standing(1010, 50), 60)
    assert wide > close


def test_a_new_model_with_a_wide_interval_is_boosted():
    settled = pair_weight(Standing(1000, 30), Standing(1000, 30), 60)
    new = pair_weight(Standing(1000, 30), Standing(1000, 59), 60)
    boosted = pair_weight(Standing(1000, 30), Standing(1000, 61), 60)
    assert boosted > 2.5 * new > 2.5 * settled


def test_pairs_are_drawn_in_proportion_to_their_weights_with_random_sides():
    standings = {
        "a": Standing(1000, 40),
        "b": Standing(1020, 40),
        "c": Standing(1200, 40),
        "d": Standing(980, 80),
    }
    rng = np.random.default_rng(9)
    draws = [choose_pair(list(standings), standings, rng) for _ in range(40_000)]
    pairs = Counter(tuple(sorted(d)) for d in draws)
    keys = sorted(pairs)
    weights = np.array([pair_weight(standings[x], standings[y], 60.0) for x, y in keys])
    expected = weights / weights.sum() * len(draws)
    assert chisquare([pairs[k] for k in keys], expected)[1] > 0.001
    lefts = Counter(d[0] for d in draws if set(d) == {"a", "b"})
    assert abs(lefts["a"] / (lefts["a"] + lefts["b"]) - 0.5) < 0.02


def test_models_over_the_share_cap_are_left_out_unless_fewer_than_two_remain():
    rng = np.random.default_rng(1)
    seen = {
        m for _ in range(500) for m in choose_pair(["a", "b", "c"], {}, rng, shares={"a": 0.9}, max_share=0.5)
    }
    assert seen == {"b", "c"}


def test_pairing_needs_two_models():
    with pytest.raises(ValueError, match="fewer than two"):
        choose_pair(["a", "a"], {}, np.random.default_rng(0))


def _misorders(ratings: dict[str, float], votes: dict[tuple[str, str], float]) -> float:
    """Expected misordered pairs, written independently of the module: model 0 anchored at 0 instead of the
    sum-to-zero pseudo-inverse (variances of differences do not depend on the choice), explicit loops."""
    models = sorted(ratings)
    k = len(models)
    theta = [ratings[m] / (400 / np.log(10)) for m in models]
    info = np.zeros((k, k))
    for (x, y), n in votes.items():
        i, j = models.index(x), models.index(y)
        p = 1 / (1 + np.exp(theta[j] - theta[i]))
        w = n * p * (1 - p)
        info[i, i] += w
        info[j, j] += w
        info[i, j] -= w
        info[j, i] -= w
    cov = np.zeros((k, k))
    cov[1:, 1:] = np.linalg.inv(info[1:, 1:])
    total = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            sd = np.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
            total += norm.cdf(-abs(theta[i] - theta[j]) / sd)
    return total


def _all_pairs(models, n):
    return {(a, b): float(n) for i, a in enumerate(models) for b in models[i + 1 :]}


def test_misorder_benefit_is_the_gradient_of_an_independent_misorder_count():
    rng = np.random.default_rng(4)
    models = ["a", "b", "c", "d", "e"]
    ratings = dict(zip(models, 1000 + 120 * rng.standard_normal(5), strict=True))
    cast = {pair: float(rng.integers(1, 40)) for pair in _all_pairs(models, 0)}
    planned = {pair: float(rng.uniform(0, 10)) for pair in cast}
    benefit = misorder_benefit(ratings, cast, planned)
    total = {pair: cast[pair] + planned[pair] for pair in cast}
    for pair in cast:
        up, down = dict(total), dict(total)
        up[pair] += 1e-3
        down[pair] -= 1e-3
        numeric = -(_misorders(ratings, up) - _misorders(ratings, down)) / 2e-3
        assert benefit[pair] == pytest.approx(numeric, rel=1e-4, abs=1e-9)


def test_the_plan_spends_votes_where_they_lower_misorders_and_beats_uniform_on_known_truth():
    rng = np.random.default_rng(11)
    models = [f"m{i}" for i in range(8)]
    truth = dict(zip(models, 1000 + 100 * rng.standard_normal(8), strict=True))
    cast = _all_pairs(models, 15)
    plan = plan_votes(truth, cast, 800)
    assert set(plan) == set(cast) and sum(plan.values()) == pytest.approx(1.0)
    assert min(plan.values()) >= 0
    after_plan = {pair: n + 800 * plan[pair] for pair, n in cast.items()}
    after_uniform = {pair: n + 800 / len(cast) for pair, n in cast.items()}
    assert _misorders(truth, after_plan) < 0.93 * _misorders(truth, after_uniform)
    # A settled pair (far apart, or already holding many votes) gets less than its unsettled twin.
    ratings = {"a": 1000.0, "b": 1030.0, "c": 1600.0, "d": 1630.0}
    cast = _all_pairs(list(ratings), 5) | {("a", "b"): 2000.0}
    plan = plan_votes(ratings, cast, 200)
    assert plan[("c", "d")] > 5 * plan[("a", "b")]
    assert plan[("c", "d")] > 5 * plan[("a", "c")]


def test_with_a_plan_pairs_are_drawn_by_planned_share_plus_floor_and_unrated_models_are_boosted():
    standings = {m: Standing(1000 + 40 * i, 30) for i, m in enumerate("abc")}
    plan = {("a", "b"): 0.6, ("a", "c"): 0.1, ("b", "c"): 0.3}
    rng = np.random.default_rng(5)
    candidates = ["a", "b", "c", "new"]
    draws = Counter(tuple(sorted(choose_pair(candidates, standings, rng, plan=plan))) for _ in range(30_000))
    keys = sorted(draws)
    mean = 1 / 3
    weight = {
        k: (plan.get(k, mean) / mean + PLAN_FLOOR) * (NEW_MODEL_BOOST if "new" in k else 1) for k in keys
    }
    expected = np.array([weight[k] for k in keys]) / sum(weight.values()) * 30_000
    assert len(keys) == 6
    assert chisquare([draws[k] for k in keys], expected)[1] > 0.001


def test_the_share_cap_bounds_a_plan_that_wants_one_pair_only():
    models = ["a", "b", "c", "d", "e", "f"]
    standings = {m: Standing(1000 + 10 * i, 20) for i, m in enumerate(models)}
    plan = {(x, y): 0.0 for i, x in enumerate(models) for y in models[i + 1 :]} | {("e", "f"): 1.0}
    rng = np.random.default_rng(2)
    recent: deque[tuple[str, str]] = deque(maxlen=200)
    seen: Counter[str] = Counter()
    for step in range(4000):
        counts = Counter(m for pair in recent for m in pair)
        shares = {m: n / len(recent) for m, n in counts.items()} if recent else {}
        pair = choose_pair(models, standings, rng, plan=plan, shares=shares, max_share=0.5)
        recent.append(pair)
        if step >= 1000:
            seen.update(pair)
    share = {m: n / 3000 for m, n in seen.items()}
    assert share["e"] <= 0.53 and share["f"] <= 0.53  # held near the cap, not ~1.0
    assert share["e"] > 0.4  # ...and the plan still gets its way up to it
    assert min(share[m] for m in "abcd") > 0.1


def test_the_model_share_cap_is_a_multiple_of_the_uniform_share():
    # each matchup shows 2 of M models, so the uniform share is 2 / M; a fixed 0.5 was that share with 4 models
    assert [model_share_cap(m, 1.5) for m in (2, 3, 4, 6, 20)] == pytest.approx([1.0, 1.0, 0.75, 0.5, 0.15])
    assert model_share_cap(12, 3.0) == pytest.approx(0.5)


def test_model_shares_are_read_live_from_the_window_the_rules_count():
    window = {("a", "b"): 150, ("a", "c"): 49}
    assert window_shares(window) == pytest.approx({"a": 1.0, "b": 150 / 199, "c": 49 / 199})
    # while fewer than 199 matchups were served the share is still of 199: a count, as the window cap is
    assert window_shares({("a", "b"): 3, ("a", "c"): 1}) == pytest.approx(
        {"a": 4 / 199, "b": 3 / 199, "c": 1 / 199}
    )
    assert window_shares({("a", "b"): 3, ("a", "c"): 1}, size=0) == {"a": 1.0, "b": 0.75, "c": 0.25}
    assert window_shares({}) == {}
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    # without explicit shares the cap reads recent.window: "a" is in every matchup, so (b, c) is left
    assert apply_rules(pairs, 3, Recent(window), max_share=0.9) == ([("b", "c")], [])
    # a matchup picked but not committed moves them at once (four models, each just under 0.5 before the pick)
    four = [(x, y) for i, x in enumerate("abcd") for y in "abcd"[i + 1 :]]
    stored = Recent({("a", "b"): 99, ("c", "d"): 99})
    assert apply_rules(four, 6, stored, max_share=0.5) == (four, [])
    pending = InFlight()
    pending.add("m1", "text_to_image", "someone", ("a", "c"))
    merged = pending.merged(stored, "text_to_image", "me")
    assert window_shares(merged.window) == pytest.approx(
        {"a": 100 / 199, "b": 99 / 199, "c": 100 / 199, "d": 99 / 199}
    )
    assert apply_rules(four, 6, merged, max_share=0.5) == ([("b", "d")], [])
