"""Head-to-head: two models' record against each other in a snapshot's published votes.

The win rate (ties count half, as in the ratings) with a Wilson score interval, the record per use case and
per capability, the win probability the published ratings expect, and recent matchups each of them won.
Read from the same vote set as the published board (:class:`~arena.leaderboard.published_votes.VoteSet`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import Connection, and_, func, or_, select

from arena.leaderboard.boards import BoardEntry, PublishedBoard
from arena.leaderboard.examples import Example, example_matchups
from arena.leaderboard.published_counts import Record
from arena.leaderboard.published_votes import VoteSet
from ratings.proportions import wilson_interval
from ratings.winrate import expected_win

__all__ = ["HeadToHead", "head_to_head"]


@dataclass(frozen=True)
class HeadToHead:
    """Model `a` against model `b`, everything from `a`'s side."""

    a: str
    b: str
    record: Record
    interval: tuple[float, float] | None  # Wilson interval of the win rate at the board's level
    expected: float | None  # P(a beats b) from the published overall ratings
    entry_a: BoardEntry | None
    entry_b: BoardEntry | None
    use_cases: list[tuple[str, Record]]
    capabilities: list[tuple[str, Record]]
    wins_a: list[Example]  # matchups a won against b
    wins_b: list[Example]  # matchups b won against a
    level: float


def _pair_records(conn: Connection, votes: VoteSet, a: str, b: str) -> dict[tuple[str, str], Record]:
    """`a`'s record against `b` per (use case, capability) cell, under the snapshot's cohort rule."""
    sub = votes.query().order_by(None).subquery()
    pair = or_(and_(sub.c.model_a == a, sub.c.model_b == b), and_(sub.c.model_a == b, sub.c.model_b == a))
    cols = (sub.c.model_a, sub.c.model_b, sub.c.winner, sub.c.use_case, sub.c.capability, sub.c.methodology)
    groups = conn.execute(select(*cols, func.count()).where(pair).group_by(*cols)).all()
    cells: dict[tuple[str, str], Record] = defaultdict(Record)
    if not groups:
        return cells
    keep = votes.keep([g[0] for g in groups], [g[1] for g in groups], [g[5] for g in groups])
    for (ma, _mb, winner, uc, cap, _meth, n), kept in zip(groups, keep.tolist(), strict=True):
        if not kept:
            continue
        rec = cells[(uc, cap)]
        if winner in ("model_a", "model_b"):
            if (winner == "model_a") == (ma == a):
                rec.wins += n
            else:
                rec.losses += n
        else:
            rec.ties += n
    return cells


def _by(cells: dict[tuple[str, str], Record], axis: int) -> list[tuple[str, Record]]:
    out: dict[str, Record] = defaultdict(Record)
    for key, rec in cells.items():
        total = out[key[axis]]
        total.wins, total.losses, total.ties = (
            total.wins + rec.wins,
            total.losses + rec.losses,
            total.ties + rec.ties,
        )
    return sorted(out.items(), key=lambda kv: (-kv[1].votes, kv[0]))


def head_to_head(conn: Connection, overall: PublishedBoard, a: str, b: str, examples: int = 3) -> HeadToHead:
    """`a` against `b` in the votes behind `overall` (a published overall board)."""
    votes = VoteSet.of(overall)
    cells = _pair_records(conn, votes, a, b)
    total = Record()
    for rec in cells.values():
        total.wins, total.losses, total.ties = (
            total.wins + rec.wins,
            total.losses + rec.losses,
            total.ties + rec.ties,
        )
    level = float(overall.params.get("level", 0.95))
    entry_a, entry_b = overall.entry(a), overall.entry(b)
    expected = expected_win(entry_a.rating, entry_b.rating) if entry_a and entry_b else None
    return HeadToHead(
        a=a,
        b=b,
        record=total,
        interval=wilson_interval(total.wins + total.ties / 2, total.votes, level)
        if total.votes > 0
        else None,
        expected=expected,
        entry_a=entry_a,
        entry_b=entry_b,
        use_cases=_by(cells, 0),
        capabilities=_by(cells, 1),
        wins_a=[e for e in example_matchups(conn, votes, a, examples, opponent=b) if e.won],
        wins_b=[e for e in example_matchups(conn, votes, b, examples, opponent=a) if e.won],
        level=level,
    )
