"""K-wise matchmaking rules and batch filters on known answers (issue 31): sets of K distinct models, the
session's no-repeat rule and the model-share cap (each skipped only when it would leave no set), the pairs a
ranking implies, and the position rule catching a voter who always ranks in screen order but not an honest one."""

from __future__ import annotations

import itertools

import numpy as np

from arena.voting.kwise_filters import KwiseRow, implied_pairs, kwise_flags
from arena.voting.kwise_pick import KRecent, choose_set, kwise_share_cap

MODELS = [f"m{i}" for i in range(6)]


def test_sets_are_k_distinct_models_and_cover_every_combination():
    sets, dropped = choose_set(MODELS, 4, KRecent(), np.random.default_rng(0), n_models=6, factor=1.5)
    assert dropped == []
    assert sorted(sets) == list(itertools.combinations(MODELS, 4))  # C(6, 4) = 15, each of 4 distinct models


def test_no_repeat_leaves_out_the_sessions_last_sets():
    last = [("m0", "m1", "m2", "m3"), ("m0", "m1", "m2", "m4")]
    sets, dropped = choose_set(
        MODELS, 4, KRecent(session_last=last), np.random.default_rng(0), n_models=6, factor=1.5
    )
    assert dropped == [] and len(sets) == 13 and not set(last) & set(sets)


def test_with_a_single_possible_set_no_repeat_is_skipped_not_fatal():
    four = MODELS[:4]
    sets, dropped = choose_set(
        four, 4, KRecent(session_last=[tuple(four)]), np.random.default_rng(0), n_models=4, factor=1.5
    )
    assert sets == [tuple(four)] and dropped == []  # min(5, S - 1) = 0 sets to avoid: nothing to drop


def test_the_share_cap_leaves_out_an_overexposed_model():
    cap = kwise_share_cap(6, 4, 1.5)
    assert cap == 1.0  # 1.5 x 4 / 6 = 1: with six models the cap cannot bind
    cap = kwise_share_cap(12, 4, 1.5)
    assert cap == 0.5
    models = [f"m{i}" for i in range(12)]
    recent = KRecent(appearances={"m0": 150, "m1": 60}, served=199)  # m0 in 75% of the window, m1 in 30%
    sets, dropped = choose_set(models, 4, recent, np.random.default_rng(0), n_models=12, factor=1.5)
    assert dropped == [] and all("m0" not in s for s in sets) and any("m1" in s for s in sets)


def test_a_ranking_implies_its_six_pairs_with_left_the_lower_position():
    row = KwiseRow(7, "s", None, ("b", "a", "d", "c"), ("d", "b", "c", "a"))
    pairs = {(p.model_a, p.model_b): (p.winner, p.a_side) for p in implied_pairs(row)}
    assert pairs == {
        ("a", "b"): ("model_b", "right"),  # b (position 0) above a (position 1); a shown right of b
        ("b", "d"): ("model_b", "left"),
        ("b", "c"): ("model_a", "left"),
        ("a", "d"): ("model_b", "left"),
        ("a", "c"): ("model_b", "left"),
        ("c", "d"): ("model_b", "right"),
    }
    equal = KwiseRow(8, "s", None, ("b", "a", "d", "c"), ())
    assert {p.winner for p in implied_pairs(equal)} == {"tie"}


def test_the_position_rule_flags_a_screen_order_voter_and_not_an_honest_one():
    rng = np.random.default_rng(3)
    rows, n = [], 0
    for session in ("lazy", *[f"honest-{i}" for i in range(8)]):
        for _ in range(12):
            shown = tuple(str(x) for x in rng.permutation(MODELS)[:4])
            ranking = shown if session == "lazy" else tuple(str(x) for x in rng.permutation(list(shown)))
            rows.append(KwiseRow(n, session, None, shown, ranking))
            n += 1
    flags = kwise_flags(rows)
    position = {f.vote_id for f in flags if f.filter == "kwise_position"}
    assert position == set(range(12))  # the lazy session's 12 votes, none of the honest sessions'
