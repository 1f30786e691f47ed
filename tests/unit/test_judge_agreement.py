"""Agreement statistics of the judge calibration: known answers, an independent implementation, simulations."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from arena.judge.orders import A_WINS, B_WINS, TIE, combine_orders, position_bias_rate
from ratings import rank_correlation as agreement
from ratings.agreement import cohen_kappa, confusion_matrix, measure_agreement
from ratings.proportions import wilson_interval
from ratings.rank_correlation import order_bounds, rank_correlation, resolved_signs
from tests.support.judge_sim import SimJudge, known_values, make_truth, simulate_once


def test_wilson_interval_matches_the_textbook_value_for_8_of_10():
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_stays_inside_zero_and_one_at_the_extremes():
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(0, 20)[1] > 0.1


def _kappa_by_hand(a, b):
    """Cohen's kappa written from its definition, one pair at a time (independent of the vectorised one)."""
    n = len(a)
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    cats = set(a) | set(b)
    expected = sum((list(a).count(c) / n) * (list(b).count(c) / n) for c in cats)
    return (observed - expected) / (1 - expected)


def test_kappa_of_the_classic_two_by_two_example_is_0_4():
    # 20 agree-yes, 15 agree-no, 5 + 10 disagreements: p_o = 0.7, p_e = 0.5.
    judge = [0] * 20 + [0] * 5 + [1] * 10 + [1] * 15
    human = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    assert cohen_kappa(np.array(judge), np.array(human)) == pytest.approx(0.4)


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=5, max_size=60))
def test_kappa_equals_the_definition_computed_pair_by_pair(pairs):
    judge, human = (np.array(x) for x in zip(*pairs, strict=True))
    by_hand_defined = len(set(judge) | set(human)) > 1
    if not by_hand_defined:
        return
    expected = _kappa_by_hand(judge.tolist(), human.tolist())
    assert cohen_kappa(judge, human) == pytest.approx(expected)


def test_confusion_matrix_rows_are_the_judge_and_columns_the_humans():
    table = confusion_matrix(np.array([0, 0, 2]), np.array([1, 0, 2]))
    assert table[0, 1] == 1 and table[0, 0] == 1 and table[2, 2] == 1 and table.sum() == 3


def test_a_judge_that_always_says_tie_has_kappa_zero_and_agreement_equal_to_chance():
    rng = np.random.default_rng(1)
    human = rng.choice(3, size=500, p=[0.45, 0.45, 0.10])
    result = measure_agreement(np.full(500, TIE), human)
    assert result.sym_kappa == pytest.approx(0.0) and result.cohen_kappa == pytest.approx(0.0)
    assert result.rate == pytest.approx(result.sym_chance) and result.rate == pytest.approx(
        result.cohen_chance
    )
    assert result.rate == pytest.approx((human == TIE).mean())


def test_a_perfect_judge_has_kappa_one():
    human = np.random.default_rng(2).choice(3, size=200)
    result = measure_agreement(human.copy(), human)
    assert (
        result.rate == 1.0
        and result.sym_kappa == pytest.approx(1.0)
        and result.sym_kappa_low == pytest.approx(1.0)
    )
    assert result.cohen_kappa == pytest.approx(1.0) and result.cohen_kappa_low == pytest.approx(1.0)


def test_agreement_intervals_cover_a_known_accuracy_about_95_percent_of_the_time():
    rng = np.random.default_rng(3)
    covered_rate = covered_kappa = covered_cohen = 0
    runs = 300
    p_true = np.array([0.45, 0.45, 0.10])
    # An 80%-accurate judge that, when wrong, picks one of the two other outcomes at random.
    accuracy = 0.8
    p_e = float((p_true * p_true).sum() * accuracy + (p_true * (1 - p_true)).sum() * (1 - accuracy) / 2)
    # kappa's population value: agreement 0.8, chance = sum over c of P(judge=c) P(human=c); A and B have the
    # same shares, so Cohen's kappa and the A/B-symmetrised one share it
    judge_marginal = accuracy * p_true + (1 - accuracy) / 2 * (1 - p_true)
    chance = float((judge_marginal * p_true).sum())
    kappa_true = (accuracy - chance) / (1 - chance)
    assert p_e > 0
    for _ in range(runs):
        human = rng.choice(3, size=400, p=p_true)
        wrong = rng.random(400) >= accuracy
        shift = rng.integers(1, 3, size=400)
        judge = np.where(wrong, (human + shift) % 3, human)
        result = measure_agreement(judge, human, n_bootstrap=400, rng=rng)
        covered_rate += result.low <= accuracy <= result.high
        covered_kappa += result.sym_kappa_low <= kappa_true <= result.sym_kappa_high
        covered_cohen += result.cohen_kappa_low <= kappa_true <= result.cohen_kappa_high
    assert 0.91 <= covered_rate / runs <= 0.99
    assert 0.90 <= covered_kappa / runs <= 0.99
    assert 0.90 <= covered_cohen / runs <= 0.99


