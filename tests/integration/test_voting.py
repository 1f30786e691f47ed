"""Matchups and votes over real HTTP on both databases: blind until the vote, single-use, session-bound,
short-lived, and exactly one vote stored under concurrency."""

import re
import threading
from datetime import timedelta

import httpx
import pytest
from sqlmodel import Session, func, select

from arena.app import create_app
from arena.db.tables import Model, Output, Prompt, Vote, VoteVerdict
from arena.voting import pow as proof
from tests.conftest import serve


@pytest.fixture
def voter(live_world):
    with httpx.Client(base_url=live_world, timeout=20) as client:
        yield client


def _matchup(client, modality="text_to_image"):
    response = client.post("/api/v1/matchups", json={"modality": modality})
    assert response.status_code == 200, response.text
    return response.json()


def _fetch(client, m):
    for url in m["images"].values():
        assert client.get(url).status_code == 200


def _vote(client, m, choice="left", **extra):
    body = {
        "matchup_id": m["id"],
        "choice": choice,
        "nonce": proof.solve(m["challenge"], m["difficulty"]),
        **extra,
    }
    return client.post("/api/v1/votes", json=body)


def test_a_vote_is_stored_once_with_reveal_and_verdicts(voter, world, frozen):
    m = _matchup(voter)
    assert set(m["images"]) == {"left", "right"} and m["hints"]
    _fetch(voter, m)
    frozen.advance(timedelta(seconds=3))
    response = _vote(voter, m, "right")
    assert response.status_code == 200
    reveal = response.json()
    assert reveal["counted"] is True
    assert reveal["left"]["name"].startswith("Model ") and reveal["right"]["organization"].startswith("Org ")
    assert reveal["right"]["url"] == "/models/" + reveal["right"]["slug"] and reveal["left"]["badges"] == []
    with Session(world) as s:
        vote = s.exec(select(Vote)).one()
        verdicts = {v.filter: v for v in s.exec(select(VoteVerdict).where(VoteVerdict.vote_id == vote.id))}
    right_slug = reveal["right"]["slug"]
    assert vote.winner == ("model_a" if vote.model_a == right_slug else "model_b")
    assert vote.a_side == ("right" if vote.model_a == right_slug else "left")
    assert vote.source == "human" and vote.methodology and vote.images_fetched
    assert set(verdicts) == {"min_time", "honeypot", "image_fetch"}
    assert all(v.kept for v in verdicts.values())


def test_a_vote_the_online_filters_reject_is_stored_but_reveals_nothing(voter, world):
    with Session(world) as s:
        models = s.exec(select(Model)).all()
    names = [w for m in models for w in (m.slug, m.display_name, m.organization)]
    m = _matchup(voter)
    _fetch(voter, m)
    response = _vote(voter, m, "left")  # the frozen clock has not moved: 0 s after serving
    assert response.status_code == 200
    answer = response.json()
    assert answer["counted"] is False and "left" not in answer and "right" not in answer
    assert "recorded but not counted" in answer["message"] and "< 2s" in answer["message"]
    assert not any(name in response.text for name in names)
    with Session(world) as s:
        vote = s.exec(select(Vote)).one()
        verdict = s.exec(select(VoteVerdict).where(VoteVerdict.filter == "min_time")).one()
    assert vote.matchup_id == m["id"] and not verdict.kept


def test_nothing_before_the_vote_names_a_model(voter, world):
    with Session(world) as s:
        models = s.exec(select(Model)).all()
    secrets = [w for m in models for w in (m.slug, m.display_name, m.organization)] + ["sandbox", "Org "]
    page = voter.get("/")
    m_response = voter.post("/api/v1/matchups", json={"modality": "text_to_image"})
    m = m_response.json()
    images = [voter.get(url) for url in m["images"].values()]
    received = page.text + m_response.text + "".join(str(r.headers) for r in [page, m_response, *images])
    received += str(voter.cookies)
    for secret in secrets:
        assert secret not in received, secret
    for image in images:
        assert image.headers["cache-control"] == "no-store, no-transform"
        assert "etag" not in image.headers and "last-modified" not in image.headers
        assert b"model" not in image.content.lower() and b"sandbox" not in image.content.lower()
    assert re.fullmatch(r"/img/[A-Za-z0-9_-]{32}", m["images"]["left"])
    # Ids are fresh per matchup: the same output never comes back under the same URL.
    again = _matchup(voter)
    assert not set(again["images"].values()) & set(m["images"].values())


