"""Clearing a false positive from the console over real HTTP on both databases: the group's votes count again
(the tallies move, so the next snapshot counts them), the raw votes and the filters' verdicts stay (marked
cleared), a re-run of the filters keeps the clearance, and the action is audited with its reason."""

from __future__ import annotations

import re

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import AuditEntry, Vote, VoteVerdict
from arena.ops import operators
from arena.voting.filters.batch import _replace
from arena.voting.filters.groups import Flag
from arena.voting.filters.registry import REGISTRY
from arena.voting.review import daily_counts
from arena.voting.tallies import update_tallies
from tests.conftest import serve
from tests.integration.test_console_pages import DAY2, _votes


@pytest.fixture
def site(settings, world):
    _, ids = _votes(world)
    update_tallies(world)
    with Session(world) as session:
        token = operators.add_operator(session, "opal", "operator", actor="test")
    with serve(create_app(settings, engine=world)) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.post("/admin/login", data={"token": token}).status_code == 303
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/admin").text).group(1)
        yield client, world, ids, csrf


def _kept_tally(world) -> int:
    with world.connect() as conn:
        return int(conn.exec_driver_sql("SELECT SUM(kept) FROM vote_tallies").scalar())


def test_an_operator_clears_a_false_positive_and_the_votes_count_again(site):
    client, world, ids, csrf = site
    page = client.get("/admin/votes").text
    assert 'action="/admin/votes/clear"' in page
    session_group = next(
        g for g in client.get("/api/v1/admin/votes/flagged").json() if g["kind"] == "session"
    )
    who = session_group["who"]
    assert (
        client.post("/admin/votes/clear", data={"csrf": csrf, "who": who, "reason": " "}).status_code == 422
    )
    assert client.post("/admin/votes/clear", data={"who": who, "reason": "x"}).status_code == 403
    kept_before = _kept_tally(world)
    done = client.post(
        "/admin/votes/clear", data={"csrf": csrf, "who": who, "reason": "a lab colleague, known"}
    )
    assert done.status_code == 303 and "1%20vote" in done.headers["location"]
    # vote 3 counts again; vote 4 stays filtered by the address filter (another group)
    assert _kept_tally(world) == kept_before + 1
    assert daily_counts(world, now=DAY2)["kept"][-1] == 3
    with Session(world) as session:
        assert len(session.exec(select(Vote)).all()) == 7  # no vote deleted
        verdicts = {(v.vote_id, v.filter): v for v in session.exec(select(VoteVerdict))}
        audit = session.exec(select(AuditEntry).where(AuditEntry.action == "votes.clear")).one()
    likelihood = verdicts[(ids[3], "likelihood")]
    assert likelihood.kept and "cleared by operator; the filter said: session likelihood p=2e-05" in (
        likelihood.reason
    )
    assert verdicts[(ids[3], "operator")].reason == "cleared by operator opal: a lab colleague, known"
    assert not verdicts[(ids[4], "address_favoritism")].kept
    assert (audit.actor, audit.target, audit.after["reason"]) == ("opal", who, "a lab colleague, known")
    assert all(g["who"] != who for g in client.get("/api/v1/admin/votes/flagged").json())
    # a later run of the filter flagging the same vote again keeps it cleared (and counted)
    with world.begin() as conn:
        flags = [Flag(vote_id=ids[3], filter="likelihood", reason="session likelihood p=1e-05")]
        _replace(conn, [ids[3], ids[4]], flags, REGISTRY.batch("session"), DAY2)
    assert _kept_tally(world) == kept_before + 1
    with Session(world) as session:
        again = session.get(VoteVerdict, (ids[3], "likelihood"))
    assert again.kept and again.reason.startswith(
        "cleared by operator; the filter said: session likelihood p=1e-05"
    )
    with world.begin() as conn:  # the address filter's flag of vote 4 (another group) is not cleared by it
        flags = [Flag(vote_id=ids[4], filter="address_favoritism", reason="address favours model-0")]
        _replace(conn, [ids[4]], flags, REGISTRY.batch("address"), DAY2)
    assert _kept_tally(world) == kept_before + 1
