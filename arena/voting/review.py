"""What operators review about votes: kept and filtered counts per filter and day, and the flagged voter
sessions and client addresses with the filters' evidence (test statistics, example votes).

Sessions and addresses are shown as keyed pseudonyms (never the stored value, and never a raw address -
only its keyed hash is stored in the first place), stable within one instance so operators can follow one.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, and_, exists, func, select

from arena.db.tables import Vote, VoteVerdict
from arena.voting.filters.registry import REGISTRY

EXAMPLES = 5


def pseudonym(secret: str, kind: str, value: str) -> str:
    """A short keyed pseudonym for a voter session or an address hash."""
    digest = hmac.new(secret.encode(), f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()
    return f"{kind[0]}-{digest[:10]}"


def daily_counts(engine: Engine, *, now: datetime, days: int = 30) -> dict[str, Any]:
    """Per day (UTC) of the last `days`: votes, kept votes, and votes filtered by each filter (a vote
    filtered by two filters counts under both; `kept` counts it once)."""
    since = now - timedelta(days=days)
    day = func.date(Vote.voted_at)
    filtered_any = exists().where(and_(VoteVerdict.vote_id == Vote.id, VoteVerdict.kept == False))  # noqa: E712
    with engine.connect() as conn:
        totals = conn.execute(select(day, func.count()).where(Vote.voted_at >= since).group_by(day)).all()
        kept = conn.execute(
            select(day, func.count()).where(Vote.voted_at >= since, ~filtered_any).group_by(day)
        ).all()
        per_filter = conn.execute(
            select(day, VoteVerdict.filter, func.count(func.distinct(Vote.id)))
            .join(VoteVerdict, VoteVerdict.vote_id == Vote.id)
            .where(Vote.voted_at >= since, VoteVerdict.kept == False)  # noqa: E712
            .group_by(day, VoteVerdict.filter)
        ).all()
    days_seen = sorted({str(d) for d, _ in totals})
    filters = sorted({f for _, f, _ in per_filter})
    by_filter: dict[str, dict[str, int]] = defaultdict(dict)
    for d, name, n in per_filter:
        by_filter[name][str(d)] = int(n)
    kept_by_day = {str(d): int(n) for d, n in kept}
    return {
        "days": days_seen,
        "votes": [int(n) for _, n in sorted((str(d), n) for d, n in totals)],
        "kept": [kept_by_day.get(d, 0) for d in days_seen],
        "filtered": {name: [by_filter[name].get(d, 0) for d in days_seen] for name in filters},
    }


def flagged_groups(engine: Engine, secret: str, *, limit: int = 50) -> list[dict[str, Any]]:
    """Voter sessions and addresses the batch filters flagged, grouped as each filter groups votes: each
    filter's evidence, how many votes it filtered, and a few example votes (time, prompt, models, outcome)."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                VoteVerdict.filter,
                VoteVerdict.reason,
                Vote.id,
                Vote.session_id,
                Vote.client_hash,
                Vote.voted_at,
                Vote.prompt_id,
                Vote.model_a,
                Vote.model_b,
                Vote.winner,
            )
            .join(Vote, Vote.id == VoteVerdict.vote_id)
            .where(VoteVerdict.kept == False, VoteVerdict.filter.in_(REGISTRY.batch_names()))  # type: ignore[attr-defined]  # noqa: E712
            .order_by(Vote.voted_at.desc())  # type: ignore[attr-defined]
        ).all()
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for name, reason, vote_id, session_id, client_hash, voted_at, prompt_id, a, b, winner in rows:
        kind, value = (
            ("address", client_hash or "none")
            if REGISTRY.grouping(name) == "address"
            else ("session", session_id)
        )
        group = groups.setdefault(
            (kind, value),
            {
                "kind": kind,
                "who": pseudonym(secret, kind, value),
                "evidence": {},
                "votes": set(),
                "examples": [],
            },
        )
        group["evidence"].setdefault(name, reason)
        if vote_id not in group["votes"]:
            group["votes"].add(vote_id)
            if len(group["examples"]) < EXAMPLES:
                outcome = a if winner == "model_a" else b if winner == "model_b" else winner
                group["examples"].append(
                    {"at": str(voted_at)[:19], "prompt": prompt_id, "pair": f"{a} vs {b}", "outcome": outcome}
                )
    out = [g | {"votes": len(g["votes"])} for g in groups.values()]
    out.sort(key=lambda g: -g["votes"])
    return out[:limit]