@pytest.mark.parametrize(
    ("a_left", "b_left", "outcome", "flip"),
    [
        ("left", "right", A_WINS, False),  # A chosen in both orders
        ("right", "left", B_WINS, False),  # B chosen in both orders
        ("left", "left", TIE, True),  # the left image both times: the order decided
        ("right", "right", TIE, True),
        ("tie", "tie", TIE, False),
        ("left", "tie", TIE, False),
        ("tie", "left", TIE, False),
    ],
)
def test_both_orders_rule(a_left, b_left, outcome, flip):
    verdict = combine_orders(a_left, b_left)
    assert verdict.outcome == outcome and verdict.position_flip == flip
    assert verdict.order_dependent == (a_left != b_left if "tie" in (a_left, b_left) else flip)


def test_swapping_which_model_is_a_mirrors_the_combined_outcome():
    mirror = {A_WINS: B_WINS, B_WINS: A_WINS, TIE: TIE}
    for first, second in itertools.product(("left", "right", "tie"), repeat=2):
        # With B as "A", the first question shows B on the left: that is the old second answer.
        assert combine_orders(second, first).outcome == mirror[combine_orders(first, second).outcome]


def test_unknown_choice_is_refused():
    with pytest.raises(ValueError):
        combine_orders("up", "left")


def test_position_bias_rate_is_the_share_of_flips():
    assert position_bias_rate(np.array([True, False, True, True])) == 0.75
    assert np.isnan(position_bias_rate(np.array([], dtype=bool)))


def test_rank_correlation_agrees_with_scipy_and_bounds_the_point():
    rng = np.random.default_rng(4)
    truth = np.linspace(900, 1100, 10)
    judge = truth + rng.normal(0, 40, 10)
    boot_j = judge + rng.normal(0, 20, (200, 10))
    boot_h = truth + rng.normal(0, 5, (200, 10))
    result = rank_correlation(judge, truth, boot_j, boot_h)
    assert result.kendall == pytest.approx(stats.kendalltau(judge, truth).statistic)
    assert result.spearman == pytest.approx(stats.spearmanr(judge, truth).statistic)
    assert result.kendall_low <= result.kendall_high and result.spearman_low <= result.spearman_high
    assert result.replicates == 200


def test_identical_and_reversed_boards_correlate_plus_and_minus_one():
    x = np.arange(6.0)
    same = rank_correlation(x, x, np.tile(x, (5, 1)), np.tile(x, (5, 1)))
    rev = rank_correlation(x, -x, np.tile(x, (5, 1)), np.tile(-x, (5, 1)))
    assert same.kendall == pytest.approx(1.0) and same.spearman == pytest.approx(1.0)
    assert rev.kendall == pytest.approx(-1.0) and rev.kendall_high == pytest.approx(-1.0)


def test_kappa_does_not_depend_on_which_model_of_a_matchup_is_called_a():
    rng = np.random.default_rng(5)
    human = np.where(rng.random(300) < 0.9, B_WINS, TIE)  # "A" happens to be the weaker model almost always
    judge = np.where(rng.random(300) < 0.8, human, rng.integers(0, 3, 300))
    flip = rng.random(300) < 0.5
    mirror = np.array([B_WINS, A_WINS, TIE])
    relabelled = measure_agreement(np.where(flip, mirror[judge], judge), np.where(flip, mirror[human], human))
    original = measure_agreement(judge, human)
    assert original.rate == relabelled.rate
    assert original.sym_kappa == pytest.approx(relabelled.sym_kappa, abs=0.02)
    assert (
        original.sym_kappa > 0.4
    )  # a judge right 80% of the time is far from chance, whatever the labelling
    # plain Cohen's kappa does depend on it: the lopsided labelling deflates it
    assert original.cohen_kappa < relabelled.cohen_kappa - 0.05


def _signs(order: list[float], unresolved: tuple[tuple[int, int], ...] = ()) -> np.ndarray:
    """Sign matrix of a board whose ratings are `order`, with the listed pairs unresolved."""
    x = np.asarray(order, float)
    signs = np.sign(x[:, None] - x[None, :])
    for i, k in unresolved:
        signs[i, k] = signs[k, i] = 0
    return signs


