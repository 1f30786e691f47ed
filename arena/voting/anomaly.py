"""Anomalous-voter filters, run in batch over all raw votes (a re-run replaces their verdicts).

Expected outcomes come from the pairwise outcome rates of everyone else: for a vote by voter v on (a, b),
P(a beats b) = (wins_ab + ties_ab / 2 + 1) / (n_ab + 2) over the votes of all other voters (or other
addresses), so a voter's own votes never vouch for themselves. Only decisive votes are tested.

Rules (all one-sided or two-sided tests at level ALPHA = 0.001, applied only with enough votes):

- likelihood: a voter with at least MIN_VOTES decisive votes whose log-likelihood
  LL = sum log P(chosen beats other) is too low: z = (LL - E[LL]) / sd[LL] under honest voting
  (E and sd summed per vote from P), filtered when Phi(z) < ALPHA. Catches voters who pick the usually
  worse image (random clickers, "move every rating" campaigns).
- same_side: a voter with at least MIN_VOTES decisive votes who picks the same side (left or right) so
  often that an exact two-sided binomial test against 1/2 gives p < ALPHA.
- favoritism (per voter and per address with at least MIN_SESSIONS sessions): for each model, its wins in
  the group's votes against the expected sum of P; z-test one-sided, Bonferroni over the group's models;
  when p * models < ALPHA the group's votes involving that model are filtered. Per address this catches
  many sessions from one address pushing one model.
- address_likelihood: the likelihood rule applied to all votes of an address with at least MIN_SESSIONS
  sessions, so a campaign split into many short sessions (each too small to test alone) is still caught.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from scipy.stats import binomtest, norm

ALPHA = 1e-3
MIN_VOTES = 10
MIN_MODEL_VOTES = 5
MIN_SESSIONS = 3
VERSION = "1"
SESSION_FILTERS = ("likelihood", "same_side", "favoritism")
ADDRESS_FILTERS = ("address_likelihood", "address_favoritism")
FILTERS = SESSION_FILTERS + ADDRESS_FILTERS


@dataclass(frozen=True)
class RawVote:
    """What the anomaly filters read of a vote."""

    id: int
    session: str
    address: str | None
    model_a: str
    model_b: str
    winner: str  # model_a | model_b | tie | tie (bothbad)
    a_side: str  # where model_a was shown: left | right


@dataclass(frozen=True)
class Flag:
    """A filtered vote: which filter and why."""

    vote_id: int
    filter: str
    reason: str


PairTotals = dict[tuple[str, str], list[float]]


def pair_score(model_a: str, model_b: str, winner: str) -> tuple[tuple[str, str], float]:
    """The sorted pair of a vote and the first model's score in it (1 win, 0 loss, 0.5 tie)."""
    a, b = sorted((model_a, model_b))
    score = {"model_a": 1.0, "model_b": 0.0}.get(winner, 0.5)
    return (a, b), (score if a == model_a else 1.0 - score)


class _Rates:
    """Pair counts for leave-group-out outcome rates: `total` over every vote of the modality (passed in when
    the database already summed them, else counted from `votes`)."""

    def __init__(self, votes: Sequence[RawVote] = (), total: PairTotals | None = None) -> None:
        self.total: PairTotals = defaultdict(lambda: [0.0, 0.0])
        if total is not None:
            self.total.update({k: list(v) for k, v in total.items()})
        else:
            for v in votes:
                self._add(self.total, v, 1.0)

    @staticmethod
    def _add(table: PairTotals, v: RawVote, sign: float) -> None:
        key, score = pair_score(v.model_a, v.model_b, v.winner)
        cell = table[key]
        cell[0] += sign * score
        cell[1] += sign

    def without(self, group: Sequence[RawVote]) -> PairTotals:
        own: PairTotals = defaultdict(lambda: [0.0, 0.0])
        for v in group:
            self._add(own, v, 1.0)
        return {k: [self.total[k][0] - own[k][0], self.total[k][1] - own[k][1]] for k in own}

    @staticmethod
    def p_beats(rest: PairTotals, winner: str, loser: str) -> float:
        a, b = sorted((winner, loser))
        wins_a, n = rest.get((a, b), [0.0, 0.0])
        p_a = (wins_a + 1.0) / (n + 2.0)
        return p_a if winner == a else 1.0 - p_a


def _decisive(group: Sequence[RawVote]) -> list[tuple[RawVote, str, str]]:
    out = []
    for v in group:
        if v.winner == "model_a":
            out.append((v, v.model_a, v.model_b))
        elif v.winner == "model_b":
            out.append((v, v.model_b, v.model_a))
    return out


