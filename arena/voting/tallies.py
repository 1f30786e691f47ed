"""Vote tallies kept up to date incrementally: per group of everything a board reads (cell, pair, outcome,
methodology, source, prompt), how many votes there are and how many are kept (no verdict filters them).

Why: the rating job and the batch filters used to count every stored vote at every run, so a run's time grew
with the whole history (25 s at 5 million votes on SQLite before the fit even started). Here each run counts
only the votes stored since the last one, and the batch filters adjust the kept counts of the votes whose
verdicts they change, so a run costs the same at 20 million votes as at 20 thousand.

Exactness: the mark records the last vote id counted and the `gaps`, ids below it that were not committed yet
when it counted (PostgreSQL hands out ids before a transaction commits, so a vote may appear below the mark
later); a gap is counted when its vote appears. Gaps more than `HORIZON` ids below the newest vote are dropped:
they are ids of rolled-back inserts (a duplicate vote), since a vote's transaction is a few statements long.
Counting and verdict changes take one lock (`tally_lock`), so two jobs never count a vote twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, case, false, func, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from arena.db.tables import TallyMark, Vote, VoteTally, VoteVerdict, utcnow
from arena.voting.kept_votes import filtered_clause

#: Ids below the newest vote within which a missing id may still be a transaction in flight.
HORIZON = 2000
#: Vote ids counted per transaction (a first run over a long history holds the write lock briefly each time).
CHUNK = 200_000
MARK = "votes"
#: Columns of a tally group, in the order of `VoteTally`'s primary key.
GROUP = (
    Vote.modality,
    Vote.use_case,
    Vote.capability,
    Vote.model_a,
    Vote.model_b,
    Vote.winner,
    Vote.methodology,
    Vote.source,
    Vote.prompt_id,
)
_KEYS = (
    "modality",
    "use_case",
    "capability",
    "model_a",
    "model_b",
    "winner",
    "methodology",
    "source",
    "prompt_id",
)
_LOCK_KEY = 0x7A11  # PostgreSQL advisory lock of tally counting and verdict changes


def tally_lock(conn: Connection) -> None:
    """Serialise tally counting and verdict changes until the transaction ends (PostgreSQL: an advisory lock;
    SQLite: take the write lock now, so every read of the transaction sees what it will write over)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK_KEY})")
    else:
        conn.execute(update(TallyMark).where(TallyMark.name == MARK).values(name=MARK))


def read_mark(conn: Connection) -> tuple[int, list[int]]:
    """(last vote id counted, ids below it not counted yet)."""
    row = conn.execute(select(TallyMark.last_vote_id, TallyMark.gaps).where(TallyMark.name == MARK)).first()
    return (int(row[0]), [int(g) for g in row[1] or []]) if row else (0, [])


def _save_mark(conn: Connection, last: int, gaps: list[int], exists_already: bool) -> None:
    values = {"last_vote_id": last, "gaps": gaps, "counted_at": utcnow()}
    if exists_already:
        conn.execute(update(TallyMark).where(TallyMark.name == MARK).values(values))
    else:
        conn.execute(insert(TallyMark).values(name=MARK, **values))


def _upsert(conn: Connection, rows: Sequence[dict[str, Any]]) -> None:
    """Add `rows` (group keys, `votes`, `kept` deltas) to the tallies."""
    if not rows:
        return
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(VoteTally)
    stmt = stmt.on_conflict_do_update(
        index_elements=list(_KEYS),
        set_={"votes": VoteTally.votes + stmt.excluded.votes, "kept": VoteTally.kept + stmt.excluded.kept},
    )
    for start in range(0, len(rows), 5000):
        conn.execute(stmt, list(rows[start : start + 5000]))


def _count(conn: Connection, where: Any) -> int:
    """Add the votes matching `where` to the tallies; returns how many votes were added."""
    kept = case((filtered_clause(), 0), else_=1)
    rows = [
        {**dict(zip(_KEYS, keys, strict=True)), "votes": int(n), "kept": int(k)}
        for *keys, n, k in conn.execute(
            select(*GROUP, func.count(), func.sum(kept)).where(where).group_by(*GROUP)
        ).all()
    ]
    _upsert(conn, rows)
    return sum(r["votes"] for r in rows)


