"""Batch filters on the database: a first run writes exactly what the in-memory filters find over every vote;
later runs re-examine only sessions and addresses with new votes and leave every other verdict row alone."""

from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import insert, select
from sqlmodel import Session

from arena.db.tables import Prompt, Vote, VoteVerdict
from arena.generation.registry import parse_registry, sync_registry
from arena.voting.filters import batch as refilter
from arena.voting.filters.anomaly import FILTERS, RawVote, find_anomalies
from arena.voting.filters.batch import run_batch_filters

STRENGTH = {f"m{i}": 60.0 * i for i in range(6)}
MODELS = "".join(
    f'[[models]]\nslug = "{m}"\ndisplay_name = "{m}"\norganization = "O"\nmodality = "text_to_image"\n'
    'adapter = "sandbox"\n'
    for m in STRENGTH
)
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _raw(rng, start: int, sessions: range, per: int, *, address=None, rig=None) -> list[RawVote]:
    votes, vid = [], start
    for s in sessions:
        for _ in range(per):
            a, b = (str(x) for x in rng.choice(sorted(STRENGTH), 2, replace=False))
            p = 1 / (1 + 10 ** ((STRENGTH[b] - STRENGTH[a]) / 400))
            winner = "model_a" if rng.random() < p else "model_b"
            if rig is not None:
                a, winner = rig, "model_a"
                b = b if b != rig else "m5"
            side = "left" if rng.random() < 0.5 else "right"
            votes.append(RawVote(vid, f"s{s}", address(s) if address else f"addr{s}", a, b, winner, side))
            vid += 1
    return votes


def _store(engine, votes: list[RawVote]) -> None:
    with Session(engine) as s:
        prompt = s.exec(select(Prompt.id, Prompt.use_case, Prompt.capability).limit(1)).first()
    rows = [
        {
            "id": v.id,
            "matchup_id": f"mu{v.id}",
            "modality": "text_to_image",
            "prompt_id": prompt[0],
            "use_case": prompt[1],
            "capability": prompt[2],
            "model_a": v.model_a,
            "model_b": v.model_b,
            "a_side": v.a_side,
            "winner": v.winner,
            "methodology": "2026-11",
            "session_id": v.session,
            "client_hash": v.address,
            "served_at": T0,
            "voted_at": T0 + timedelta(seconds=5),
            "signals": {},
        }
        for v in votes
    ]
    with engine.begin() as conn:
        conn.execute(insert(Vote), rows)


def _verdicts(engine) -> dict[tuple[int, str], tuple[str, datetime]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(VoteVerdict.vote_id, VoteVerdict.filter, VoteVerdict.reason, VoteVerdict.decided_at).where(
                VoteVerdict.filter.in_(FILTERS)  # type: ignore[attr-defined]
            )
        ).all()
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}


def _expected(votes: list[RawVote]) -> dict[tuple[int, str], str]:
    out: dict[tuple[int, str], str] = {}
    for flag in find_anomalies(votes):
        out.setdefault((flag.vote_id, flag.filter), flag.reason)
    return out


def test_first_run_matches_the_in_memory_filters_and_later_runs_touch_only_groups_with_new_votes(
    initialized, monkeypatch
):
    monkeypatch.setattr(refilter, "ID_OVERLAP", 0)  # re-examine nothing below the mark (default: 1,000 ids)
    with Session(initialized) as s:
        sync_registry(s, parse_registry(MODELS))
    rng = np.random.default_rng(4)
    honest = _raw(rng, 1, range(60), 20)
    sybils = _raw(rng, len(honest) + 1, range(100, 106), 12, address=lambda s: "attacker", rig="m0")
    votes = honest + sybils
    _store(initialized, votes)

    first = T0 + timedelta(hours=1)
    run_batch_filters(initialized, now=first)
    got = _verdicts(initialized)
    expected = _expected(votes)
    assert any(f == "address_favoritism" for _, f in expected)  # the rigged address is caught
    assert {k: reason for k, (reason, _) in got.items()} == expected

    # New votes: a contrarian session (always the worse model) from a new address.
    start = len(votes) + 1
    contrarian = [
        RawVote(
            start + k,
            "contrarian",
            "addr-c",
            f"m{k % 3}",
            f"m{3 + k % 3}",
            "model_a",
            "left" if k % 2 else "right",
        )
        for k in range(30)
    ]
    _store(initialized, contrarian)
    second = T0 + timedelta(hours=2)
    run_batch_filters(initialized, now=second)
    after = _verdicts(initialized)
    new = {k for k, (_, at) in after.items() if at.replace(tzinfo=UTC) == second}
    assert new and all(
        vote_id >= start for vote_id, _ in new
    )  # only the new session's votes were re-examined
    assert {k: v for k, v in after.items() if k[0] < start} == got  # the rest left exactly as they were
    assert {f for (vote_id, f) in new} >= {"likelihood"}

    # A full run agrees with the in-memory filters over every vote again.
    run_batch_filters(initialized, now=second + timedelta(hours=1), full=True)
    assert {k: r for k, (r, _) in _verdicts(initialized).items()} == _expected(votes + contrarian)
