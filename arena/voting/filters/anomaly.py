"""Anomalous-voter filters, run in batch over all raw votes (a re-run replaces their verdicts); five batch
filters of one family ("anomaly", one version), registered in `arena.voting.filters.registry`.

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
from functools import cache

from arena.voting.filters.groups import Flag, PairRates, PairTotals, RawVote, VoteGroup, group_key
from arena.voting.filters.protocol import GROUPINGS, BatchFilter

__all__ = ["ANOMALY_FILTERS", "FILTERS", "RawVote", "find_anomalies", "likelihood_p_value"]

ALPHA = 1e-3
MIN_VOTES = 10
MIN_MODEL_VOTES = 5
MIN_SESSIONS = 3
VERSION = "1"
FAMILY = (
    "anomaly"  # the five filters share one version, shown once as "anomaly<VERSION>" in the filter version
)
LABEL = "unusual voting pattern"


def normal_cdf(z: float) -> float:
    """The standard normal CDF at `z`: scipy's `ndtr` ufunc, which is what `scipy.stats.norm.cdf` computes
    (``norm.sf(z)`` is ``ndtr(-z)``) without its argument checks and broadcasting (about 50 times slower per
    scalar, and run once per session, address and model by a first batch run over the whole history)."""
    from scipy.special import ndtr

    return float(ndtr(z))


@cache
def same_side_p_value(left: int, n: int) -> float:
    """Two-sided p-value of `left` left picks in `n` fair coin flips (`scipy.stats.binomtest`), cached: sessions
    share a few hundred (left, n) pairs, and each test costs a binomial search of about a millisecond."""
    from scipy.stats import binomtest

    return float(binomtest(left, n, 0.5).pvalue)


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
    return normal_cdf((ll - mean) / math.sqrt(var))


def _favoritism(
    decisive: list[tuple[RawVote, str, str]], rest: PairTotals
) -> list[tuple[str, float, int, float]]:
    """Per model in the group's votes: (model, one-sided p of too many wins, wins, expected wins)."""
    stats: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for _, winner, loser in decisive:
        p = PairRates.p_beats(rest, winner, loser)
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
        out.append((model, normal_cdf(-(wins - expected) / math.sqrt(var)), int(wins), expected))
    return out


def _likelihood_flags(group: VoteGroup, name: str, unit: str) -> list[Flag]:
    decisive = group.decisive
    p_ll = likelihood_p_value([PairRates.p_beats(group.rest, w, loser) for _, w, loser in decisive])
    if p_ll >= ALPHA:
        return []
    reason = f"{unit} likelihood p={p_ll:.2g} over {len(decisive)} decisive votes"
    return [Flag(v.id, name, reason) for v in group.votes]


def _favoritism_flags(group: VoteGroup, name: str, unit: str) -> list[Flag]:
    found = _favoritism(group.decisive, group.rest)
    flags = []
    for model, p, wins, expected in found:
        if p * max(1, len(found)) < ALPHA:
            reason = f"{unit} favours {model}: {wins} wins vs {expected:.1f} expected (p={p:.2g})"
            flags += [Flag(v.id, name, reason) for v in group.votes if model in (v.model_a, v.model_b)]
    return flags


def _tested_session(group: VoteGroup) -> bool:
    return len(group.decisive) >= MIN_VOTES


def _tested_address(group: VoteGroup) -> bool:
    return group.sessions >= MIN_SESSIONS


def likelihood(group: VoteGroup) -> list[Flag]:
    """A session whose chosen images were too unlikely under everyone else's outcome rates."""
    return _likelihood_flags(group, "likelihood", "session") if _tested_session(group) else []


def same_side(group: VoteGroup) -> list[Flag]:
    """A session that picks one side (left or right) too often for a fair coin."""
    if not _tested_session(group):
        return []
    decisive = group.decisive
    left = sum(1 for v, w, _ in decisive if (v.a_side == "left") == (w == v.model_a))
    p_side = same_side_p_value(left, len(decisive))
    if p_side >= ALPHA:
        return []
    reason = f"chose the left image {left} of {len(decisive)} times (p={p_side:.2g})"
    return [Flag(v.id, "same_side", reason) for v in group.votes]


def favoritism(group: VoteGroup) -> list[Flag]:
    """A session whose votes make one model win far more than everyone else's rates expect."""
    return _favoritism_flags(group, "favoritism", "session") if _tested_session(group) else []


def address_likelihood(group: VoteGroup) -> list[Flag]:
    """The likelihood rule over every vote of an address with at least MIN_SESSIONS sessions."""
    if not _tested_address(group) or len(group.decisive) < MIN_VOTES:
        return []
    return _likelihood_flags(group, "address_likelihood", "address")


def address_favoritism(group: VoteGroup) -> list[Flag]:
    """The favoritism rule over every vote of an address with at least MIN_SESSIONS sessions."""
    return _favoritism_flags(group, "address_favoritism", "address") if _tested_address(group) else []


ANOMALY_FILTERS = tuple(
    BatchFilter(name, VERSION, LABEL, grouping, check, family=FAMILY)
    for name, grouping, check in (
        ("likelihood", "session", likelihood),
        ("same_side", "session", same_side),
        ("favoritism", "session", favoritism),
        ("address_likelihood", "address", address_likelihood),
        ("address_favoritism", "address", address_favoritism),
    )
)
FILTERS = tuple(f.name for f in ANOMALY_FILTERS)


def find_anomalies(votes: Sequence[RawVote], filters: Sequence[BatchFilter] = ANOMALY_FILTERS) -> list[Flag]:
    """Every vote the batch `filters` reject among `votes` held in memory, with the filter and the reason
    (what a first batch run over the same votes writes)."""
    rates = PairRates(votes)
    flags: list[Flag] = []
    for grouping in GROUPINGS:
        mine = [f for f in filters if f.grouping == grouping]
        groups: dict[str, list[RawVote]] = defaultdict(list)
        for v in votes:
            key = group_key(v, grouping)
            if key is not None:
                groups[key].append(v)
        for group_votes in groups.values():
            group = VoteGroup(group_votes, rates)
            flags += [flag for f in mine for flag in f.evaluate(group)]
    return flags
