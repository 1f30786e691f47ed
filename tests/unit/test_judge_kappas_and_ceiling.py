"""The judge report's named kappas, decisive agreement, position-bias interval and human-human ceiling, against
known answers and independent computations (exact fractions, the kappa definition pair by pair, and the Wilson
interval found by root-finding its defining equation instead of the closed form)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import optimize, stats

from arena.judge.ceiling import voter_agreement
from arena.judge.orders import A_WINS, B_WINS, TIE
from ratings.agreement import measure_agreement
from ratings.proportions import wilson_interval

MIRROR = {A_WINS: B_WINS, B_WINS: A_WINS, TIE: TIE}

# judge rows x human columns (A, B, tie): lopsided towards A, so the two kappas differ
TABLE = [[40, 5, 5], [10, 20, 5], [5, 5, 5]]


def _from_table(table: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    judge, human = [], []
    for j, row in enumerate(table):
        for h, count in enumerate(row):
            judge += [j] * count
            human += [h] * count
    return np.array(judge), np.array(human)


def _kappa_fraction(table: list[list[Fraction]]) -> Fraction:
    """Cohen's kappa in exact arithmetic from a table: (p_o - p_e) / (1 - p_e)."""
    n = sum(sum(r) for r in table)
    p_o = sum(table[i][i] for i in range(3)) / n
    rows = [sum(r) for r in table]
    cols = [sum(table[i][j] for i in range(3)) for j in range(3)]
    p_e = sum(rows[i] * cols[i] for i in range(3)) / (n * n)
    return (p_o - p_e) / (1 - p_e)


def _kappa_by_hand(a: list[int], b: list[int]) -> float:
    """Cohen's kappa from its definition, one pair at a time."""
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    expected = sum((a.count(c) / n) * (b.count(c) / n) for c in set(a) | set(b))
    return (observed - expected) / (1 - expected)


