"""SQLite's in-memory view of the variety rules (arena.voting.served_history) against the SQL that reads it from
scratch (`queries.SERVE_READ`, what PostgreSQL runs): after every serve and vote of two services over one
database (two server processes), with matchups committed out of `served_at` order, sessions longer than the
first-matchups rule, a session cap that forces reloads, and a database that goes back."""

from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import Engine, text

from arena.db.tables import utcnow
from arena.voting import queries
from arena.voting.matchmaking import FIRST_MATCHUPS
from arena.voting.raw import raw_connection
from arena.voting.served_history import ServedHistory
from arena.voting.service import ArenaService, Voter
from prompts_taxonomy import load_taxonomy
from tests.support.demo_field import build_demo_field


def _from_sql(engine: Engine, modality: str, session: str) -> tuple:
    with raw_connection(engine, autocommit=False) as conn:
        rows = conn.all(
            queries.PreparedQueries(engine.dialect).serve_read, {"modality": modality, "session": session}
        )
    return queries.recent_and_seen(rows)


def _same(history: ServedHistory, engine: Engine, modality: str, session: str) -> None:
    with raw_connection(engine, autocommit=False) as conn:
        got, got_seen = history.recent(conn, modality, session)
    want, want_seen = _from_sql(engine, modality, session)
    assert dict(got.window) == dict(want.window)
    assert list(got.session_first) == list(want.session_first)
    assert list(got.session_last) == list(want.session_last)
    assert got.session_served == want.session_served
    assert got_seen == want_seen


@pytest.fixture
def field(settings, initialized):
    if initialized.dialect.name != "sqlite":
        pytest.skip("the in-memory view is SQLite's; PostgreSQL reads SERVE_READ")
    build_demo_field(settings, initialized)
    return settings, initialized


def test_the_view_in_memory_equals_the_sql_after_every_serve_and_vote_of_two_processes(field):
    settings, engine = field
    services = [ArenaService(engine, settings, load_taxonomy()) for _ in range(2)]
    assert all(s._history is not None for s in services)
    checker = ServedHistory(max_sessions=3)  # a third reader whose sessions keep being dropped and read again
    rng = np.random.default_rng(11)
    sessions = [f"s{k}" for k in range(6)]
    base = utcnow()
    open_matchups: list[tuple[int, str, str, object]] = []
    for step in range(400):
        session = str(rng.choice(sessions))
        service = services[step % 2]
        # served_at jumps back and forth (clocks of two machines), so commit order is not served_at order;
        # each value is unique, as among equal ones the SQL's order is arbitrary
        now = base + timedelta(milliseconds=int(10 * step + rng.integers(-40, 40)) + step / 1000)
        if step % 50 == 49:  # a clock a day behind: older than the whole window once it is full
            now -= timedelta(days=1)
        served = service.serve_matchup(Voter(session, source="sim"), "text_to_image", rng, now)
        open_matchups.append((step % 2, session, served["id"], now))
        if rng.random() < 0.5 and open_matchups:
            which, owner, matchup_id, at = open_matchups.pop(int(rng.integers(len(open_matchups))))
            services[1 - which].cast_vote(Voter(owner, source="sim"), matchup_id, "left", at)
        probe = str(rng.choice(sessions))
        _same(services[step % 2]._history, engine, "text_to_image", probe)
        _same(checker, engine, "text_to_image", probe)
    served_per_session = _from_sql(engine, "text_to_image", sessions[0])[0].session_served
    assert served_per_session == FIRST_MATCHUPS  # the sessions went past the first-matchups rule
    assert services[0]._history.resets == 0 and checker.resets == 0


def test_a_database_that_went_back_is_read_again(field):
    settings, engine = field
    service = ArenaService(engine, settings, load_taxonomy())
    rng = np.random.default_rng(5)
    now = utcnow()
    for k in range(5):
        service.serve_matchup(Voter("a", source="sim"), "text_to_image", rng, now + timedelta(seconds=k))
    history = service._history
    _same(history, engine, "text_to_image", "a")
    with (
        engine.begin() as conn
    ):  # newest rows gone (a restored backup): the rowid caught up to is past the end
        newest = conn.execute(text("SELECT max(rowid) FROM matchups")).scalar_one()
        conn.execute(text("DELETE FROM matchups WHERE rowid >= :r"), {"r": newest - 1})
    _same(history, engine, "text_to_image", "a")
    assert history.resets == 1
    _same(history, engine, "text_to_image", "a")
    assert history.resets == 1


def test_a_long_gap_is_read_again_rather_than_replayed(field, monkeypatch):
    settings, engine = field
    monkeypatch.setattr("arena.voting.served_history.MAX_CATCH_UP", 3)
    writer = ArenaService(engine, settings, load_taxonomy())
    reader = ServedHistory()
    rng = np.random.default_rng(9)
    now = utcnow()
    _same(reader, engine, "text_to_image", "b")
    for k in range(10):
        writer.serve_matchup(Voter("b", source="sim"), "text_to_image", rng, now + timedelta(seconds=k))
    _same(reader, engine, "text_to_image", "b")
    assert reader.resets == 1
