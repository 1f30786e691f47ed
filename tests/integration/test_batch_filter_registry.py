"""A batch filter added to the registry, on both databases: a batch run writes its verdicts under its own
version, the first run after it was added re-examines every group (the mark's version changed), the review
lists what it flagged under its grouping, and removing it leaves the anomaly filters' verdicts as they were."""

from datetime import UTC, datetime, timedelta

from sqlalchemy import insert, select
from sqlmodel import Session

from arena.db.tables import BatchFilterMark, Prompt, Vote, VoteVerdict
from arena.generation.registry import parse_registry, sync_registry
from arena.voting.filters.batch import run_batch_filters
from arena.voting.filters.groups import Flag, VoteGroup
from arena.voting.filters.protocol import BatchFilter
from arena.voting.filters.registry import REGISTRY
from arena.voting.review import flagged_groups

MODELS = "".join(
    f'[[models]]\nslug = "m{i}"\ndisplay_name = "m{i}"\norganization = "O"\nmodality = "text_to_image"\n'
    'adapter = "sandbox"\n'
    for i in range(3)
)
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _all_ties(group: VoteGroup) -> list[Flag]:
    if len(group.votes) >= 3 and not group.decisive:
        return [Flag(v.id, "all_ties", f"{len(group.votes)} votes, none decisive") for v in group.votes]
    return []


def _store(engine, plan: list[tuple[str, str]]) -> None:
    with Session(engine) as s:
        prompt = s.exec(select(Prompt.id, Prompt.use_case, Prompt.capability).limit(1)).first()
    rows = [
        {
            "matchup_id": f"mu-{session}-{k}",
            "modality": "text_to_image",
            "prompt_id": prompt[0],
            "use_case": prompt[1],
            "capability": prompt[2],
            "model_a": "m0",
            "model_b": f"m{1 + k % 2}",
            "a_side": "left",
            "winner": winner,
            "methodology": "2026-11",
            "session_id": session,
            "client_hash": None,
            "served_at": T0,
            "voted_at": T0 + timedelta(seconds=5 + k),
            "signals": {},
        }
        for k, (session, winner) in enumerate(plan)
    ]
    with engine.begin() as conn:
        conn.execute(insert(Vote), rows)


def _rows(engine, name: str) -> list[tuple[str, str, str]]:
    with engine.connect() as conn:
        return conn.execute(
            select(Vote.session_id, VoteVerdict.filter_version, VoteVerdict.reason)
            .join(Vote, Vote.id == VoteVerdict.vote_id)
            .where(VoteVerdict.filter == name)
            .order_by(Vote.id)
        ).all()


def test_a_registered_batch_filter_is_run_versioned_and_reviewed(initialized):
    with Session(initialized) as s:
        sync_registry(s, parse_registry(MODELS))
    _store(initialized, [("tied", "tie")] * 4 + [("decided", "model_a")] * 4)
    run_batch_filters(initialized, now=T0 + timedelta(hours=1))  # before the filter: marks at version "1"
    assert _rows(initialized, "all_ties") == []

    REGISTRY.register(BatchFilter("all_ties", "2", "only ties", "session", _all_ties))
    try:
        # no new vote since the last run, yet every group is examined: the batch version changed
        counts = run_batch_filters(initialized, now=T0 + timedelta(hours=2))
        assert counts["all_ties"] == 4
        assert _rows(initialized, "all_ties") == [("tied", "2", "4 votes, none decisive")] * 4
        with initialized.connect() as conn:
            assert conn.execute(select(BatchFilterMark.filter_version)).scalars().all() == ["1+all_ties2"]
        (group,) = flagged_groups(initialized, "secret")
        assert (group["kind"], group["votes"], group["evidence"]) == (
            "session",
            4,
            {"all_ties": "4 votes, none decisive"},
        )
    finally:
        REGISTRY.unregister("all_ties")
    run_batch_filters(initialized, now=T0 + timedelta(hours=3))
    with initialized.connect() as conn:
        assert conn.execute(select(BatchFilterMark.filter_version)).scalars().all() == ["1"]
    assert flagged_groups(initialized, "secret") == []  # its stored verdicts are no longer reviewed
