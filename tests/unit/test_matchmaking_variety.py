"""The variety rules of matchmaking on the demo field (6 models, 15 pairs): the window cap holds in every
window of 200, sessions never repeat a recent pair and see enough distinct pairs, even when the vote plan wants
a single pair; each rule yields only when nothing else is possible."""

from collections import Counter

import numpy as np

from arena.voting.matchmaking import History, Recent, Standing, apply_rules, choose_pair, window_cap
from tests.support.variety import session_breaches, worst_window

MODELS = ["a", "b", "c", "d", "e", "f"]
PAIRS = [(x, y) for i, x in enumerate(MODELS) for y in MODELS[i + 1 :]]


def _serve(n_sessions: int, per_session: int, plan, seed: int, concurrent: int = 10):
    """Sessions of `per_session` matchups, `concurrent` of them interleaved at a time, as in the arena."""
    rng = np.random.default_rng(seed)
    standings = {m: Standing(1000 + 10 * i, 20) for i, m in enumerate(MODELS)}
    history = History()
    served: list[tuple[str, str]] = []
    sessions: dict[str, list[tuple[str, str]]] = {}
    for group in range(0, n_sessions, concurrent):
        names = [f"s{k}" for k in range(group, min(group + concurrent, n_sessions))]
        for _ in range(per_session):
            for name in rng.permutation(names):
                pair = choose_pair(MODELS, standings, rng, plan=plan, recent=history.recent(name), n_pairs=15)
                history.record(name, *pair)
                served.append(pair)
                sessions.setdefault(name, []).append(pair)
    return served, sessions


def test_a_plan_on_one_pair_is_capped_in_every_window_and_sessions_keep_their_variety():
    plan = dict.fromkeys(PAIRS, 0.0) | {("e", "f"): 1.0}
    served, sessions = _serve(100, 20, plan, seed=3)
    assert len(served) == 2000 and window_cap(15) == 40
    assert worst_window(served) <= 40
    assert len(sessions) == 100
    for name, sequence in sessions.items():
        assert session_breaches(sequence, 15) == [], name
    # The plan still gets its way up to the cap: the favoured pair is the most served one, near 40 per 200.
    counts = Counter(frozenset(p) for p in served[200:])
    assert counts.most_common(1)[0][0] == frozenset("ef")
    assert 0.15 < counts[frozenset("ef")] / 1800 <= 0.2


def test_without_a_plan_the_rules_hold_too_and_every_pair_is_served():
    served, sessions = _serve(50, 20, None, seed=8)
    assert worst_window(served) <= 40
    assert all(session_breaches(seq, 15) == [] for seq in sessions.values())
    assert len({frozenset(p) for p in served}) == 15


def test_a_rule_yields_only_when_no_other_pair_is_possible():
    three = [("a", "b"), ("a", "c"), ("b", "c")]
    # no repeat within min(5, 3 - 1) = 2: with three pairs the session cycles through all of them.
    recent = Recent({}, [("a", "b"), ("a", "c")], [("a", "b"), ("a", "c")], 2)
    assert apply_rules(three, 3, recent) == ([("b", "c")], [])
    # a prompt with only the two pairs just served: the no-repeat rule is dropped, and says so.
    kept, dropped = apply_rules(three[:2], 3, recent)
    assert kept == three[:2] and dropped == ["no_repeat"]
    # the session's own rules come before the window cap: the pair just served stays out even though the only
    # other one is at the cap; the cap yields, and says so (issue 24: a global rule outranking no-repeat gave
    # voters one pair 20 times in a row).
    recent = Recent({("a", "b"): window_cap(3)}, [("a", "c")], [("a", "c")], 1)
    assert apply_rules(three[:2], 3, recent) == ([("a", "b")], ["window_cap"])
    # ...and so does the model share cap: "a" and "b" over it, the pair of the two is still the one served.
    shares = {"a": 0.9, "b": 0.9, "c": 0.2}
    assert apply_rules(three[:2], 3, recent, shares, 0.5) == ([("a", "b")], ["window_cap", "model_share"])
    # among the pairs the session rules allow, the global rules still choose: "a" over the cap leaves (b, c).
    fresh = Recent({}, [], [], 0)
    assert apply_rules(three, 3, fresh, {"a": 0.9}, 0.5) == ([("b", "c")], [])
    # one model pair only: it is served (no rule can hold), never an error.
    rng = np.random.default_rng(0)
    history = History()
    for _ in range(5):
        pair = choose_pair(["a", "b"], {}, rng, recent=history.recent("s"))
        history.record("s", *pair)
    assert set(history.sessions["s"]) == {("a", "b")}


def test_variety_forces_new_pairs_late_in_the_first_twenty():
    # 10 distinct pairs are needed; after 14 matchups on 4 pairs, 6 matchups remain for 6 new pairs.
    seen = [PAIRS[k % 4] for k in range(14)]
    recent = Recent({}, seen, seen[-5:], 14)
    kept, dropped = apply_rules(PAIRS, 15, recent)
    assert not dropped and set(kept) == set(PAIRS) - set(PAIRS[:4])
    # with room to spare (after 3 matchups), a pair seen before (but not in the last 5) is still allowed.
    early = Recent({}, seen[:3], seen[:3], 3)
    kept, _ = apply_rules(PAIRS, 15, early)
    assert set(kept) == set(PAIRS) - set(PAIRS[:3])


def test_the_window_cap_is_three_times_the_uniform_share():
    assert [window_cap(p) for p in (1, 3, 15, 190, 1000)] == [600, 200, 40, 3, 1]
