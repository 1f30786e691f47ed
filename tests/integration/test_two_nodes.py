"""Two web nodes on one machine: two `arena serve` processes on different ports sharing one PostgreSQL schema and
one Redis namespace, each running the scheduler with a 10 s lease. Voters load both (matchup from one node, vote
on the other, proof of work solved); the node holding the scheduler lease is killed with SIGKILL mid-run.

Afterwards every acknowledged vote is stored exactly once, a voter alternating between the nodes met one rate
limit (not one per node), and the lease moved to the surviving node. Needs PostgreSQL and Redis on 127.0.0.1;
skipped (with the reason) when either does not answer, or when ARENA_TEST_POSTGRES=0."""

import collections
import os
import secrets
import time

import httpx
import pytest
import redis
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from tests.support.nodes import Node, PairVoter, free_port, stored_once
from tests.support.pg_schemas import PG_URL

pytestmark = pytest.mark.slow

REDIS = "redis://127.0.0.1:6379/0"
LEASE_SECONDS = 10  # the shortest lease the settings accept
SESSION_VOTES_PER_MINUTE = (
    3  # a session's bucket: 6 requests a minute, a burst of 2 (one matchup and its vote)
)
DEADLINE = 240.0  # generous: the machine may be shared and slow; nothing here asserts a speed


@pytest.fixture(autouse=True)
def _services() -> None:
    """Skip, saying why, unless PostgreSQL and Redis both answer."""
    if os.environ.get("ARENA_TEST_POSTGRES") == "0":
        pytest.skip("ARENA_TEST_POSTGRES=0: the two-node test needs PostgreSQL")
    engine = create_engine(PG_URL)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError as exc:
        pytest.skip(f"PostgreSQL at {PG_URL} does not answer: {str(exc.orig).splitlines()[0]}")
    finally:
        engine.dispose()
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at {REDIS} does not answer: {exc}")


def _lease(database_url: str) -> str | None:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT holder FROM scheduler_leases")).scalar()
    finally:
        engine.dispose()


def _holder_pid(holder: str | None) -> int | None:
    """The process id in a holder name (host:pid:suffix, scheduler.lease.new_holder_id)."""
    return int(holder.split(":")[-2]) if holder else None


def _wait_for(what: str, check, deadline: float = DEADLINE):
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    pytest.fail(f"gave up after {deadline:.0f} s waiting for {what}")


def _one_session_across_nodes(urls: list[str], attempts: int) -> tuple[int, dict[str, int], float]:
    """Matchup requests of one session alternately to each node, back to back: how many were allowed, the
    429s per node, and how long the burst took (for the tokens refilled meanwhile)."""
    refused = dict.fromkeys(urls, 0)
    allowed = 0
    began = time.monotonic()
    with httpx.Client(timeout=30) as client:  # one cookie jar: the same session on both ports
        for k in range(attempts):
            url = urls[k % len(urls)]
            r = client.post(f"{url}/api/v1/matchups", json={"modality": "text_to_image"})
            assert r.status_code in (200, 429), r.text
            allowed += r.status_code == 200
            refused[url] += r.status_code == 429
    return allowed, refused, time.monotonic() - began


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_two_nodes_share_limits_keep_every_acknowledged_vote_and_hand_over_the_lease(
    settings, world, database_url, tmp_path
):
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": database_url,
        "ARENA_MEDIA_DIR": str(settings.media_dir),
        "ARENA_MODELS_FILE": str(settings.models_file),
        "ARENA_SECRET_KEY": secrets.token_hex(16),  # the same on both nodes; a fresh Redis namespace
        "ARENA_REDIS_URL": REDIS,
        "ARENA_SCHEDULER_ENABLED": "true",
        "ARENA_SCHEDULER_LEASE_SECONDS": str(LEASE_SECONDS),
        "ARENA_SESSION_VOTES_PER_MINUTE": str(SESSION_VOTES_PER_MINUTE),
        "ARENA_ADDRESS_VOTES_PER_MINUTE": "100000",  # every voter here comes from 127.0.0.1
        "ARENA_MIN_VOTE_SECONDS": "0",
        "ARENA_POW_DIFFICULTY_BITS": "4",
        "ARENA_LOG_LEVEL": "warning",
    }
    nodes = []
    voters: list[PairVoter] = []
    try:
        for _ in range(2):
            port = free_port()
            nodes.append(Node.start({**env, "ARENA_PORT": str(port)}, tmp_path / f"node-{port}.log"))
        urls = [n.url for n in nodes]
        by_pid = {n.pid: n for n in nodes}
        holder = _wait_for("one node to hold the scheduler lease", lambda: _lease(database_url))
        victim = by_pid[_holder_pid(holder)]
        survivor = next(n for n in nodes if n is not victim)

        voters = [PairVoter(urls, offset=i) for i in range(4)]
        for v in voters:
            v.start()
        _wait_for("20 acknowledged votes", lambda: sum(len(v.tally.acknowledged) for v in voters) >= 20)

        allowed, refused, took = _one_session_across_nodes(urls, attempts=12)
        refill = int(took * SESSION_VOTES_PER_MINUTE * 2 / 60)  # tokens the bucket regained during the burst
        assert allowed <= 2 + refill, f"{allowed} of 12 allowed in {took:.1f} s: each node gave its own burst"
        assert all(refused.values()), f"a node never refused the limited session: {refused}"

        victim.kill()
        killed = time.monotonic()
        moved = _wait_for(
            "the lease to move to the surviving node",
            lambda: _holder_pid(_lease(database_url)) == survivor.pid,
        )
        assert moved
        _wait_for(
            "10 votes acknowledged after the kill",
            lambda: sum(1 for v in voters for t in list(v.acknowledged_at) if t > killed) >= 10,
        )
    finally:
        for v in voters:
            v.stop.set()
        for v in voters:
            v.join(timeout=60)
        for n in nodes:
            n.stop()
    check = stored_once(database_url, [m for v in voters for m in v.tally.acknowledged])
    assert check["lost"] == 0 and check["stored more than once"] == 0, check
    assert check["acknowledged twice"] == 0, check
    answers = sum((v.tally.answers for v in voters), start=collections.Counter())
    print(f"answers {dict(answers)}; votes {check}; one session over both nodes: {allowed} of 12 allowed")
    assert answers["vote 200"] == check["acknowledged"]
    assert not {label for label in answers if label.startswith(("matchup 5", "vote 5"))}, answers
