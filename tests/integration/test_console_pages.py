"""The console's models, prompts, votes and jobs sections over real HTTP on both databases, against a world with
models, outputs and hand-made votes whose counts are known: the figures shown are those counts, flagged groups
show evidence but never the stored session id or address hash, and each action is audited."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import AuditEntry, JobRun, Model, Output, Prompt, Vote, VoteVerdict
from arena.ops import operators
from arena.voting.review import daily_counts
from tests.conftest import serve

DAY1 = datetime(2026, 11, 20, 12, tzinfo=UTC)
DAY2 = datetime(2026, 11, 21, 12, tzinfo=UTC)
SECRET_SESSION = "sess-deadbeef-raw-id"
SECRET_ADDRESS = "addrhash-cafebabe-0001"


def _votes(engine) -> tuple[str, list[int]]:
    """Seven votes on one prompt: day 1 three (one too fast), day 2 four (two flagged by the session
    likelihood filter, one of them also by address favoritism), all model-0 (shown as A) against model-1."""
    with Session(engine) as session:
        prompt = session.exec(
            select(Output.prompt_id).where(Output.model_slug == "model-0").order_by(Output.prompt_id)
        ).first()
        p = session.get(Prompt, prompt)
        plan = [
            (DAY1, "model_a", "s1", None),
            (DAY1, "model_a", "s1", None),
            (DAY1, "model_b", "s2", None),
            (DAY2, "model_a", SECRET_SESSION, SECRET_ADDRESS),
            (DAY2, "model_a", SECRET_SESSION, SECRET_ADDRESS),
            (DAY2, "model_b", "s3", None),
            (DAY2, "tie", "s3", None),
        ]
        ids = []
        for i, (day, winner, sid, address) in enumerate(plan):
            vote = Vote(
                matchup_id=f"m{i}", modality="text_to_image", prompt_id=prompt, use_case=p.use_case,
                capability=p.capability, model_a="model-0", model_b="model-1", a_side="left", winner=winner,
                methodology="2026-11", session_id=sid, served_at=day - timedelta(seconds=9),
                voted_at=day + timedelta(minutes=i), client_hash=address,
            )  # fmt: skip
            session.add(vote)
            session.flush()
            ids.append(vote.id)
        verdicts = [
            (ids[0], "min_time", "voted 0.4 s after the matchup was served"),
            (ids[3], "likelihood", "session likelihood p=2e-05 over 14 decisive votes"),
            (ids[4], "likelihood", "session likelihood p=2e-05 over 14 decisive votes"),
            (ids[4], "address_favoritism", "address favours model-0: 9 wins vs 4.1 expected (p=3e-04)"),
        ]
        for vote_id, name, reason in verdicts:
            session.add(
                VoteVerdict(vote_id=vote_id, filter=name, filter_version="1", kept=False, reason=reason)
            )
        session.commit()
    return prompt, ids


@pytest.fixture
def site(settings, world):
    prompt, _ = _votes(world)
    with Session(world) as session:
        token = operators.add_operator(session, "opal", "operator", actor="test")
    with serve(create_app(settings, engine=world)) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.post("/admin/login", data={"token": token}).status_code == 303
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/admin").text).group(1)
        yield client, world, prompt, csrf


def test_daily_counts_match_the_hand_made_votes(world):
    _votes(world)
    series = daily_counts(world, now=DAY2 + timedelta(days=1))
    assert series == {
        "days": ["2026-11-20", "2026-11-21"],
        "votes": [3, 4],
        "kept": [2, 2],
        "filtered": {"address_favoritism": [0, 1], "likelihood": [0, 2], "min_time": [1, 0]},
    }
    assert daily_counts(world, now=DAY2 + timedelta(days=40))["days"] == []


def test_votes_page_shows_evidence_under_pseudonyms_and_refilter_is_audited(site):
    client, world, _, csrf = site
    page = client.get("/admin/votes")
    assert page.status_code == 200 and 'id="votes-chart"' in page.text
    assert "session likelihood p=2e-05 over 14 decisive votes" in page.text
    assert "address favours model-0: 9 wins vs 4.1 expected" in page.text
    assert SECRET_SESSION not in page.text and SECRET_ADDRESS not in page.text
    assert re.search(r"<code>s-[0-9a-f]{10}</code>", page.text) and re.search(
        r"<code>a-[0-9a-f]{10}</code>", page.text
    )
    flagged = client.get("/api/v1/admin/votes/flagged").json()
    assert sorted((g["kind"], g["votes"]) for g in flagged) == [("address", 1), ("session", 2)]
    assert SECRET_SESSION not in str(flagged) and SECRET_ADDRESS not in str(flagged)
    assert client.post("/admin/votes/refilter", data={"csrf": csrf}).status_code == 303
    queued = client.post("/admin/votes/snapshot", data={"csrf": csrf})
    assert queued.status_code == 303 and "queued=" in queued.headers["location"]
    with Session(world) as session:
        actions = [
            (a.actor, a.action, a.source) for a in session.exec(select(AuditEntry).order_by(AuditEntry.id))
        ]
        assert session.exec(select(JobRun.job)).all() == ["rating_snapshot"]
    assert ("opal", "votes.refilter", "web") in actions and ("opal", "jobs.queue", "web") in actions


def test_prompt_page_shows_outputs_side_by_side_with_vote_figures(site):
    client, _, prompt, _ = site
    page = client.get(f"/admin/prompts/{prompt}")
    assert page.status_code == 200
    images = re.findall(r'src="(/admin/outputs/\d+/image)"', page.text)
    assert len(images) == 4  # four text-to-image models have an output for it
    image = client.get(images[0])
    assert image.status_code == 200 and image.headers["content-type"].startswith("image/")
    assert httpx.get(str(client.base_url) + images[0]).status_code == 401  # not without a session
    assert "7 raw vote(s), 4 kept after the filters." in page.text
    # kept: model-0 wins once (s1), model-1 twice (s2, s3), one tie (s3)
    assert (
        "1 W · 2 L · 1 T of 4 kept vote(s)" in page.text and "2 W · 1 L · 1 T of 4 kept vote(s)" in page.text
    )
    detail = client.get("/api/v1/admin/prompts", params={"q": prompt}).json()
    assert detail["total"] >= 1 and detail["prompts"][0]["id"] == prompt


def test_models_page_deactivates_without_losing_votes_and_the_jobs_page_retries_failures(site):
    client, world, _, csrf = site
    page = client.get("/admin/models")
    assert page.status_code == 200 and 'data-model="model-1"' in page.text
    row = next(m for m in client.get("/api/v1/admin/models").json() if m["slug"] == "model-1")
    assert (row["votes"], row["outputs_ok"], row["active"]) == (7, 8, True)
    done = client.post(
        "/admin/models/model-1/set",
        data={"csrf": csrf, "field": "active", "value": "false", "confirm": "yes"},
    )
    assert done.status_code == 303
    row = next(m for m in client.get("/api/v1/admin/models").json() if m["slug"] == "model-1")
    assert (row["votes"], row["active"]) == (7, False)
    assert (
        client.post(
            "/admin/models/model-1/set", data={"csrf": csrf, "field": "active", "value": "no"}
        ).status_code
        == 422
    )
    with Session(world) as session:
        assert session.get(Model, "model-1").active is False
        out = session.exec(select(Output).where(Output.model_slug == "model-2")).first()
        out.status, out.error_kind, out.error_message = "failed", "refused", "content policy"
        session.add(out)
        session.commit()
        entry = session.exec(select(AuditEntry).where(AuditEntry.action == "models.set_active")).one()
    assert (entry.actor, entry.before, entry.after) == ("opal", {"active": True}, {"active": False})
    jobs = client.get("/admin").text
    assert 'data-model="model-2"' in jobs and "content policy" in jobs and "Retry failed" in jobs
    status = {b["model"]: b for b in client.get("/api/v1/admin/jobs").json()["backfill"]}
    assert (status["model-2"]["failed"], status["model-2"]["failure_kinds"]) == (1, {"refused": 1})
    retry = client.post(
        "/admin/jobs/generation_backfill/run", data={"csrf": csrf, "model": "model-2", "retry_failed": "1"}
    )
    assert retry.status_code == 303
    with Session(world) as session:
        run = session.exec(select(JobRun)).one()
    assert run.details["params"] == {"model": "model-2", "retry_failed": True}