def test_second_vote_other_session_unknown_expired_and_malformed_are_refused(
    voter, world, live_world, frozen
):
    m = _matchup(voter)
    assert _vote(voter, m).status_code == 200
    second = _vote(voter, m, "left")
    assert second.status_code == 409 and "already has a vote" in second.json()["detail"]
    other_m = _matchup(voter)
    with httpx.Client(base_url=live_world) as stranger:
        stranger.post("/api/v1/matchups", json={})
        foreign = _vote(stranger, other_m)
        assert foreign.status_code == 403 and "another session" in foreign.json()["detail"]
        assert stranger.get(other_m["images"]["left"]).status_code == 404
    unknown = voter.post("/api/v1/votes", json={"matchup_id": "x" * 32, "choice": "left"})
    assert unknown.status_code == 404
    bad = voter.post("/api/v1/votes", json={"matchup_id": other_m["id"], "choice": "sideways"})
    assert bad.status_code == 422
    extra = voter.post("/api/v1/votes", json={"matchup_id": other_m["id"], "choice": "left", "admin": True})
    assert extra.status_code == 422
    no_pow = voter.post(
        "/api/v1/votes", json={"matchup_id": other_m["id"], "choice": "left", "nonce": "nope"}
    )
    assert no_pow.status_code == 403 and "proof of work" in no_pow.json()["detail"]
    frozen.advance(timedelta(hours=1))
    expired = _vote(voter, other_m)
    assert expired.status_code == 410
    with Session(world) as s:
        assert s.exec(select(func.count()).select_from(Vote)).one() == 1


def test_cross_origin_posts_are_refused(voter, world):
    response = voter.post("/api/v1/matchups", json={}, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    response = voter.post("/api/v1/matchups", json={}, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403


def test_one_hundred_concurrent_votes_on_one_matchup_store_exactly_one(settings, world, frozen):
    # One loopback address stands for 100 racing clients: lift the per-address in-flight cap and rate limits
    # so all 100 race on the vote itself (with the defaults most would be answered 429 before voting).
    roomy = settings.model_copy(
        update={
            "max_requests_per_address": 1000,
            "session_votes_per_minute": 1000,
            "address_votes_per_minute": 1000,
        }
    )
    with (
        serve(create_app(roomy, engine=world, clock=frozen)) as live_world,
        httpx.Client(base_url=live_world, timeout=20) as voter,
    ):
        _race_one_hundred_votes(voter, world, live_world)


def _race_one_hundred_votes(voter, world, live_world):
    m = _matchup(voter)
    nonce = proof.solve(m["challenge"], m["difficulty"])
    cookies = dict(voter.cookies)
    statuses = []
    barrier = threading.Barrier(100)

    def cast():
        with httpx.Client(base_url=live_world, cookies=cookies, timeout=60) as c:
            barrier.wait()
            statuses.append(
                c.post(
                    "/api/v1/votes", json={"matchup_id": m["id"], "choice": "left", "nonce": nonce}
                ).status_code
            )

    threads = [threading.Thread(target=cast) for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(statuses) == 100
    assert statuses.count(200) == 1
    assert statuses.count(409) == 99, sorted(set(statuses))  # every other one raced to the vote and lost
    with Session(world) as s:
        assert s.exec(select(func.count()).select_from(Vote)).one() == 1


def test_operators_see_each_models_share_of_matchups(voter, world):
    for _ in range(6):
        _matchup(voter)
    assert voter.get("/api/v1/admin/sampling").status_code == 401
    audit = voter.get(
        "/api/v1/admin/sampling", headers={"Authorization": "Bearer test-operator-token"}
    ).json()
    shares = {m["model"]: m["share"] for m in audit["models"]}
    assert set(shares) == {"model-0", "model-1", "model-2", "model-3"}
    assert abs(sum(shares.values()) - 2.0) < 1e-3  # every matchup has two models (shares rounded to 4 places)
    # the cap is relative to the uniform share: 1.5 x 2 / 4 models
    assert audit["model_share_factor"] == 1.5 and audit["max_share"] == 0.75
    live = {m["model"]: m["window_share"] for m in audit["models"]}
    assert (
        abs(sum(live.values()) - 12 / 199) < 1e-3
    )  # 6 matchups of the window of 199 (a count, not yet full)
    assert not any(m["capped"] for m in audit["models"])
    assert {m["planned_share"] for m in audit["models"]} == {0.0}  # no snapshot yet, so no vote plan


def test_served_media_answers_without_caching_hints_and_refuses_unknown_ids_and_path_tricks(voter, world):
    with Session(world) as s:
        output = s.exec(select(Output).where(Output.status == "ok")).first()
        media_id, prompt_id = output.media_id, output.prompt_id
    assert voter.get(f"/media/{media_id}").status_code == 404  # a live output: never public by id
    with Session(world) as s:
        prompt = s.get(Prompt, prompt_id)
        prompt.status = "retired"
        s.add(prompt)
        s.commit()
    ok = voter.get(f"/media/{media_id}")
    assert ok.status_code == 200 and ok.headers["content-type"] == "image/jpeg"
    assert ok.headers["cache-control"] == "no-store"
    assert "etag" not in ok.headers and "last-modified" not in ok.headers
    for bad in ("x" * 32, media_id[:-1], media_id + ".jpg", "..%2F..%2Fsecret_key", "%2E%2E%2Fserved"):
        assert voter.get(f"/media/{bad}").status_code == 404