def _wilson_by_root(k: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson interval as its definition: the p with |k/n - p| = z sqrt(p (1 - p) / n), found numerically."""
    z = stats.norm.ppf(0.5 + level / 2)
    phat = k / n
    f = lambda p: (phat - p) ** 2 - z * z * p * (1 - p) / n  # noqa: E731
    eps = 1e-12  # f vanishes at p = 0 and p = 1 when the estimate is there: bracket the other root
    low = 0.0 if phat == 0 else optimize.brentq(f, eps, min(phat, 1 - eps))
    high = 1.0 if phat == 1 else optimize.brentq(f, max(phat, eps), 1 - eps)
    return low, high


def test_cohen_and_symmetrised_kappa_of_a_known_table_differ_and_match_exact_fractions():
    judge, human = _from_table(TABLE)
    result = measure_agreement(judge, human, n_bootstrap=200)
    plain = _kappa_fraction([[Fraction(c) for c in r] for r in TABLE])
    m = [1, 0, 2]
    sym = [[Fraction(TABLE[i][j] + TABLE[m[i]][m[j]], 2) for j in range(3)] for i in range(3)]
    assert plain == Fraction(99, 239)  # p_o = 0.65, p_e = 0.4025
    assert _kappa_fraction(sym) == Fraction(213, 493)  # p_o = 0.65, p_e = 0.38375
    assert result.cohen_kappa == pytest.approx(float(plain), abs=1e-12)  # 0.4142
    assert result.sym_kappa == pytest.approx(213 / 493, abs=1e-12)  # 0.4320
    assert result.cohen_chance == pytest.approx(0.4025) and result.sym_chance == pytest.approx(0.38375)
    assert result.cohen_kappa_low < result.cohen_kappa < result.cohen_kappa_high
    assert result.sym_kappa_low < result.sym_kappa < result.sym_kappa_high


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=4, max_size=60))
def test_symmetrised_kappa_is_cohens_kappa_of_the_matchups_counted_with_a_and_b_swapped_too(pairs):
    judge = [j for j, _ in pairs]
    human = [h for _, h in pairs]
    doubled_j = judge + [MIRROR[j] for j in judge]
    doubled_h = human + [MIRROR[h] for h in human]
    if len(set(doubled_j) | set(doubled_h)) < 2 or len(set(judge) | set(human)) < 2:
        return  # chance agreement 1: kappa undefined
    result = measure_agreement(np.array(judge), np.array(human), n_bootstrap=20)
    assert result.sym_kappa == pytest.approx(_kappa_by_hand(doubled_j, doubled_h))
    assert result.cohen_kappa == pytest.approx(_kappa_by_hand(judge, human))


def test_decisive_agreement_leaves_out_matchups_where_either_side_is_a_tie():
    judge, human = _from_table(TABLE)
    result = measure_agreement(judge, human, n_bootstrap=20)
    # decisive cells: judge A/B x human A/B = 40 + 5 + 10 + 20 = 75, of which 60 agree
    assert (result.decisive_n, result.decisive_agree) == (75, 60) and result.decisive_rate == pytest.approx(
        0.8
    )
    assert (result.decisive_low, result.decisive_high) == pytest.approx(_wilson_by_root(60, 75), abs=1e-9)
    assert (result.n, result.agree) == (100, 65)


@pytest.mark.parametrize(("k", "n"), [(0, 12), (3, 12), (12, 12), (37, 600), (1, 1), (250, 400)])
def test_wilson_interval_equals_the_root_of_its_defining_equation(k, n):
    assert wilson_interval(k, n) == pytest.approx(_wilson_by_root(k, n), abs=1e-9)


def test_kappa_bootstrap_resamples_prompts_so_copies_of_a_matchup_do_not_narrow_it():
    rng = np.random.default_rng(7)
    human = rng.choice(3, size=120, p=[0.45, 0.45, 0.1])
    judge = np.where(rng.random(120) < 0.75, human, rng.integers(0, 3, 120))
    once = measure_agreement(judge, human, clusters=np.arange(120), n_bootstrap=2000)
    # every matchup five times under the same prompt: the same information as once
    copies = measure_agreement(
        np.repeat(judge, 5), np.repeat(human, 5), clusters=np.repeat(np.arange(120), 5), n_bootstrap=2000
    )
    naive = measure_agreement(np.repeat(judge, 5), np.repeat(human, 5), n_bootstrap=2000)
    width = lambda a: a.sym_kappa_high - a.sym_kappa_low  # noqa: E731
    assert copies.bootstrap == "prompts" and copies.clusters == 120
    assert naive.bootstrap == "matchups" and naive.clusters == 600
    assert width(copies) == pytest.approx(width(once), rel=0.15)
    assert width(naive) < 0.6 * width(once)  # resampling copies as if independent: about 1 / sqrt(5)
    c_width = copies.cohen_kappa_high - copies.cohen_kappa_low
    assert c_width == pytest.approx(once.cohen_kappa_high - once.cohen_kappa_low, rel=0.15)


def test_voter_agreement_of_known_tallies():
    # (A, B, tie) voters per matchup: 2-0 agree; 1-1 disagree; 2-1: 1 of 3 pairs; A + tie: 0 of 1, no decisive pair
    everything, decisive = voter_agreement([(2, 0, 0), (1, 1, 0), (2, 1, 0), (1, 0, 1), (1, 0, 0)])
    assert (everything.matchups, everything.pairs, everything.agreeing_pairs) == (4, 6, 2)
    share = 1 + 0 + Fraction(1, 3) + 0
    assert everything.rate == pytest.approx(float(share / 4))
    assert (everything.low, everything.high) == pytest.approx(_wilson_by_root(float(share), 4), abs=1e-9)
    assert (decisive.matchups, decisive.pairs, decisive.agreeing_pairs) == (3, 5, 2)
    assert decisive.rate == pytest.approx(float((1 + 0 + Fraction(1, 3)) / 3))


def test_with_two_voters_per_matchup_the_ceiling_interval_is_wilson_on_pairs():
    tallies = [(2, 0, 0)] * 30 + [(1, 1, 0)] * 8 + [(0, 1, 1)] * 2 + [(0, 0, 2)] * 5
    everything, decisive = voter_agreement(tallies)
    assert everything.agreeing_pairs == 35 and everything.pairs == 45
    assert (everything.rate, everything.low, everything.high) == pytest.approx(
        (35 / 45, *_wilson_by_root(35, 45)), abs=1e-9
    )
    assert (decisive.matchups, decisive.agreeing_pairs) == (38, 30)


def test_no_matchup_with_two_voters_gives_no_ceiling():
    everything, decisive = voter_agreement([(1, 0, 0), (0, 0, 1)])
    assert everything.matchups == 0 and np.isnan(everything.rate) and everything.to_dict()["rate"] is None
    assert decisive.matchups == 0
