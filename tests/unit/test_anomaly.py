"""Anomaly filters on synthetic votes with known truth: honest voters pass, each kind of rigging is caught."""

import numpy as np

from arena.voting.filters.anomaly import RawVote, find_anomalies, likelihood_p_value

TRUTH = {f"m{i}": 1000 + 60 * i for i in range(8)}  # m7 best, m0 worst


def _p(a, b):
    return 1 / (1 + 10 ** ((TRUTH[b] - TRUTH[a]) / 400))


def _honest(rng, n_voters=300, per_voter=25, address=lambda i: f"addr-{i}"):
    votes, vid = [], 0
    models = sorted(TRUTH)
    for s in range(n_voters):
        for _ in range(per_voter):
            a, b = rng.choice(models, 2, replace=False)
            r = rng.random()
            winner = "tie" if r < 0.1 else ("model_a" if rng.random() < _p(a, b) else "model_b")
            votes.append(
                RawVote(vid, f"s{s}", address(s), a, b, winner, "left" if rng.random() < 0.5 else "right")
            )
            vid += 1
    return votes


def test_likelihood_p_values_of_honest_voters_are_not_small_and_of_contrarians_are():
    rng = np.random.default_rng(3)
    honest, contrary = [], []
    for _ in range(2000):
        ps = rng.uniform(0.5, 0.95, size=30)
        won = rng.random(30) < ps
        honest.append(likelihood_p_value(np.where(won, ps, 1 - ps)))
        contrary.append(likelihood_p_value(1 - ps))  # always picks the worse image
    assert np.mean(np.array(honest) < 0.001) < 0.005
    assert np.mean(np.array(honest) < 0.1) < 0.15
    assert np.mean(np.array(contrary) < 0.001) > 0.95


def test_honest_voters_are_almost_never_flagged():
    votes = _honest(np.random.default_rng(1))
    flagged = {f.vote_id for f in find_anomalies(votes)}
    flagged_sessions = {v.session for v in votes if v.id in flagged}
    assert len(flagged_sessions) <= 3  # of 300 voters, i.e. at most 1%


def test_a_voter_who_always_picks_the_worse_model_is_caught_by_the_likelihood_rule():
    votes = _honest(np.random.default_rng(2))
    start = len(votes)
    for k in range(30):
        a, b = f"m{k % 4}", f"m{4 + k % 4}"  # b is better by 240 Elo
        votes.append(RawVote(start + k, "contrarian", "x", a, b, "model_a", "left"))
    flags = find_anomalies(votes)
    assert {f.filter for f in flags if f.vote_id >= start} >= {"likelihood"}


def test_a_voter_who_always_clicks_left_is_caught_by_the_same_side_rule():
    votes = _honest(np.random.default_rng(4))
    rng = np.random.default_rng(5)
    start = len(votes)
    for k in range(40):
        a, b = rng.choice(sorted(TRUTH), 2, replace=False)
        side = "left" if k % 2 else "right"
        winner = "model_a" if side == "left" else "model_b"  # whatever is on the left wins
        votes.append(RawVote(start + k, "lefty", "y", a, b, winner, side))
    flags = find_anomalies(votes)
    assert any(f.filter == "same_side" and f.vote_id >= start for f in flags)


def test_many_sessions_from_one_address_pushing_one_model_are_caught():
    rng = np.random.default_rng(6)
    votes = _honest(rng)
    start = len(votes)
    vid = start
    for s in range(10):
        for _ in range(12):
            other = f"m{int(rng.integers(1, 8))}"
            votes.append(RawVote(vid, f"sybil{s}", "attacker", "m0", other, "model_a", "left"))
            vid += 1
    flags = find_anomalies(votes)
    caught = {f.vote_id for f in flags if f.filter == "address_favoritism"}
    assert set(range(start, vid)) <= caught
    assert not {f.vote_id for f in flags if f.filter == "address_favoritism" and f.vote_id < start}


def test_a_shared_office_address_of_honest_voters_is_left_alone():
    votes = _honest(np.random.default_rng(7), address=lambda i: "office-nat" if i < 40 else f"addr-{i}")
    assert not [f for f in find_anomalies(votes) if f.filter == "address_favoritism"]


def test_a_campaign_split_into_short_sessions_behind_one_address_is_caught_by_the_address_likelihood_rule():
    votes = _honest(np.random.default_rng(8))
    start = vid = len(votes)
    for s in range(12):
        for k in range(6):  # 6 votes per session: too few for the per-session rules
            a, b = f"m{k % 4}", f"m{4 + (k + s) % 4}"
            votes.append(RawVote(vid, f"short{s}", "campaign", a, b, "model_a", "left" if k % 2 else "right"))
            vid += 1
    flags = find_anomalies(votes)
    assert set(range(start, vid)) <= {f.vote_id for f in flags if f.filter == "address_likelihood"}
    assert not [f for f in flags if f.filter == "likelihood" and f.vote_id >= start]