def update_tallies(engine: Engine, *, chunk: int = CHUNK) -> int:
    """Count the votes stored since the last run (and late ones below it); returns how many were added."""
    added = 0
    while True:
        with engine.begin() as conn:
            tally_lock(conn)
            had_mark = conn.execute(select(TallyMark.name).where(TallyMark.name == MARK)).first() is not None
            last, gaps = read_mark(conn)
            top = int(conn.execute(select(func.max(Vote.id))).scalar() or 0)
            high = min(top, last + chunk)
            window = max(last, top - HORIZON)  # above this, a missing id may still commit
            present = [int(i) for i in conn.scalars(select(Vote.id).where(Vote.id > window, Vote.id <= high))]
            found = [int(i) for i in conn.scalars(select(Vote.id).where(Vote.id.in_(gaps)))] if gaps else []
            parts = [and_(Vote.id > last, Vote.id <= min(window, high))]
            if present:
                parts.append(Vote.id.in_(present))
            if found:
                parts.append(Vote.id.in_(found))
            added += _count(conn, or_(*parts))
            seen = set(present) | set(found)
            still = {g for g in gaps if g not in seen and g > top - HORIZON}
            still |= {i for i in range(window + 1, high + 1) if i not in seen}
            _save_mark(conn, max(last, high), sorted(still), had_mark)
        if high >= top:
            return added


def counted(conn: Connection, vote_ids: Iterable[int]) -> list[int]:
    """The ids among `vote_ids` that the tallies have counted (call with the tally lock held)."""
    last, gaps = read_mark(conn)
    missing = set(gaps)
    return [i for i in vote_ids if i <= last and i not in missing]


def filtered_ids(conn: Connection, vote_ids: Sequence[int]) -> set[int]:
    """The ids among `vote_ids` that some verdict filters."""
    if not vote_ids:
        return set()
    return {
        int(i)
        for (i,) in conn.execute(
            select(VoteVerdict.vote_id)
            .where(VoteVerdict.vote_id.in_(vote_ids), VoteVerdict.kept == false())
            .distinct()
        )
    }


def move_kept(conn: Connection, now_filtered: Sequence[int], now_kept: Sequence[int]) -> None:
    """Adjust the kept counts after verdicts changed: `now_filtered` votes no longer count, `now_kept` do
    again. Only votes already counted are adjusted (the rest are counted with their verdicts later)."""
    for ids, sign in ((counted(conn, now_filtered), -1), (counted(conn, now_kept), +1)):
        for start in range(0, len(ids), 5000):
            part = ids[start : start + 5000]
            rows = [
                {**dict(zip(_KEYS, keys, strict=True)), "votes": 0, "kept": sign * int(n)}
                for *keys, n in conn.execute(
                    select(*GROUP, func.count()).where(Vote.id.in_(part)).group_by(*GROUP)
                ).all()
            ]
            _upsert(conn, rows)


def pair_outcomes(conn: Connection, modality: str) -> list[tuple[str, str, str, int]]:
    """Every counted vote of `modality` (filtered or not) per (model_a, model_b, winner)."""
    return [
        (a, b, w, int(n))
        for a, b, w, n in conn.execute(
            select(VoteTally.model_a, VoteTally.model_b, VoteTally.winner, func.sum(VoteTally.votes))
            .where(VoteTally.modality == modality)
            .group_by(VoteTally.model_a, VoteTally.model_b, VoteTally.winner)
        ).all()
    ]


def kept_groups(conn: Connection, modality: str, *, include_simulated: bool) -> list[Any]:
    """Kept votes of `modality` per (use case, capability, model_a, model_b, winner, methodology, prompt) with the
    count, ordered like that: the rows `vote_counts.grouped_kept_votes(by_prompt=True)` reads from the votes
    themselves. The prompt lets the boards' intervals resample prompts (rows grow with prompts, not votes)."""
    cols = (
        VoteTally.use_case,
        VoteTally.capability,
        VoteTally.model_a,
        VoteTally.model_b,
        VoteTally.winner,
        VoteTally.methodology,
        VoteTally.prompt_id,
    )
    clauses = [VoteTally.modality == modality]
    if not include_simulated:
        clauses.append(VoteTally.source != "simulated")
    total = func.sum(VoteTally.kept)
    return list(
        conn.execute(
            select(*cols, total).where(*clauses).group_by(*cols).having(total > 0).order_by(*cols)
        ).all()
    )


def counted_at(conn: Connection) -> datetime | None:
    """When the tallies last counted."""
    return conn.execute(select(TallyMark.counted_at).where(TallyMark.name == MARK)).scalar()
