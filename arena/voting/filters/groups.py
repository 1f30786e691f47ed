"""What a batch vote filter reads and writes: the raw votes of one group (a voter session or a client address)
with the pairwise outcome rates of everyone else, and the flags it raises on them.

A `VoteGroup` computes what several filters share (the decisive votes, the leave-group-out pair totals) once,
when a filter first reads it, so running the filters one by one costs what one combined pass cost.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

__all__ = ["Flag", "PairRates", "PairTotals", "RawVote", "VoteGroup", "group_key", "pair_score"]


@dataclass(frozen=True)
class RawVote:
    """What the batch filters read of a vote."""

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


def group_key(vote: RawVote, grouping: str) -> str | None:
    """The group of `vote` under `grouping` ("session" or "address"); None when it has no address."""
    return vote.session if grouping == "session" else vote.address or None


class PairRates:
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
        """The pair totals of every vote but `group`'s (only the pairs `group` voted on)."""
        own: PairTotals = defaultdict(lambda: [0.0, 0.0])
        for v in group:
            self._add(own, v, 1.0)
        return {k: [self.total[k][0] - own[k][0], self.total[k][1] - own[k][1]] for k in own}

    @staticmethod
    def p_beats(rest: PairTotals, winner: str, loser: str) -> float:
        """P(winner beats loser) from the pair totals `rest`, with one pseudo-win each way."""
        a, b = sorted((winner, loser))
        wins_a, n = rest.get((a, b), [0.0, 0.0])
        p_a = (wins_a + 1.0) / (n + 2.0)
        return p_a if winner == a else 1.0 - p_a


class VoteGroup:
    """One group's votes and what batch filters compare them with, each computed when first read."""

    def __init__(self, votes: Sequence[RawVote], rates: PairRates) -> None:
        self.votes = votes
        self.rates = rates

    @cached_property
    def decisive(self) -> list[tuple[RawVote, str, str]]:
        """(vote, chosen model, other model) of every vote with a winner, in order."""
        out = []
        for v in self.votes:
            if v.winner == "model_a":
                out.append((v, v.model_a, v.model_b))
            elif v.winner == "model_b":
                out.append((v, v.model_b, v.model_a))
        return out

    @cached_property
    def rest(self) -> PairTotals:
        """The pair totals of everyone else (so a group's own votes never vouch for themselves)."""
        return self.rates.without(self.votes)

    @cached_property
    def sessions(self) -> int:
        """How many voter sessions cast the group's votes."""
        return len({v.session for v in self.votes})
