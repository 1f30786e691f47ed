"""Run the batch (anomaly) filters over every raw vote and replace their verdicts in one transaction."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from sqlalchemy import Engine, delete, insert, select

from arena.db.tables import Vote, VoteVerdict, utcnow
from arena.voting.anomaly import FILTERS, VERSION, RawVote, find_anomalies


def run_batch_filters(
    engine: Engine, *, modality: str | None = None, now: datetime | None = None
) -> Counter[str]:
    """Recompute anomaly verdicts for all votes (of one modality, or all); returns filtered counts per filter.

    Votes are never touched: only verdict rows of the batch filters are deleted and rewritten.
    """
    now = now or utcnow()
    counts: Counter[str] = Counter()
    with engine.begin() as conn:
        modalities = (
            [modality] if modality else [m for (m,) in conn.execute(select(Vote.modality).distinct())]
        )
        for mod in modalities:
            rows = conn.execute(
                select(
                    Vote.id,
                    Vote.session_id,
                    Vote.client_hash,
                    Vote.model_a,
                    Vote.model_b,
                    Vote.winner,
                    Vote.a_side,
                ).where(Vote.modality == mod)
            ).all()
            votes = [RawVote(*row) for row in rows]
            flags = find_anomalies(votes)
            ids = [v.id for v in votes]
            for start in range(0, len(ids), 5000):
                conn.execute(
                    delete(VoteVerdict).where(
                        VoteVerdict.vote_id.in_(ids[start : start + 5000]),  # type: ignore[attr-defined]
                        VoteVerdict.filter.in_(FILTERS),  # type: ignore[attr-defined]
                    )
                )
            seen: set[tuple[int, str]] = set()
            rows_out = []
            for flag in flags:
                if (flag.vote_id, flag.filter) in seen:
                    continue
                seen.add((flag.vote_id, flag.filter))
                counts[flag.filter] += 1
                rows_out.append(
                    {
                        "vote_id": flag.vote_id,
                        "filter": flag.filter,
                        "filter_version": VERSION,
                        "kept": False,
                        "reason": flag.reason,
                        "decided_at": now,
                    }
                )
            if rows_out:
                conn.execute(insert(VoteVerdict), rows_out)
    return counts
