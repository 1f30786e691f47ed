"""The vote path's SQL, built once at import on the Core tables (no ORM entities: an `insert(Matchup)` on the
SQLModel class runs the ORM's bulk-persistence plugin and a fresh cache key per call, ~0.5 ms).

Per matchup + vote there are four statements on two connection checkouts:

- `serve_read` (one round trip) returns everything the variety rules and the freshness preference read: the
  pair counts among the modality's last WINDOW - 1 matchups, counted by the database from the window index
  alone (each matchup stores its two models; at most two rows per pair instead of 199 rows), the session's
  first FIRST_MATCHUPS and last NO_REPEAT pairs of the modality, and the outputs of the session's votes; each
  row says which part it belongs to (the NULLs are cast, since PostgreSQL resolves a UNION's column types pair
  by pair);
- `INSERT_MATCHUP`;
- `VOTE_READ`: the matchup (which stores both models) and the prompt's cell, in one join;
- `store_vote`: the vote and its online verdicts, atomically: on PostgreSQL one statement (the vote inserted in
  a data-modifying CTE, the verdicts selected from it), so it needs no transaction of its own; on SQLite, which
  has no such CTEs, two statements in the caller's transaction (no round trips there).

The service runs them through the driver, compiled once per dialect (`PreparedQueries`, arena.voting.raw).
On PostgreSQL the service runs these on autocommit connections: each is its own transaction, and a pair costs
four round trips (a transaction block would add BEGIN and COMMIT to each request).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    Connection,
    DateTime,
    Integer,
    String,
    bindparam,
    cast,
    func,
    insert,
    literal_column,
    null,
    select,
    union_all,
)

from arena.db.tables import Matchup, Prompt, Vote, VoteVerdict
from arena.voting.matchmaking import FIRST_MATCHUPS, NO_REPEAT, WINDOW, Pair, Recent, pair_key
from arena.voting.raw import Prepared, RawConnection

MATCHUPS = Matchup.__table__  # type: ignore[attr-defined]
PROMPTS = Prompt.__table__  # type: ignore[attr-defined]
VOTES = Vote.__table__  # type: ignore[attr-defined]
VERDICTS = VoteVerdict.__table__  # type: ignore[attr-defined]

INSERT_MATCHUP = insert(MATCHUPS)
INSERT_VOTE = insert(VOTES)
INSERT_VERDICTS = insert(VERDICTS)

WINDOW_PART, FIRST_PART, LAST_PART, SEEN_PART = 0, 1, 2, 3


def _pairs(part: int, rows: Any, n: Any, at: Any, *, grouped: bool = False) -> Any:
    """(part, left model, right model, n, at, NULL, NULL) for matchup rows `rows` (a subquery), grouped by
    the two models when `grouped`."""
    query = select(
        literal_column(str(part), Integer).label("part"),
        rows.c.left_model.label("a"),
        rows.c.right_model.label("b"),
        n.label("n"),
        at.label("at"),
        cast(null(), Integer).label("left_id"),
        cast(null(), Integer).label("right_id"),
    ).select_from(rows)
    return query.group_by(rows.c.left_model, rows.c.right_model) if grouped else query


def _session_matchups(limit: int, newest_first: bool) -> Any:
    served = MATCHUPS.c.served_at
    return (
        select(MATCHUPS.c.left_model, MATCHUPS.c.right_model, served)
        .where(MATCHUPS.c.modality == bindparam("modality"), MATCHUPS.c.session_id == bindparam("session"))
        .order_by(served.desc() if newest_first else served)
        .limit(limit)
        .subquery()
    )


def _build_serve_read() -> Any:
    window = (  # read from ix_matchups_window alone: the models are stored on the matchup
        select(MATCHUPS.c.left_model, MATCHUPS.c.right_model)
        .where(MATCHUPS.c.modality == bindparam("modality"))
        .order_by(MATCHUPS.c.served_at.desc())
        .limit(WINDOW - 1)
        .subquery("w")
    )
    no_time = cast(null(), DateTime(timezone=True))
    counted = _pairs(WINDOW_PART, window, func.count(), no_time, grouped=True)
    first = _session_matchups(FIRST_MATCHUPS, newest_first=False)
    last = _session_matchups(NO_REPEAT, newest_first=True)
    seen = select(
        literal_column(str(SEEN_PART), Integer),
        cast(null(), String),
        cast(null(), String),
        cast(null(), Integer),
        no_time,
        VOTES.c.left_output_id,
        VOTES.c.right_output_id,
    ).where(VOTES.c.session_id == bindparam("session"))
    no_n = cast(null(), Integer)
    return union_all(
        counted,
        _pairs(FIRST_PART, first, no_n, first.c.served_at),
        _pairs(LAST_PART, last, no_n, last.c.served_at),
        seen,
    )


SERVE_READ = _build_serve_read()


def recent_and_seen(rows: Sequence[Any]) -> tuple[Recent, set[int]]:
    """`SERVE_READ`'s rows as the variety rules' `Recent` view and the set of outputs the session voted on."""
    window: dict[Pair, int] = {}
    first: list[tuple[Any, Pair]] = []
    last: list[tuple[Any, Pair]] = []
    seen: set[int] = set()
    for part, a, b, n, at, left_id, right_id in rows:
        if part == WINDOW_PART:
            pair = pair_key(a, b)
            window[pair] = window.get(pair, 0) + int(n)
        elif part == FIRST_PART:
            first.append((at, pair_key(a, b)))
        elif part == LAST_PART:
            last.append((at, pair_key(a, b)))
        else:
            seen.update(i for i in (left_id, right_id) if i is not None)
    first_pairs = [pair for _, pair in sorted(first, key=lambda x: x[0])]
    if len(first_pairs) < FIRST_MATCHUPS:
        return Recent(window, first_pairs, first_pairs[-NO_REPEAT:], len(first_pairs)), seen
    last_pairs = [pair for _, pair in sorted(last, key=lambda x: x[0])]
    return Recent(window, first_pairs, last_pairs, len(first_pairs)), seen


def _build_vote_read() -> Any:
    m = MATCHUPS.c
    return (
        select(
            m.id,
            m.session_id,
            m.modality,
            m.prompt_id,
            m.left_output_id,
            m.right_output_id,
            m.challenge,
            m.served_at,
            m.expires_at,
            m.left_fetched_at,
            m.right_fetched_at,
            m.left_model,
            m.right_model,
            PROMPTS.c.use_case,
            PROMPTS.c.capability,
        )
        .select_from(MATCHUPS.join(PROMPTS, PROMPTS.c.id == m.prompt_id))
        .where(m.id == bindparam("matchup_id"))
    )


VOTE_READ = _build_vote_read()


#: The columns `store_vote` writes (every column of `votes` but the id; of `vote_verdicts` but the vote id).
VOTE_COLUMNS = tuple(c.name for c in VOTES.c if c.name != "id")
VERDICT_COLUMNS = tuple(c.name for c in VERDICTS.c if c.name != "vote_id")


@cache
def _vote_with_verdicts(n_verdicts: int) -> Any:
    """PostgreSQL: INSERT the vote in a CTE and its `n_verdicts` verdicts from it, in one statement."""
    new_vote = (
        insert(VOTES)
        .values({name: bindparam(name) for name in VOTE_COLUMNS})
        .returning(VOTES.c.id)
        .cte("new_vote")
    )
    rows = [
        select(
            new_vote.c.id,
            *[bindparam(f"{name}_{i}", type_=VERDICTS.c[name].type) for name in VERDICT_COLUMNS],
        )
        for i in range(n_verdicts)
    ]
    return (
        insert(VERDICTS)
        .from_select(["vote_id", *VERDICT_COLUMNS], union_all(*rows))
        .returning(VERDICTS.c.vote_id)
    )


def store_vote(conn: Connection, vote: Mapping[str, Any], verdicts: Sequence[Mapping[str, Any]]) -> int:
    """Insert `vote` (every `VOTE_COLUMNS` key) and its `verdicts` (every `VERDICT_COLUMNS` key); return the
    vote id. A second vote on the same matchup raises IntegrityError (unique matchup id) and stores nothing.
    On SQLite the caller commits."""
    if conn.dialect.name == "postgresql":
        params = dict(vote)
        for i, verdict in enumerate(verdicts):
            params.update({f"{name}_{i}": verdict[name] for name in VERDICT_COLUMNS})
        return int(conn.execute(_vote_with_verdicts(len(verdicts)), params).first()[0])
    vote_id = int(conn.execute(INSERT_VOTE, dict(vote)).inserted_primary_key[0])
    conn.execute(INSERT_VERDICTS, [{**verdict, "vote_id": vote_id} for verdict in verdicts])
    return vote_id


MATCHUP_COLUMNS = tuple(c.name for c in MATCHUPS.c)


class PreparedQueries:
    """The statements above compiled once for one dialect (`arena.voting.raw`), for the service's hot path."""

    def __init__(self, dialect: Any) -> None:
        self.dialect = dialect
        self.postgres = dialect.name == "postgresql"
        self.serve_read = Prepared(SERVE_READ, dialect)
        self.vote_read = Prepared(VOTE_READ, dialect)
        self.insert_matchup = Prepared(INSERT_MATCHUP, dialect, MATCHUP_COLUMNS)
        self.insert_vote = Prepared(INSERT_VOTE, dialect, VOTE_COLUMNS)
        self.insert_verdicts = Prepared(INSERT_VERDICTS, dialect, ("vote_id", *VERDICT_COLUMNS))
        self._with_verdicts: dict[int, Prepared] = {}

    def vote_with_verdicts(self, n_verdicts: int) -> Prepared:
        """`_vote_with_verdicts(n_verdicts)` prepared (PostgreSQL)."""
        found = self._with_verdicts.get(n_verdicts)
        if found is None:
            found = self._with_verdicts[n_verdicts] = Prepared(_vote_with_verdicts(n_verdicts), self.dialect)
        return found

    @staticmethod
    def vote_params(vote: Mapping[str, Any], verdicts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The parameters of `vote_with_verdicts(len(verdicts))` (PostgreSQL)."""
        params = dict(vote)
        for i, verdict in enumerate(verdicts):
            params.update({f"{name}_{i}": verdict[name] for name in VERDICT_COLUMNS})
        return params

    def store_vote(
        self, conn: RawConnection, vote: Mapping[str, Any], verdicts: Sequence[Mapping[str, Any]]
    ) -> int:
        """`store_vote` on a raw connection: same statements, same atomicity, same IntegrityError."""
        if self.postgres:
            return int(
                conn.first(self.vote_with_verdicts(len(verdicts)), self.vote_params(vote, verdicts))[0]
            )
        cursor = conn.execute(self.insert_vote, vote)
        vote_id = int(cursor.lastrowid)
        cursor.close()
        conn.executemany(self.insert_verdicts, [{**verdict, "vote_id": vote_id} for verdict in verdicts])
        return vote_id