def test_resolved_signs_keep_separated_pairs_and_drop_overlapping_ones():
    rng = np.random.default_rng(6)
    point = np.array([0.0, 0.1, 5.0])
    boot = point + rng.normal(0, 0.5, (400, 3))  # 0 and 1 overlap; 2 is far above both
    signs = resolved_signs(point, boot)
    assert signs[0, 1] == signs[1, 0] == 0
    assert signs[2, 0] == signs[2, 1] == 1 and signs[0, 2] == signs[1, 2] == -1


def test_order_bounds_of_one_unresolved_adjacent_pair_are_the_swap():
    human = _signs([3, 2, 1])
    judge = _signs([3, 2, 1], unresolved=((0, 1),))
    k_low, k_high, s_low, s_high = order_bounds(judge, human)
    # Swapping two neighbours of three: tau = (2 - 1) / 3, rho = 1 - 6 * 2 / (3 * 8).
    assert (k_low, k_high) == pytest.approx((1 / 3, 1.0))
    assert (s_low, s_high) == pytest.approx((0.5, 1.0))


def test_order_bounds_respect_transitivity():
    # Four models, only neighbours unresolved: at most two disjoint swaps (b a d c), not three discordant pairs.
    human = _signs([4, 3, 2, 1])
    judge = _signs([4, 3, 2, 1], unresolved=((0, 1), (1, 2), (2, 3)))
    k_low, k_high, _, _ = order_bounds(judge, human)
    assert k_low == pytest.approx((4 - 2) / 6) and k_high == pytest.approx(1.0)
    assert k_low > (3 - 3) / 6  # the pair-by-pair relaxation's bound


def _brute_force_bounds(judge: np.ndarray, human: np.ndarray) -> tuple[float, float, float, float]:
    """Min and max of both correlations over every pair of permutations consistent with the resolved pairs."""
    n = judge.shape[0]

    def consistent(perm: np.ndarray, signs: np.ndarray) -> bool:
        return bool(np.all((signs == 0) | (signs == np.sign(perm[:, None] - perm[None, :]))))

    perms = [np.array(p, float) for p in itertools.permutations(range(n))]
    js = [p for p in perms if consistent(p, judge)]
    hs = [p for p in perms if consistent(p, human)]
    taus = [stats.kendalltau(a, b).statistic for a in js for b in hs]
    rhos = [stats.spearmanr(a, b).statistic for a in js for b in hs]
    return (min(taus), max(taus), min(rhos), max(rhos))


@pytest.mark.parametrize("fallback", [False, True])
def test_order_bounds_contain_every_consistent_ordering_and_are_exact_when_the_humans_are_resolved(
    fallback, monkeypatch
):
    if fallback:  # too many orderings to enumerate: the pair-by-pair and assignment relaxations
        monkeypatch.setattr(agreement, "MAX_ORDER_STATES", 0)
    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(3, 7))
        iu = list(zip(*np.triu_indices(n, 1), strict=True))
        judge_gone = [p for p in iu if rng.random() < rng.random()]
        human_gone = [p for p in iu if trial % 2 and rng.random() < 0.3]
        judge = _signs(rng.normal(size=n).tolist(), tuple(judge_gone))
        human = _signs(rng.normal(size=n).tolist(), tuple(human_gone))
        got, exact = order_bounds(judge, human), _brute_force_bounds(judge, human)
        assert got[0] <= exact[0] + 1e-9 and got[1] >= exact[1] - 1e-9
        assert got[2] <= exact[2] + 1e-9 and got[3] >= exact[3] - 1e-9
        if not human_gone and not fallback:
            assert got == pytest.approx(exact)


def test_rank_correlation_intervals_cover_a_judge_with_near_tied_models():
    """The style-biased judge puts three pairs of models 0.16 nats apart, each in the opposite order to the
    humans': the sample order of those pairs is a coin toss, and the bootstrap interval alone covered the
    population tau in about 3 runs of 4."""
    truth = make_truth(12, spread_elo=800)
    judge = SimJudge("style bias +1", scale=2.0, style_bonus=1.0, styled=(1, 3, 5))
    known = known_values(judge, truth)
    runs, kendall_hits, spearman_hits = 40, 0, 0
    for seed in range(runs):
        c = simulate_once(judge, truth, matchups=600, human_votes=20000, seed=seed).correlation
        assert c is not None
        kendall_hits += c.kendall_low - 1e-12 <= known["kendall"] <= c.kendall_high + 1e-12
        spearman_hits += c.spearman_low - 1e-12 <= known["spearman"] <= c.spearman_high + 1e-12
        assert c.kendall_high - c.kendall_low < 0.5  # still says something
    assert kendall_hits / runs >= 0.9 and spearman_hits / runs >= 0.9
