"""Run the registered batch filters (`arena.voting.filters.registry`), incrementally: only sessions and client
addresses with votes newer than the last run are re-examined, their votes loaded a chunk of groups at a time,
and only their verdicts replaced.

Outcome rates over every vote of a modality (what the filters compare a group with) are read from the vote
tallies (`arena.voting.tallies`, counted first), so memory depends on the largest group and the number of model
pairs, not on the number of votes; verdict changes move the changed votes in the tallies' kept counts. A group
without new votes keeps the verdicts of the run that last examined it; `full=True` (`arena votes filter`)
re-examines every group, as does the first run and any run after the batch filters' version changed (a batch
filter added, removed or given a new version).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, insert, select, update

from arena.db.tables import BatchFilterMark, Vote, VoteTally, VoteVerdict, utcnow
from arena.voting.clearing import cleared_reason, operator_cleared
from arena.voting.filters.groups import Flag, PairRates, PairTotals, RawVote, VoteGroup, pair_score
from arena.voting.filters.protocol import GROUPINGS, BatchFilter, Grouping
from arena.voting.filters.registry import REGISTRY
from arena.voting.tallies import filtered_ids, move_kept, pair_outcomes, tally_lock, update_tallies

#: Groups whose votes are loaded together (bounds memory by this many groups' votes).
CHUNK = 2000
#: Ids re-examined below the last mark: a vote whose id was taken before the last run but committed after it
#: (concurrent inserts commit out of id order) is still seen. Far more than the inserts ever in flight at once.
ID_OVERLAP = 1000
RAW_COLUMNS = (
    Vote.id,
    Vote.session_id,
    Vote.client_hash,
    Vote.model_a,
    Vote.model_b,
    Vote.winner,
    Vote.a_side,
)
#: The column holding each grouping's key.
GROUP_COLUMNS = {"session": Vote.session_id, "address": Vote.client_hash}


def pair_totals(conn: Connection, modality: str) -> PairRates:
    """Every counted vote of `modality` summed per sorted model pair (score of the first model, votes), read
    from the vote tallies (a few thousand rows, whatever the number of votes)."""
    total: PairTotals = {}
    for a, b, winner, n in pair_outcomes(conn, modality):
        key, score = pair_score(a, b, winner)
        cell = total.setdefault(key, [0.0, 0.0])
        cell[0] += score * n
        cell[1] += n
    return PairRates(total=total)


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _replace(
    conn: Connection, ids: list[int], flags: list[Flag], filters: tuple[BatchFilter, ...], now: datetime
) -> Counter[str]:
    """Replace the verdicts of `filters` on the votes `ids` by `flags` (a vote flagged twice by one filter
    keeps the first reason), and move the votes whose kept state changed in the vote tallies."""
    versions = {f.name: f.version for f in filters}
    before = set()
    cleared: set[tuple[int, str]] = set()  # verdicts an operator cleared stay cleared (arena.voting.clearing)
    for part in _chunks(ids, 5000):
        before |= filtered_ids(conn, part)
        cleared |= operator_cleared(conn, list(part))
        conn.execute(
            delete(VoteVerdict).where(
                VoteVerdict.vote_id.in_(part),  # type: ignore[attr-defined]
                VoteVerdict.filter.in_(versions),  # type: ignore[attr-defined]
            )
        )
    seen: set[tuple[int, str]] = set()
    rows, counts = [], Counter[str]()
    for flag in flags:
        if (flag.vote_id, flag.filter) in seen:
            continue
        seen.add((flag.vote_id, flag.filter))
        counts[flag.filter] += 1
        rows.append(
            {
                "vote_id": flag.vote_id,
                "filter": flag.filter,
                "filter_version": versions[flag.filter],
                "kept": (flag.vote_id, flag.filter) in cleared,
                "reason": cleared_reason(flag.reason)
                if (flag.vote_id, flag.filter) in cleared
                else flag.reason,
                "decided_at": now,
            }
        )
    if rows:
        conn.execute(insert(VoteVerdict), rows)
    after = set()
    for part in _chunks(ids, 5000):
        after |= filtered_ids(conn, part)
    move_kept(conn, sorted(after - before), sorted(before - after))
    return counts


#: `progress(stage, groups done, groups of the stage)`, e.g. ("text_to_image sessions", 4000, 120000).
FilterProgress = Callable[[str, int, int], None]


def _examine(
    engine: Engine,
    modality: str,
    grouping: Grouping,
    keys: list[str],
    rates: PairRates,
    now: datetime,
    progress: FilterProgress | None = None,
) -> Counter[str]:
    """Re-run the batch filters of one grouping (by session or by address) on the groups `keys`, one
    transaction per chunk of groups (so SQLite's write lock is held for one chunk at a time, never the whole
    run); `progress` hears after each chunk."""
    filters = REGISTRY.batch(grouping)
    column = GROUP_COLUMNS[grouping]
    by_session = grouping == "session"
    counts: Counter[str] = Counter()
    stage = f"{modality} {'sessions' if by_session else 'addresses'} filtered"
    done = 0
    if progress is not None and keys:
        progress(stage, 0, len(keys))
    for part in _chunks(keys, CHUNK):
        with engine.begin() as conn:
            tally_lock(conn)
            groups: dict[str, list[RawVote]] = {}
            ids: list[int] = []
            for row in conn.execute(
                select(*RAW_COLUMNS).where(Vote.modality == modality, column.in_(part)).order_by(Vote.id)
            ):
                vote = RawVote(*row)
                groups.setdefault(vote.session if by_session else vote.address or "", []).append(vote)
                ids.append(vote.id)
            flags: list[Flag] = []
            for votes in groups.values():
                group = VoteGroup(votes, rates)  # what the filters share, computed once per group
                for f in filters:
                    flags += f.evaluate(group)
            counts += _replace(conn, ids, flags, filters, now)
        done += len(part)
        if progress is not None:
            progress(stage, done, len(keys))
    return counts


def run_batch_filters(
    engine: Engine,
    *,
    modality: str | None = None,
    now: datetime | None = None,
    full: bool = False,
    progress: FilterProgress | None = None,
) -> Counter[str]:
    """Update the registered batch filters' verdicts for the groups with new votes (or all groups with `full`);
    returns how many verdicts each filter wrote in this run. Votes are never touched, only batch verdict rows.
    `progress(stage, done, total)` hears after each chunk of groups (a first run examines every group)."""
    now = now or utcnow()
    version = REGISTRY.batch_version()
    counts: Counter[str] = Counter()
    update_tallies(engine)  # the pair totals below read them
    with engine.connect() as conn:
        modalities = (
            [modality] if modality else [m for (m,) in conn.execute(select(VoteTally.modality).distinct())]
        )
    for mod in modalities:
        with engine.connect() as conn:
            # the newest vote of any modality: a primary-key look-up (a modality's own newest vote would read
            # the modality index end to end); every vote of `mod` up to it is examined below
            last = conn.execute(select(func.max(Vote.id))).scalar()
            if last is None:
                continue
            mark = conn.execute(select(BatchFilterMark).where(BatchFilterMark.modality == mod)).first()
            since = (
                -1
                if full or mark is None or mark.filter_version != version
                else mark.last_vote_id - ID_OVERLAP
            )
            rates = pair_totals(conn, mod)
            found: dict[Grouping, set[str]] = {"session": set(), "address": set()}
            sessions_set, addresses_set = found["session"], found["address"]
            # only the id range in the WHERE clause: with `modality = ?` beside it SQLite reads the modality
            # index end to end (every vote) instead of the primary-key range of the new votes
            for vote_modality, session, address in conn.execute(
                select(Vote.modality, Vote.session_id, Vote.client_hash)
                .where(Vote.id > since)
                .execution_options(yield_per=20_000)  # a first run streams every vote, never holds them
            ):
                if vote_modality == mod:
                    sessions_set.add(session)
                    if address is not None:
                        addresses_set.add(address)
        for grouping in GROUPINGS:
            if REGISTRY.batch(grouping):
                counts += _examine(engine, mod, grouping, sorted(found[grouping]), rates, now, progress)
        values = {"filter_version": version, "last_vote_id": int(last), "ran_at": now}
        with engine.begin() as conn:
            if mark is None:
                conn.execute(insert(BatchFilterMark).values(modality=mod, **values))
            else:
                conn.execute(update(BatchFilterMark).where(BatchFilterMark.modality == mod).values(values))
    return counts
