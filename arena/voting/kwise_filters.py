"""Batch filters for K-wise votes: the pairwise anomaly rules on the pairs each ranking implies, and a ranking
anomaly, a voter session that ranks by screen position (`ratings.ranking_anomaly.position_bias`).

A full re-run over a modality's K-wise votes replaces their batch verdicts (the online verdicts, written with
each vote, stay). The anomaly rules (`arena.voting.filters.anomaly`: likelihood, favoritism, their per-address
forms) read each ranking as the K (K - 1) / 2 pairwise wins it implies, the better-ranked image winning, with
"left" meaning the lower screen position; all-equal votes imply ties. Those pairs are not independent (one
ranking gives six), so the rules' tests are somewhat anti-conservative on rankings: a flagged session must
still be far outside what everyone else's outcome rates expect, but the nominal level is not exact. The
pairwise same-side rule is not applied: on rankings, ranking by position is what the position test measures
exactly.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, delete, insert, select

from arena.db.tables import KwiseVerdict, KwiseVote
from arena.voting.filters.anomaly import ALPHA, ANOMALY_FILTERS, LABEL, MIN_VOTES, find_anomalies
from arena.voting.filters.groups import Flag, RawVote
from ratings.ranking_anomaly import position_bias

__all__ = ["POSITION", "KwiseRow", "filter_kwise", "kwise_flags"]

POSITION = "kwise_position"
POSITION_VERSION = "1"
POSITION_LABEL = "ranked by screen position"
PAIR_RULES = tuple(f for f in ANOMALY_FILTERS if f.name != "same_side")
VOTES = KwiseVote.__table__  # type: ignore[attr-defined]
VERDICTS = KwiseVerdict.__table__  # type: ignore[attr-defined]
#: Every batch filter name a K-wise run writes (its verdicts are the ones a re-run replaces).
BATCH_NAMES = (*(f.name for f in PAIR_RULES), POSITION)
LABELS = {**{f.name: LABEL for f in PAIR_RULES}, POSITION: POSITION_LABEL}


@dataclass(frozen=True)
class KwiseRow:
    """What the K-wise batch filters read of a vote."""

    id: int
    session: str
    address: str | None
    models: tuple[str, ...]  # by screen position
    ranking: tuple[str, ...]  # best first; empty when all about equal


def implied_pairs(row: KwiseRow) -> list[RawVote]:
    """The pairwise votes a ranking implies (the better-ranked image wins; ties for all-equal), each carrying the
    ranking's id, with "left" the lower screen position."""
    out = []
    place = {m: i for i, m in enumerate(row.ranking)}
    k = len(row.models)
    for i in range(k):
        for j in range(i + 1, k):
            left, right = row.models[i], row.models[j]
            a, b = sorted((left, right))
            if not row.ranking:
                winner = "tie"
            else:
                better = left if place[left] < place[right] else right
                winner = "model_a" if better == a else "model_b"
            a_side = "left" if a == left else "right"
            out.append(RawVote(row.id, row.session, row.address, a, b, winner, a_side))
    return out


def kwise_flags(rows: Sequence[KwiseRow]) -> list[Flag]:
    """Every flag the K-wise batch filters raise on these votes (a vote may be flagged by several filters)."""
    pairs = [p for r in rows for p in implied_pairs(r)]
    flags = list({(f.vote_id, f.filter): f for f in find_anomalies(pairs, PAIR_RULES)}.values())
    sessions: dict[str, list[KwiseRow]] = defaultdict(list)
    for r in rows:
        if r.ranking:
            sessions[r.session].append(r)
    for session_rows in sessions.values():
        if len(session_rows) < MIN_VOTES:
            continue
        ids = {m: i for i, m in enumerate(sorted({m for r in session_rows for m in r.models}))}
        bias = position_bias(
            [[ids[m] for m in r.ranking] for r in session_rows],
            [[ids[m] for m in r.models] for r in session_rows],
        )
        if bias.p_value < ALPHA:
            way = "first shown ranked best" if bias.forward else "last shown ranked best"
            reason = f"{bias.n_identical} of {bias.n_rankings} rankings in screen order ({way}; p={bias.p_value:.2g})"
            flags += [Flag(r.id, POSITION, reason) for r in session_rows]
    return flags


def filter_kwise(conn: Connection, modality: str, now: datetime) -> int:
    """Re-run the K-wise batch filters over every K-wise vote of `modality` and replace their batch verdicts;
    returns how many votes they filter."""
    rows = [
        KwiseRow(r.id, r.session_id, r.client_hash, tuple(r.models), tuple(r.ranking))
        for r in conn.execute(
            select(VOTES.c.id, VOTES.c.session_id, VOTES.c.client_hash, VOTES.c.models, VOTES.c.ranking)
            .where(VOTES.c.modality == modality)
            .order_by(VOTES.c.id)
        ).all()
    ]
    flags = kwise_flags(rows)
    ids = [r.id for r in rows]
    for start in range(0, len(ids), 5000):
        part = ids[start : start + 5000]
        conn.execute(delete(VERDICTS).where(VERDICTS.c.vote_id.in_(part), VERDICTS.c.filter.in_(BATCH_NAMES)))
    versions = {**{f.name: f.version for f in PAIR_RULES}, POSITION: POSITION_VERSION}
    if flags:
        conn.execute(
            insert(VERDICTS),
            [
                {
                    "vote_id": f.vote_id,
                    "filter": f.filter,
                    "filter_version": versions[f.filter],
                    "kept": False,
                    "reason": f.reason[:500],
                    "decided_at": now,
                }
                for f in flags
            ],
        )
    return len({f.vote_id for f in flags})
