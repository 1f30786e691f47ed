"""An operator clears a false positive of the batch filters: the flagged group's votes count again.

Nothing is deleted: each vote gets an `operator` verdict (kept, with who and why), and the filters' own verdict
rows stay with their reasons, marked "cleared by operator" and no longer filtering. A later re-run of the
filters keeps the clearance (`arena.voting.filters.batch` reads the operator verdicts); the vote tallies move
at once, so the next snapshot counts the votes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, Engine, insert, select, update
from sqlmodel import Session

from arena.db.tables import Vote, VoteVerdict
from arena.ops import audit
from arena.voting.filters.registry import REGISTRY
from arena.voting.review import pseudonym
from arena.voting.tallies import filtered_ids, move_kept, tally_lock

OPERATOR = "operator"  # the verdict "filter" of operator clearances
CLEARED = "cleared by operator"


class ClearError(ValueError):
    """Nothing to clear (an unknown pseudonym or an empty reason); nothing changed."""


def cleared_reason(original: str) -> str:
    """A filter verdict's reason once an operator cleared it (the filter's own words kept)."""
    return original if original.startswith(CLEARED) else f"{CLEARED}; the filter said: {original}"[:2000]


def clear_group(engine: Engine, secret: str, who: str, reason: str, *, actor: str, now: datetime) -> int:
    """Clear every vote a batch filter flagged in the group shown as `who` (a session or address pseudonym);
    returns how many votes count again. Audited with the reason."""
    reason = reason.strip()[:500]
    if not reason:
        raise ClearError("say why the flag is a false positive (the reason is kept in the audit log)")
    with engine.begin() as conn:
        tally_lock(conn)
        rows = conn.execute(
            select(VoteVerdict.vote_id, VoteVerdict.filter, Vote.session_id, Vote.client_hash)
            .join(Vote, Vote.id == VoteVerdict.vote_id)
            .where(VoteVerdict.kept == False, VoteVerdict.filter.in_(REGISTRY.batch_names()))  # type: ignore[attr-defined]  # noqa: E712
        ).all()
        pairs = {
            (vote_id, name)
            for vote_id, name, session_id, client_hash in rows
            if (
                pseudonym(secret, "address", client_hash or "none")
                if REGISTRY.grouping(name) == "address"
                else pseudonym(secret, "session", session_id)
            )
            == who
        }
        ids = sorted({vote_id for vote_id, _ in pairs})
        if not ids:
            raise ClearError(f"no flagged votes of '{who[:40]}'")
        before = filtered_ids(conn, ids)
        reasons = conn.execute(
            select(VoteVerdict.vote_id, VoteVerdict.filter, VoteVerdict.reason).where(
                VoteVerdict.vote_id.in_(ids)  # type: ignore[attr-defined]
            )
        ).all()
        for vote_id, name, old in reasons:
            if (vote_id, name) in pairs:  # only this group's verdicts: another group's flag on a vote stays
                conn.execute(
                    update(VoteVerdict)
                    .where(VoteVerdict.vote_id == vote_id, VoteVerdict.filter == name)  # type: ignore[arg-type]
                    .values(kept=True, reason=cleared_reason(old))
                )
        have = set(
            conn.execute(
                select(VoteVerdict.vote_id).where(
                    VoteVerdict.vote_id.in_(ids), VoteVerdict.filter == OPERATOR
                )  # type: ignore[attr-defined]
            ).scalars()
        )
        fresh = [
            {"vote_id": i, "filter": OPERATOR, "filter_version": "1", "kept": True,
             "reason": f"{CLEARED} {actor[:60]}: {reason}", "decided_at": now}
            for i in ids if i not in have
        ]  # fmt: skip
        if fresh:
            conn.execute(insert(VoteVerdict), fresh)
        after = filtered_ids(conn, ids)
        move_kept(conn, sorted(after - before), sorted(before - after))
    with Session(engine) as session:
        audit.record(session, actor=actor, action="votes.clear", target=who[:128], after={"votes": len(ids),
                     "reason": reason})  # fmt: skip
        session.commit()
    return len(before - after)


def operator_cleared(conn: Connection, vote_ids: list[int]) -> set[tuple[int, str]]:
    """The (vote, filter) verdicts among `vote_ids` that an operator cleared: a re-run keeps them cleared."""
    return {
        (int(vote_id), str(name))
        for vote_id, name in conn.execute(
            select(VoteVerdict.vote_id, VoteVerdict.filter).where(
                VoteVerdict.vote_id.in_(vote_ids),  # type: ignore[attr-defined]
                VoteVerdict.kept == True,  # noqa: E712
                VoteVerdict.reason.startswith(CLEARED),  # type: ignore[attr-defined]
                VoteVerdict.filter != OPERATOR,
            )
        ).all()
    }
