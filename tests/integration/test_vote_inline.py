"""On SQLite without Redis the vote path runs on the event loop (arena.web.voter.routes._run); these check that it
never makes the loop wait: a vote that finds SQLite's write lock held by another writer is stored once, by a
vote thread, while other requests keep being answered, and the retry takes no second rate-limit token."""

import sqlite3
import threading
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import make_url
from sqlmodel import Session, select
from starlette.requests import Request

from arena.app import create_app
from arena.db.tables import Vote
from arena.voting import pow as proof
from arena.web.context import context_of
from arena.web.voter.routes import _admit

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@SQLITE_ONLY
def test_a_vote_behind_another_writers_lock_waits_off_the_event_loop(settings, world, live_world, frozen):
    with httpx.Client(base_url=live_world, timeout=60) as client:
        m = client.post("/api/v1/matchups", json={"modality": "text_to_image"}).json()
        for url in m["images"].values():
            assert client.get(url).status_code == 200
        frozen.advance(timedelta(seconds=3))
        body = {
            "matchup_id": m["id"],
            "choice": "left",
            "nonce": proof.solve(m["challenge"], m["difficulty"]),
        }
        blocker = sqlite3.connect(make_url(settings.database_url).database, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # another writer holds SQLite's write lock
        answer: dict[str, httpx.Response] = {}
        sender = threading.Thread(target=lambda: answer.update(vote=client.post("/api/v1/votes", json=body)))
        sender.start()
        sender.join(0.5)  # the vote is now waiting for the lock
        with httpx.Client(base_url=live_world, timeout=5) as other:
            answered_meanwhile = [other.get("/healthz").status_code for _ in range(20)]
        still_waiting = "vote" not in answer
        blocker.execute("ROLLBACK")
        blocker.close()
        sender.join(60)
    assert still_waiting, "the vote did not wait for the lock"
    assert answered_meanwhile == [200] * 20  # the event loop kept answering while the vote waited
    assert answer["vote"].status_code == 200 and answer["vote"].json()["counted"] is True
    with Session(world) as s:
        assert [v.matchup_id for v in s.exec(select(Vote)).all()] == [m["id"]]


@SQLITE_ONLY
def test_an_admission_retried_on_a_vote_thread_takes_one_token(settings, world):
    app = create_app(settings, engine=world)
    assert context_of(app).vote_inline
    scope = {"type": "http", "app": app, "method": "POST", "path": "/api/v1/matchups", "headers": [],
             "client": ("203.0.113.9", 5000), "state": {}}  # fmt: skip
    request = Request(scope)
    first = _admit(request, new_session=True)
    again = _admit(request, new_session=True)
    assert again is first and first[1] is not None  # the same voter and new session, not a second one
    address = context_of(app).sessions.client_address(request)
    taken = context_of(app).address_limiter.burst - context_of(app).address_limiter._tokens(
        address, context_of(app).address_limiter.clock()
    )
    assert taken == pytest.approx(1.0, abs=0.01)
