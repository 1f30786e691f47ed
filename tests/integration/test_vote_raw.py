"""The vote path's statements through the driver (arena.voting.raw), on both databases: what they write reads
back through SQLAlchemy exactly as SQLAlchemy would have written it (aware UTC times, JSON signals, boolean
verdicts), what they read equals SQLAlchemy's own rows, driver errors arrive as SQLAlchemy's exceptions, and a
PostgreSQL connection goes back to the pool out of autocommit."""

from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from arena.db.tables import Matchup, Vote, VoteVerdict, utcnow
from arena.voting import queries
from arena.voting.filters.registry import REGISTRY
from arena.voting.raw import raw_connection
from arena.voting.service import ArenaService, VoteError, Voter
from prompts_taxonomy import load_taxonomy
from tests.support.demo_field import build_demo_field


@pytest.fixture
def service(settings, initialized):
    build_demo_field(settings, initialized, models=3, prompts=2)
    return ArenaService(initialized, settings.model_copy(update={"min_vote_seconds": 0}), load_taxonomy())


def test_a_matchup_and_its_vote_written_through_the_driver_read_back_as_sqlalchemy_writes_them(service):
    engine = service.engine
    now = utcnow()
    voter = Voter("s" * 32, "c" * 32, source="simulated")
    served = service.serve_matchup(voter, "text_to_image", np.random.default_rng(1), now)
    answer = service.cast_vote(voter, served["id"], "left", now + timedelta(seconds=3))
    assert answer["matchup"] == served["id"]
    with engine.connect() as conn:
        m = conn.execute(select(Matchup.__table__).where(Matchup.id == served["id"])).one()
        v = conn.execute(select(Vote.__table__).where(Vote.matchup_id == served["id"])).one()
        verdicts = conn.execute(select(VoteVerdict.__table__).where(VoteVerdict.vote_id == v.id)).all()
        sa_row = conn.execute(queries.VOTE_READ, {"matchup_id": served["id"]}).one()
    assert m.served_at == now and m.served_at.utcoffset() == timedelta(0)
    assert m.expires_at == now + timedelta(seconds=service.settings.matchup_ttl_seconds)
    assert m.left_fetched_at is None and m.session_id == voter.session_id
    assert v.voted_at == now + timedelta(seconds=3) and v.served_at == now
    assert v.signals == {"honeypot": False, "images_fetched": False, "seconds": 3.0}
    assert verdicts and all(isinstance(r.kept, bool) for r in verdicts)
    assert {r.filter for r in verdicts} == {f.name for f in REGISTRY.online}
    with raw_connection(engine, autocommit=False) as conn:
        raw_row = conn.first(service._queries.vote_read, {"matchup_id": served["id"]})
    assert tuple(raw_row) == tuple(sa_row)
    assert raw_row.expires_at.utcoffset() == timedelta(0)


def test_a_second_vote_is_refused_by_the_database_as_sqlalchemy_would_report_it(service):
    now = utcnow()
    voter = Voter("t" * 32, "c" * 32, source="simulated")
    served = service.serve_matchup(voter, "text_to_image", np.random.default_rng(2), now)
    service.cast_vote(voter, served["id"], "right", now)
    with pytest.raises(VoteError) as refused:
        service.cast_vote(voter, served["id"], "left", now)
    assert refused.value.status == 409
    with raw_connection(service.engine, autocommit=service.engine.dialect.name != "sqlite") as conn:
        row = conn.first(service._queries.vote_read, {"matchup_id": served["id"]})
        values = {c: getattr(row, c, None) for c in queries.MATCHUP_COLUMNS}
        values |= {"left_token": "x" * 32, "right_token": "y" * 32, "client_hash": "c", "source": "human"}
        with pytest.raises(IntegrityError):  # same id: the driver's error, as SQLAlchemy's exception
            conn.run(service._queries.insert_matchup, values)
    with service.engine.connect() as c:
        assert len(c.execute(select(Vote.id).where(Vote.matchup_id == served["id"])).all()) == 1


def test_a_postgresql_connection_leaves_autocommit_when_it_goes_back_to_the_pool(service):
    if service.engine.dialect.name != "postgresql":
        pytest.skip("autocommit is PostgreSQL's")
    with raw_connection(service.engine, autocommit=True) as conn:
        dbapi = conn.dbapi
        assert dbapi.autocommit is True
    assert dbapi.autocommit is False
