"""The human-human agreement ceiling: how often two people who voted on the same pair of images agree. Shown
beside the judge's agreement with people, it says how much agreement there is to be had: a judge cannot be
expected to agree with a voter more often than voters agree with each other.

Which votes: the kept votes (no filter verdict against them) of the run's modality and board, simulated votes
only when the run included them. A *matchup* here is one pair of outputs of one prompt (either screen order, either
model called A); its *voters* are distinct voting sessions, one vote each (a session's first vote on the pair).
Every pair of voters of a matchup is compared; two votes agree when they give the same outcome (A, B or tie, the
three outcomes the judge's agreement uses; "both bad" is a tie).

The rate is the mean over matchups of each matchup's share of agreeing voter pairs (with two voters: 1 or 0), so
a matchup many people voted on weighs as much as one with two voters. Its interval is Wilson's with one
observation per matchup: exact Wilson on pairs when every matchup has two voters, and conservative otherwise (a
share in [0, 1] varies no more than a 0/1 outcome of the same mean). The decisive variant compares only the pairs
in which neither voter chose a tie, as the judge's decisive agreement leaves out the matchups where either side
is a tie.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import Engine, select

from arena.db.tables import Vote
from arena.judge.orders import A_WINS, B_WINS, TIE
from arena.voting.kept_votes import kept_filter
from ratings.proportions import wilson_interval

__all__ = ["NO_CEILING", "Ceiling", "VoterAgreement", "human_ceiling", "voter_agreement"]

NO_CEILING = "no matchup has two voters yet"


@dataclass(frozen=True)
class VoterAgreement:
    """Agreement between pairs of voters of the same matchups (see the module docstring)."""

    matchups: int  # matchups with at least one compared pair of voters
    pairs: int
    agreeing_pairs: int
    rate: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-safe (nan becomes None)."""
        return {
            k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in self.__dict__.items()
        }


@dataclass(frozen=True)
class Ceiling:
    """All outcomes and decisive pairs only, with the message shown when no matchup has two voters."""

    all: VoterAgreement
    decisive: VoterAgreement
    votes: int  # kept votes read
    message: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe."""
        return {
            "all": self.all.to_dict(),
            "decisive": self.decisive.to_dict(),
            "votes": self.votes,
            "message": self.message,
            "interval": "Wilson, one observation per matchup",
        }


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def _measure(shares: list[tuple[int, int]], level: float) -> VoterAgreement:
    """(agreeing pairs, pairs) per matchup with pairs > 0 -> the mean share and its Wilson interval."""
    nan = float("nan")
    if not shares:
        return VoterAgreement(0, 0, 0, nan, nan, nan)
    total = sum(a / p for a, p in shares)
    low, high = wilson_interval(total, len(shares), level)
    return VoterAgreement(
        len(shares),
        sum(p for _, p in shares),
        sum(a for a, _ in shares),
        total / len(shares),
        low,
        high,
    )


def voter_agreement(
    tallies: Iterable[tuple[int, int, int]], level: float = 0.95
) -> tuple[VoterAgreement, VoterAgreement]:
    """(all outcomes, decisive pairs) from each matchup's tally of its voters' outcomes (A, B, tie)."""
    everything, decisive = [], []
    for a, b, t in tallies:
        if _pairs(a + b + t):
            everything.append((_pairs(a) + _pairs(b) + _pairs(t), _pairs(a + b + t)))
        if _pairs(a + b):
            decisive.append((_pairs(a) + _pairs(b), _pairs(a + b)))
    return _measure(everything, level), _measure(decisive, level)


def _board_clauses(board: str) -> list[Any]:
    kind, _, value = board.partition("=")
    if kind == "use_case":
        return [Vote.use_case == value]
    if kind == "capability":
        return [Vote.capability == value]
    return []


def human_ceiling(
    engine: Engine,
    modality: str,
    *,
    board: str = "overall",
    include_simulated: bool = False,
    level: float = 0.95,
) -> Ceiling:
    """The human-human ceiling over the kept votes of one modality and board (``overall``, ``use_case=SLUG``
    or ``capability=SLUG``)."""
    query = (
        select(
            Vote.prompt_id,
            Vote.model_a,
            Vote.model_b,
            Vote.winner,
            Vote.session_id,
            Vote.left_output_id,
            Vote.right_output_id,
        )
        .where(*kept_filter(modality, include_simulated=include_simulated), *_board_clauses(board))
        .order_by(Vote.id)
    )
    seen: set[tuple[Any, ...]] = set()
    tallies: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0, 0])
    votes = 0
    with engine.connect() as conn:
        for prompt, model_a, model_b, winner, session, left, right in conn.execute(query):
            votes += 1
            first = min(model_a, model_b)
            outputs = None if left is None or right is None else tuple(sorted((left, right)))
            key = (prompt, first, max(model_a, model_b), outputs)
            if (key, session) in seen:  # one vote per voter and matchup: the first
                continue
            seen.add((key, session))
            if winner in ("tie", "tie (bothbad)"):
                tallies[key][TIE] += 1
            else:
                won = model_a if winner == "model_a" else model_b
                tallies[key][A_WINS if won == first else B_WINS] += 1
    everything, decisive = voter_agreement(((a, b, t) for a, b, t in tallies.values()), level)
    return Ceiling(everything, decisive, votes, None if everything.matchups else NO_CEILING)