def likelihood_p_value(probabilities: Sequence[float]) -> float:
    """One-sided p-value that votes whose chosen side had these probabilities came from an honest voter."""
    ll = mean = var = 0.0
    for p in probabilities:
        p = min(max(p, 1e-6), 1 - 1e-6)
        ll += math.log(p)
        # Each vote on a pair with P(a beats b) = q: honest LL term is log q w.p. q, log(1 - q) w.p. 1 - q.
        mean += p * math.log(p) + (1 - p) * math.log(1 - p)
        var += p * (1 - p) * math.log(p / (1 - p)) ** 2
    if var <= 0:
        return 1.0
    return float(norm.cdf((ll - mean) / math.sqrt(var)))


def _favoritism(decisive: list[tuple[RawVote, str, str]], rest: dict) -> list[tuple[str, float, int, float]]:
    """Per model in the group's votes: (model, one-sided p of too many wins, wins, expected wins)."""
    stats: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for _, winner, loser in decisive:
        p = _Rates.p_beats(rest, winner, loser)
        for model, won, p_model in ((winner, 1.0, p), (loser, 0.0, 1.0 - p)):
            s = stats[model]
            s[0] += won
            s[1] += p_model
            s[2] += p_model * (1 - p_model)
            s[3] += 1
    out = []
    for model, (wins, expected, var, n) in stats.items():
        if n < MIN_MODEL_VOTES or var <= 0:
            continue
        out.append((model, float(norm.sf((wins - expected) / math.sqrt(var))), int(wins), expected))
    return out


def find_anomalies(votes: Sequence[RawVote]) -> list[Flag]:
    """Every vote the anomaly filters reject, with the filter and the reason."""
    rates = _Rates(votes)
    by_session: dict[str, list[RawVote]] = defaultdict(list)
    by_address: dict[str, list[RawVote]] = defaultdict(list)
    for v in votes:
        by_session[v.session].append(v)
        if v.address:
            by_address[v.address].append(v)
    flags: list[Flag] = []
    for group in by_session.values():
        flags += session_flags(group, rates)
    for group in by_address.values():
        flags += address_flags(group, rates)
    return flags


def session_flags(group: Sequence[RawVote], rates: _Rates) -> list[Flag]:
    """The session filters (likelihood, same_side, favoritism) on one session's votes."""
    decisive = _decisive(group)
    if len(decisive) < MIN_VOTES:
        return []
    flags: list[Flag] = []
    rest = rates.without(group)
    p_ll = likelihood_p_value([_Rates.p_beats(rest, w, loser) for _, w, loser in decisive])
    if p_ll < ALPHA:
        reason = f"session likelihood p={p_ll:.2g} over {len(decisive)} decisive votes"
        flags += [Flag(v.id, "likelihood", reason) for v in group]
    left = sum(1 for v, w, _ in decisive if (v.a_side == "left") == (w == v.model_a))
    p_side = binomtest(left, len(decisive), 0.5).pvalue
    if p_side < ALPHA:
        reason = f"chose the left image {left} of {len(decisive)} times (p={p_side:.2g})"
        flags += [Flag(v.id, "same_side", reason) for v in group]
    return flags + _favoritism_flags(group, decisive, rest, "favoritism", "session")


def address_flags(group: Sequence[RawVote], rates: _Rates) -> list[Flag]:
    """The address filters (address_likelihood, address_favoritism) on all votes of one client address."""
    if len({v.session for v in group}) < MIN_SESSIONS:
        return []
    flags: list[Flag] = []
    decisive = _decisive(group)
    rest = rates.without(group)
    if len(decisive) >= MIN_VOTES:
        p_ll = likelihood_p_value([_Rates.p_beats(rest, w, loser) for _, w, loser in decisive])
        if p_ll < ALPHA:
            reason = f"address likelihood p={p_ll:.2g} over {len(decisive)} decisive votes"
            flags += [Flag(v.id, "address_likelihood", reason) for v in group]
    return flags + _favoritism_flags(group, decisive, rest, "address_favoritism", "address")


def _favoritism_flags(
    group: Sequence[RawVote], decisive: list, rest: dict, name: str, unit: str
) -> list[Flag]:
    found = _favoritism(decisive, rest)
    flags = []
    for model, p, wins, expected in found:
        if p * max(1, len(found)) < ALPHA:
            reason = f"{unit} favours {model}: {wins} wins vs {expected:.1f} expected (p={p:.2g})"
            flags += [Flag(v.id, name, reason) for v in group if model in (v.model_a, v.model_b)]
    return flags
