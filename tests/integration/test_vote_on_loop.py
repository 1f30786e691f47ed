"""PostgreSQL without Redis: while a server runs, matchups and votes run on its event loop with async
connections (arena.voting.async_raw, opened by the app's lifespan), with the answers of the thread path: a vote
stored once and acknowledged, a second vote 409, another session's vote 403, an unknown matchup 404; the pool is
closed with the server; connections the database dropped cost one 503, after which the pool checks the others
before use. The thread path is made to fail, so every answer here comes from the loop."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import func, select, text

from arena.app import create_app
from arena.db.tables import Vote
from arena.voting import pow as proof
from arena.web.context import context_of
from tests.conftest import serve
from tests.support.demo_field import build_demo_field


def _refuse(*_args, **_kwargs):
    raise AssertionError("the vote path ran on a thread")


def _matchup(client: httpx.Client) -> dict:
    response = client.post("/api/v1/matchups", json={"modality": "text_to_image"})
    assert response.status_code == 200, response.text
    return response.json()


def _vote(client: httpx.Client, served: dict, choice: str = "left") -> httpx.Response:
    nonce = proof.solve(served["challenge"], served["difficulty"])
    return client.post("/api/v1/votes", json={"matchup_id": served["id"], "choice": choice, "nonce": nonce})


def _loop_only_app(settings, initialized):
    """An app on a demo field whose thread path fails: every matchup and vote it answers ran on the loop."""
    build_demo_field(settings, initialized, models=4, prompts=4)
    app = create_app(settings, engine=initialized)
    ctx = context_of(app)
    ctx.pool.get("text_to_image")  # loaded, so no request needs the blocking first load (a thread)
    ctx.arena.serve_matchup = _refuse  # type: ignore[method-assign]
    ctx.arena.cast_vote = _refuse  # type: ignore[method-assign]
    return app, ctx


def test_matchups_and_votes_run_on_the_loop_with_the_thread_paths_answers(settings, initialized):
    if initialized.dialect.name != "postgresql":
        pytest.skip("SQLite runs the vote path on the loop with its own driver (test_vote_inline)")
    app, ctx = _loop_only_app(settings, initialized)
    assert ctx.arena.async_db is None
    with (
        serve(app) as base,
        httpx.Client(base_url=base, timeout=30) as alice,
        httpx.Client(base_url=base, timeout=30) as bob,
    ):
        assert ctx.arena.async_db is not None
        served = [_matchup(alice) for _ in range(5)]
        assert len({s["id"] for s in served}) == 5
        first = _vote(alice, served[0])
        assert first.status_code == 200 and first.json()["matchup"] == served[0]["id"]
        assert _vote(alice, served[0], "right").status_code == 409
        _matchup(bob)  # bob has a session, not alice's matchups
        assert _vote(bob, served[1]).status_code == 403
        assert _vote(alice, {**served[1], "id": "no-such-matchup"}).status_code == 404
        assert _vote(alice, served[1], "tie").status_code == 200
        bad = alice.post(
            "/api/v1/votes", json={"matchup_id": served[2]["id"], "choice": "left", "nonce": "x"}
        )
        assert bad.status_code == 403 and "proof of work" in bad.json()["detail"]
    assert ctx.arena.async_db is None  # closed with the server
    with initialized.connect() as conn:
        stored = conn.execute(select(Vote.matchup_id, Vote.winner).order_by(Vote.id)).all()
        assert conn.execute(select(func.count()).select_from(Vote)).scalar_one() == 2
    assert [m for m, _ in stored] == [served[0]["id"], served[1]["id"]]
    assert stored[1][1] == "tie"


def test_dropped_connections_cost_one_503_then_the_pool_reconnects(settings, initialized):
    if initialized.dialect.name != "postgresql":
        pytest.skip("the async pool is PostgreSQL's")
    app, ctx = _loop_only_app(settings, initialized)
    with serve(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        db = ctx.arena.async_db
        assert db is not None

        def one(_: int) -> dict:
            with httpx.Client(base_url=base, timeout=30) as voter:
                return _matchup(voter)

        with ThreadPoolExecutor(8) as pool:  # together, so the pool opens several connections
            list(pool.map(one, range(32)))
        pids = [conn.info.backend_pid for conn in db._open]
        assert len(pids) > 1
        with initialized.connect() as admin:  # as a database restart would, for this pool's connections only
            for pid in pids:  # (the timeout makes it wait for the exit)
                admin.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid})
        failed = client.post("/api/v1/matchups", json={"modality": "text_to_image"})
        assert failed.status_code == 503 and int(failed.headers["retry-after"]) > 0

        def status(_: int) -> int:
            with httpx.Client(base_url=base, timeout=30) as voter:
                return voter.post("/api/v1/matchups", json={"modality": "text_to_image"}).status_code

        with ThreadPoolExecutor(8) as pool:  # together, so they take the other dropped connections too
            assert list(pool.map(status, range(32))) == [200] * 32


def test_a_connection_given_back_goes_to_the_request_that_waited_longest(initialized):
    """With asyncio.Queue a request arriving as a connection came back could take it before the ones waiting,
    over and over: at 64 voters some requests waited a second."""
    if initialized.dialect.name != "postgresql":
        pytest.skip("the async pool is PostgreSQL's")
    from arena.voting.async_raw import AsyncRawPool

    async def scenario() -> list[str]:
        pool = AsyncRawPool(initialized, size=1)
        order: list[str] = []

        async def use(name: str, hold: float) -> None:
            async with pool.connection():
                order.append(name)
                await asyncio.sleep(hold)

        async def first_then_again() -> None:
            async with pool.connection():
                order.append("first")
                await asyncio.sleep(0.2)
            async with pool.connection():  # asks again at once, before any waiter has run
                order.append("late")

        first = asyncio.create_task(first_then_again())
        await asyncio.sleep(0.05)
        waiting = [asyncio.create_task(use(f"waiter-{k}", 0.01)) for k in range(3)]
        await asyncio.gather(first, *waiting)
        await pool.close()
        return order

    assert asyncio.run(scenario()) == ["first", "waiter-0", "waiter-1", "waiter-2", "late"]
