"""K-wise battles over real HTTP on both databases (issue 31): serve four images of four distinct models for one
prompt in shuffled positions, nothing naming a model before the vote, vote by order or all-equal, reveal by
position only after the vote, bad input refused with a clear 4xx and nothing stored, a replayed vote refused,
the K-wise minimum time (pairwise minimum x K / 2) filtering fast votes, and the mode off by default."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from sqlalchemy import func, select

from arena.app import create_app
from arena.db.tables import KwiseMatchup, KwiseVerdict, KwiseVote, Model
from arena.voting import pow as proof
from arena.voting.kwise_service import kwise_min_seconds
from tests.conftest import serve


@pytest.fixture
def kwise_settings(settings):
    return settings.model_copy(
        update={"kwise": True, "address_votes_per_minute": 100_000, "session_votes_per_minute": 1000}
    )


@pytest.fixture
def client(kwise_settings, world, frozen):
    with (
        serve(create_app(kwise_settings, engine=world, clock=frozen)) as url,
        httpx.Client(base_url=url, timeout=20) as c,
    ):
        yield c


def _serve(client: httpx.Client) -> dict:
    r = client.post("/api/v1/kwise/matchups", json={"modality": "text_to_image"})
    assert r.status_code == 200, r.text
    return {**r.json(), "_raw": r.text + str(r.headers)}


def _fetch_all(client: httpx.Client, m: dict) -> None:
    for url in m["images"]:
        assert client.get(url).status_code == 200


def _vote(client: httpx.Client, m: dict, **body) -> httpx.Response:
    nonce = proof.solve(m["challenge"], m["difficulty"])
    return client.post("/api/v1/kwise/votes", json={"matchup_id": m["id"], "nonce": nonce, **body})


def _names(world) -> list[str]:
    with world.connect() as conn:
        rows = conn.execute(select(Model.slug, Model.display_name, Model.organization)).all()
    return [x for r in rows for x in r if x]


def test_a_matchup_shows_four_distinct_models_in_shuffled_positions_and_names_none(
    client, world, frozen, kwise_settings
):
    names = _names(world)
    orders = set()
    for _ in range(12):
        m = _serve(client)
        assert m["k"] == 4 and len(m["images"]) == 4 and len(set(m["images"])) == 4
        assert m["min_seconds"] == pytest.approx(kwise_settings.min_vote_seconds * 2)
        assert not [n for n in names if n.lower() in m["_raw"].lower()]
        with world.connect() as conn:
            models = conn.execute(select(KwiseMatchup.models).where(KwiseMatchup.id == m["id"])).scalar_one()
        assert len(set(models)) == 4
        orders.add(tuple(models))
    assert len(orders) >= 4  # screen positions are shuffled (12 draws of 24 orders)


def test_vote_by_order_reveals_models_by_position_and_a_replay_is_refused(client, world, frozen):
    m = _serve(client)
    _fetch_all(client, m)
    frozen.advance(timedelta(seconds=5))
    r = _vote(client, m, order=[2, 0, 3, 1])
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["counted"] is True and len(body["models"]) == 4
    with world.connect() as conn:
        vote = conn.execute(select(KwiseVote).where(KwiseVote.matchup_id == m["id"])).one()
    assert [x["slug"] for x in body["models"]] == list(vote.models)
    assert list(vote.ranking) == [vote.models[i] for i in (2, 0, 3, 1)]
    again = _vote(client, m, order=[0, 1, 2, 3])
    assert again.status_code == 409 and "already" in again.json()["detail"]
    for url in m["images"]:  # after the vote the image URLs are dead
        assert client.get(url).status_code == 404


def test_all_equal_is_stored_as_such(client, world, frozen):
    m = _serve(client)
    _fetch_all(client, m)
    frozen.advance(timedelta(seconds=5))
    r = _vote(client, m, all_equal=True)
    assert r.status_code == 200 and r.json()["counted"] is True
    with world.connect() as conn:
        vote = conn.execute(select(KwiseVote).where(KwiseVote.matchup_id == m["id"])).one()
    assert vote.all_equal and list(vote.ranking) == [] and list(vote.order) == []


@pytest.mark.parametrize(
    "body, status",
    [
        ({"order": [0, 1, 2]}, 422),
        ({"order": [0, 1, 1, 2]}, 422),
        ({"order": [0, 1, 2, 4]}, 422),
        ({"order": [0, 1, 2, 3], "all_equal": True}, 422),
        ({}, 422),
        ({"order": "0123"}, 422),
        ({"order": [0, 1, 2, 3], "colour": "red"}, 422),
    ],
)
def test_bad_input_is_a_clear_4xx_and_stores_nothing(client, world, frozen, body, status):
    m = _serve(client)
    frozen.advance(timedelta(seconds=5))
    r = _vote(client, m, **body)
    assert r.status_code == status, r.text
    assert r.json()["detail"]
    with world.connect() as conn:
        assert conn.execute(select(func.count()).select_from(KwiseVote)).scalar_one() == 0


def test_unknown_matchup_missing_proof_and_other_session_are_refused(client, kwise_settings, frozen):
    m = _serve(client)
    frozen.advance(timedelta(seconds=5))
    assert (
        client.post("/api/v1/kwise/votes", json={"matchup_id": "x" * 20, "order": [0, 1, 2, 3]}).status_code
        == 404
    )
    r = client.post("/api/v1/kwise/votes", json={"matchup_id": m["id"], "order": [0, 1, 2, 3], "nonce": "zz"})
    assert r.status_code == 403 and "proof of work" in r.json()["detail"]
    with httpx.Client(base_url=str(client.base_url)) as stranger:
        _serve(stranger)  # a session of its own
        assert stranger.get(m["images"][0]).status_code == 404
        assert _vote(stranger, m, order=[0, 1, 2, 3]).status_code == 403


def test_a_vote_faster_than_the_scaled_minimum_is_stored_filtered_and_not_revealed(
    client, world, frozen, kwise_settings
):
    minimum = kwise_min_seconds(kwise_settings)
    assert minimum == kwise_settings.min_vote_seconds * 4 / 2
    m = _serve(client)
    _fetch_all(client, m)
    frozen.advance(
        timedelta(seconds=kwise_settings.min_vote_seconds + 0.5)
    )  # enough for a pair, not for four
    r = _vote(client, m, order=[0, 1, 2, 3])
    assert r.status_code == 200
    body = r.json()
    assert body["counted"] is False and "models" not in body and "not counted" in body["message"]
    with world.connect() as conn:
        verdicts = conn.execute(select(KwiseVerdict.filter, KwiseVerdict.kept)).all()
    assert ("min_time", False) in verdicts


def test_images_not_fetched_are_filtered(client, world, frozen):
    m = _serve(client)
    client.get(m["images"][0])
    frozen.advance(timedelta(seconds=10))
    body = _vote(client, m, order=[0, 1, 2, 3]).json()
    assert body["counted"] is False and "models" not in body


def test_the_mode_is_off_by_default(settings, world, frozen):
    with serve(create_app(settings, engine=world, clock=frozen)) as url:
        r = httpx.post(url + "/api/v1/kwise/matchups", json={"modality": "text_to_image"})
        assert r.status_code == 404 and "ARENA_KWISE" in r.json()["detail"]


def test_my_votes_lists_the_sessions_rankings_and_hides_the_models_of_one_that_did_not_count(
    client, world, frozen
):
    assert client.get("/api/v1/me").json()["rankings"] == []
    counted = _serve(client)
    _fetch_all(client, counted)
    frozen.advance(timedelta(seconds=5))
    body = _vote(client, counted, order=[3, 1, 0, 2]).json()
    assert body["counted"] is True
    equal = _serve(client)
    _fetch_all(client, equal)
    frozen.advance(timedelta(seconds=5))
    assert _vote(client, equal, all_equal=True).json()["counted"] is True
    fast = _serve(client)
    _fetch_all(client, fast)
    frozen.advance(timedelta(seconds=1))
    assert _vote(client, fast, order=[0, 1, 2, 3]).json()["counted"] is False
    me = client.get("/api/v1/me").json()
    assert me["total_votes"] == 0 and me["total_rankings"] == 3
    newest, middle, oldest = me["rankings"]
    assert newest["counted"] is False and newest["models"] is None and newest["names"] is None
    assert newest["not_counted_because"] == [
        {"filter": "too fast", "reason": "voted 1.00s after serving (< 4s)"}  # the scaled K-wise minimum
    ]
    assert middle["all_equal"] is True and len(middle["models"]) == 4
    assert oldest["models"] == [body["models"][i]["slug"] for i in (3, 1, 0, 2)]  # best first, as ranked
    page = client.get("/me").text
    assert 'id="me-rankings"' in page and '3 "Rank four" rankings' in page
    assert " &gt; ".join(oldest["names"]) in page and "All about equal" in page and "hidden" in page
    assert 'id="me-votes"' not in page  # no pairwise votes: no empty pairwise table
    other = httpx.get(str(client.base_url) + "/api/v1/me").json()  # another browser: nothing of this session
    assert other["rankings"] == [] and other["total_rankings"] == 0
