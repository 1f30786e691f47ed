"""docs/howto/add-a-vote-filter.md, followed: its code blocks run as written, the example filter is
registered, and votes cast over real HTTP through the app (both databases) get its verdicts, its label on /me
and its column on the review page; a vote it does not filter still counts."""

import re
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import Vote, VoteVerdict
from arena.ops import operators
from arena.voting import pow as proof
from arena.voting.filters.registry import REGISTRY
from tests.conftest import serve

PAGE = Path(__file__).resolve().parents[2] / "docs" / "howto" / "add-a-vote-filter.md"


@pytest.fixture
def howto() -> dict:
    """The page's Python blocks run in order in one namespace (the module, its registration, its test); the
    example filter is unregistered afterwards."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 3
    namespace: dict = {}
    try:
        for block in blocks:
            exec(compile(block, str(PAGE), "exec"), namespace)
        yield namespace
    finally:
        if REGISTRY.label("slow_vote") == "matchup left open too long":
            REGISTRY.unregister("slow_vote")


def _vote(client: httpx.Client, frozen, wait: timedelta) -> dict:
    m = client.post("/api/v1/matchups", json={"modality": "text_to_image"}).json()
    for url in m["images"].values():
        assert client.get(url).status_code == 200
    frozen.advance(wait)
    body = {"matchup_id": m["id"], "choice": "left", "nonce": proof.solve(m["challenge"], m["difficulty"])}
    response = client.post("/api/v1/votes", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_howto_filter_judges_votes_over_http_and_shows_on_me_and_the_review_page(
    howto, settings, world, frozen
):
    howto["test_a_vote_cast_ten_minutes_after_serving_is_filtered"]()  # the page's own unit test
    assert REGISTRY.filter_version() == "honeypot1+image_fetch1+min_time1+slow_vote1+anomaly1"
    with Session(world) as session:
        token = operators.add_operator(session, "opal", "operator", actor="test")
    app = create_app(settings, engine=world, clock=frozen)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as voter:
        prompt = _vote(voter, frozen, timedelta(seconds=3))
        slow = _vote(voter, frozen, timedelta(seconds=700))
        assert prompt["counted"] is True and "left" in prompt
        assert slow["counted"] is False and "left" not in slow
        assert "voted 700s after serving (> 600s)" in slow["message"]

        with Session(world) as s:
            votes = s.exec(select(Vote).order_by(Vote.id)).all()
            verdicts = {
                (v.vote_id, v.filter): v
                for v in s.exec(select(VoteVerdict).where(VoteVerdict.filter == "slow_vote"))
            }
        assert [verdicts[(v.id, "slow_vote")].kept for v in votes] == [True, False]
        assert verdicts[(votes[1].id, "slow_vote")].reason == "voted 700s after serving (> 600s)"
        assert {verdict.filter_version for verdict in verdicts.values()} == {"1"}

        me = voter.get("/me")
        assert me.status_code == 200
        assert "matchup left open too long (voted 700s after serving (&gt; 600s))" in me.text
        record = voter.get("/api/v1/me").json()
        why = [v["not_counted_because"] for v in record["votes"]]
        assert why == [
            [{"filter": "matchup left open too long", "reason": "voted 700s after serving (> 600s)"}],
            [],
        ]

        with httpx.Client(base_url=url, timeout=30) as operator:
            assert operator.post("/admin/login", data={"token": token}).status_code == 303
            review = operator.get("/admin/votes")
            summary = operator.get("/api/v1/admin/votes/summary").json()
        assert review.status_code == 200 and '<th scope="col">slow_vote</th>' in review.text
        assert (
            summary["filtered"] == {"slow_vote": [1]} and summary["votes"] == [2] and summary["kept"] == [1]
        )


def test_without_the_howto_filter_the_same_slow_vote_counts(settings, world, frozen):
    assert REGISTRY.label("slow_vote") == "unusual voting pattern"  # not registered outside the page's test
    with serve(create_app(settings, engine=world, clock=frozen)) as url, httpx.Client(base_url=url) as voter:
        assert _vote(voter, frozen, timedelta(seconds=700))["counted"] is True
