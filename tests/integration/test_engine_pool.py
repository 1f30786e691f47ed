"""The PostgreSQL pool without pre-ping: a connection that died while idle is replaced at checkout, so the
request does not see it; a busy connection is not pinged (no round trip per request)."""

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError

from arena.db import engine as engine_module
from arena.db import make_engine
from tests.support.pg_schemas import PG_URL


def _terminate_backend_of(eng) -> None:
    with eng.connect() as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
    admin = make_engine(PG_URL)
    with admin.connect() as conn:  # the connection above is back in the pool, idle
        conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    admin.dispose()


@pytest.fixture
def pg_engine(database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("the ping-when-idle pool is PostgreSQL's (SQLite has no server connection)")
    eng = make_engine(database_url, pool_size=1, max_overflow=0)
    yield eng
    eng.dispose()


def test_a_connection_killed_while_idle_is_replaced_before_the_request_uses_it(pg_engine, monkeypatch):
    monkeypatch.setattr(engine_module, "IDLE_PING_SECONDS", 0.0)  # every checkout counts as idle
    _terminate_backend_of(pg_engine)
    with pg_engine.connect() as conn:
        assert conn.execute(text("SELECT 1")).scalar_one() == 1


def test_without_the_idle_ping_the_dead_connection_reaches_the_request(pg_engine, monkeypatch):
    monkeypatch.setattr(engine_module, "IDLE_PING_SECONDS", 3600.0)  # never idle long enough
    _terminate_backend_of(pg_engine)
    with pytest.raises(OperationalError), pg_engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    with pg_engine.connect() as conn:  # the failure replaced the pool's connections
        assert conn.execute(text("SELECT 1")).scalar_one() == 1


def test_a_busy_connection_is_not_pinged(pg_engine):
    statements: list[str] = []
    with pg_engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    event.listen(pg_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    pings = []
    monkey = pg_engine.dialect.do_ping
    pg_engine.dialect.do_ping = lambda c: pings.append(c) or monkey(c)  # type: ignore[method-assign]
    try:
        for _ in range(5):
            with pg_engine.connect() as conn:
                conn.execute(text("SELECT 2"))
    finally:
        pg_engine.dialect.do_ping = monkey  # type: ignore[method-assign]
    assert pings == [] and len(statements) == 5
