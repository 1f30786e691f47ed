"""Simulated voters go through the real service path; the batch filters catch a sybil address campaign."""

from datetime import UTC, datetime

from sqlmodel import Session, select

from arena.db.tables import Vote, VoteVerdict
from arena.simulation.voters import SybilCampaign, simulate
from arena.voting.filters.batch import run_batch_filters
from arena.voting.service import ArenaService
from prompts_taxonomy import load_taxonomy

TRUTH = {"model-0": 900.0, "model-1": 1000.0, "model-2": 1050.0, "model-3": 1150.0}


def test_simulated_votes_are_marked_and_filtered_like_real_ones(settings, world):
    service = ArenaService(world, settings, load_taxonomy())
    start = datetime(2026, 11, 1, tzinfo=UTC)
    campaign = SybilCampaign(target="model-0", sessions=6, addresses=1, share=0.3)
    report = simulate(
        service,
        votes=300,
        voters=15,
        truth=TRUTH,
        seed=5,
        modality="text_to_image",
        start=start,
        campaign=campaign,
    )
    assert report.votes == 300 and report.sybil_votes > 50
    counts = run_batch_filters(world)
    with Session(world) as s:
        votes = s.exec(select(Vote)).all()
        filtered = {v.vote_id for v in s.exec(select(VoteVerdict).where(VoteVerdict.kept == False))}  # noqa: E712
    assert len(votes) == 300 and {v.source for v in votes} == {"simulated"}
    assert all(v.images_fetched for v in votes)
    sybil_target = [
        v for v in votes if report.sessions[v.session_id] == "sybil" and "model-0" in (v.model_a, v.model_b)
    ]
    assert sybil_target and all(v.id in filtered for v in sybil_target)
    assert counts["address_favoritism"] >= len(sybil_target)
    honest = [v for v in votes if report.sessions[v.session_id] == "honest"]
    assert sum(v.id in filtered for v in honest) <= 0.01 * len(honest)
    # Re-running the filters rewrites the same verdicts; the raw votes are untouched.
    assert run_batch_filters(world) == counts
    with Session(world) as s:
        assert len(s.exec(select(Vote)).all()) == 300
