"""Private matchup sets: an operator shares two model runs' eval outputs behind a secret link; invited voters see
each case's two images blind (sides drawn at random per showing, no names before the vote) and vote left / right /
tie. Votes are kept in the `eval_private_*` tables only, so they never reach the public votes or any leaderboard;
`human_verdicts` turns them into the same records the judge's pairwise report tallies."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from arena.db.private_tables import PrivatePair, PrivateSet, PrivateShowing
from arena.db.types import utcnow
from arena.evals.pairwise import PairItem
from arena.evals.pairwise_stats import Verdict

__all__ = [
    "PrivateSetError",
    "Showing",
    "create_set",
    "find_set",
    "human_verdicts",
    "next_showing",
    "record_vote",
    "sets_for",
    "showing_image",
]

CHOICES = ("left", "right", "tie")


class PrivateSetError(ValueError):
    """A request the set cannot answer (unknown showing, already voted, bad choice); `status` is the HTTP code."""

    def __init__(self, message: str, status: int = 404) -> None:
        super().__init__(message)
        self.status = status


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_set(engine: Engine, run_a: str, run_b: str, items: list[PairItem]) -> tuple[str, int]:
    """Store a set of one label pair's items; returns (secret token, set id). Only the token's hash is kept."""
    labels = {(i.label_a, i.label_b) for i in items}
    if len(labels) != 1:
        raise PrivateSetError("a private set compares exactly one pair of model runs: pass --a and --b", 2)
    (label_a, label_b), token = labels.pop(), secrets.token_urlsafe(18)
    with Session(engine) as s:
        row = PrivateSet(
            token_sha256=_hash(token), run_a=run_a, run_b=run_b, label_a=label_a, label_b=label_b
        )
        s.add(row)
        s.flush()
        assert row.id is not None
        for i in items:
            s.add(
                PrivatePair(
                    set_id=row.id,
                    case_id=i.case_id,
                    sample=i.sample,
                    prompt=i.prompt,
                    result_a=i.result_a,
                    result_b=i.result_b,
                    path_a=str(i.path_a.resolve()),
                    path_b=str(i.path_b.resolve()),
                )
            )
        s.commit()
        return token, row.id


def find_set(engine: Engine, token: str) -> PrivateSet | None:
    """The set of a link token, or None."""
    with Session(engine) as s:
        return s.exec(select(PrivateSet).where(PrivateSet.token_sha256 == _hash(token))).first()


@dataclass(frozen=True)
class Showing:
    """What the blind page shows: the showing id, the prompt, and how far this voter is."""

    id: str
    prompt: str
    voted: int
    total: int


def next_showing(engine: Engine, pset: PrivateSet, voter: str, rng: secrets.SystemRandom) -> Showing | None:
    """This voter's open showing, else a new one of a pair they have not voted on (None when all are done)."""
    with Session(engine) as s:
        total = s.exec(
            select(func.count()).select_from(PrivatePair).where(PrivatePair.set_id == pset.id)
        ).one()
        mine = s.exec(
            select(PrivateShowing).where(PrivateShowing.set_id == pset.id, PrivateShowing.voter == voter)
        ).all()
        voted = {m.pair_id for m in mine if m.choice}
        showing = next((m for m in mine if not m.choice and m.pair_id not in voted), None)
        if showing is None:
            pairs = s.exec(
                select(PrivatePair.id).where(
                    PrivatePair.set_id == pset.id, col(PrivatePair.id).not_in(voted or {-1})
                )
            ).all()
            if not pairs:
                return None
            showing = PrivateShowing(
                id=secrets.token_urlsafe(18),
                set_id=pset.id or 0,
                pair_id=rng.choice([p for p in pairs if p is not None]),
                voter=voter,
                a_left=rng.random() < 0.5,
            )
            s.add(showing)
            s.commit()
            s.refresh(showing)
        pair = s.get(PrivatePair, showing.pair_id)
        assert pair is not None
        return Showing(showing.id, pair.prompt, len(voted), total)


def _open_showing(
    s: Session, pset: PrivateSet, showing_id: str, voter: str
) -> tuple[PrivateShowing, PrivatePair]:
    showing = s.get(PrivateShowing, showing_id)
    if showing is None or showing.set_id != pset.id or showing.voter != voter:
        raise PrivateSetError("no such showing")
    if showing.choice:
        raise PrivateSetError("this pair was already voted on", 409)
    pair = s.get(PrivatePair, showing.pair_id)
    assert pair is not None
    return showing, pair


def showing_image(engine: Engine, pset: PrivateSet, showing_id: str, voter: str, side: str) -> Path:
    """The artifact shown on `side` of an open showing of this voter (any other request is a 404)."""
    if side not in ("left", "right"):
        raise PrivateSetError("no such image")
    with Session(engine) as s:
        try:
            showing, pair = _open_showing(s, pset, showing_id, voter)
        except PrivateSetError:
            raise PrivateSetError("no such image") from None  # voted or not this voter's: the same 404
    a_shown = showing.a_left == (side == "left")
    return Path(pair.path_a if a_shown else pair.path_b)


def record_vote(engine: Engine, pset: PrivateSet, showing_id: str, voter: str, choice: str) -> dict[str, Any]:
    """Store the vote on an open showing and reveal which model run was on each side."""
    if choice not in CHOICES:
        raise PrivateSetError(f"choice must be one of {', '.join(CHOICES)}", 422)
    with Session(engine) as s:
        showing, pair = _open_showing(s, pset, showing_id, voter)
        outcome = 2 if choice == "tie" else 0 if (choice == "left") == showing.a_left else 1
        showing.choice, showing.outcome, showing.voted_at = choice, outcome, utcnow()
        s.add(showing)
        s.commit()
        left, right = (pset.label_a, pset.label_b) if showing.a_left else (pset.label_b, pset.label_a)
        winner = {0: pset.label_a, 1: pset.label_b, 2: None}[outcome]
        return {"case_id": pair.case_id, "left": left, "right": right, "choice": choice, "winner": winner}


def sets_for(engine: Engine, runs: list[str], labels: set[tuple[str, str]]) -> list[PrivateSet]:
    """Private sets made from these runs comparing one of these label pairs."""
    run_a, run_b = runs[0], runs[-1]
    with Session(engine) as s:
        rows = s.exec(select(PrivateSet).where(PrivateSet.run_a == run_a, PrivateSet.run_b == run_b)).all()
    return [r for r in rows if (r.label_a, r.label_b) in labels or (r.label_b, r.label_a) in labels]


def human_verdicts(engine: Engine, set_ids: list[int]) -> list[Verdict]:
    """Every vote of these sets as a pairwise record (from the set's A side)."""
    with Session(engine) as s:
        rows = s.exec(
            select(PrivateShowing, PrivatePair, PrivateSet)
            .join(PrivatePair, col(PrivatePair.id) == col(PrivateShowing.pair_id))
            .join(PrivateSet, col(PrivateSet.id) == col(PrivateShowing.set_id))
            .where(col(PrivateShowing.set_id).in_(set_ids or [-1]), PrivateShowing.outcome != None)  # noqa: E711
        ).all()
    return [
        Verdict(st.label_a, st.label_b, p.case_id, sh.outcome) for sh, p, st in rows if sh.outcome is not None
    ]
