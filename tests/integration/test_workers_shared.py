"""Several workers of one arena: with ARENA_REDIS_URL their rate limits are one limit (Redis at 127.0.0.1:6379),
without it each process counts alone; every accepted connection gets TCP_NODELAY, even on a listening socket
whose `proto` is 0 (how uvicorn's worker processes receive it), and `arena serve --workers 2` answers a second
keep-alive request on a socket with TCP_NODELAY set (read from the worker process itself)."""

import asyncio
import http.client
import os
import secrets
import socket

import httpx
import pytest

from arena.app import create_app
from arena.web.nodelay import set_nodelay
from tests.conftest import serve
from tests.support.nodes import CannotInspect, Node, children, connection_option, free_port

REDIS = "redis://127.0.0.1:6379/0"


def _successes(urls: list[str], attempts: int) -> int:
    """POST matchups with one voter session alternately to each worker; how many were allowed."""
    clients = [httpx.Client(base_url=u, timeout=30) for u in urls]
    ok = 0
    try:
        first = clients[0].post("/api/v1/matchups", json={"modality": "text_to_image"})
        assert first.status_code == 200, first.text
        ok += 1
        for c in clients[1:]:
            c.cookies = first.cookies
        for k in range(1, attempts):
            r = clients[k % len(clients)].post("/api/v1/matchups", json={"modality": "text_to_image"})
            assert r.status_code in (200, 429), r.text
            ok += r.status_code == 200
    finally:
        for c in clients:
            c.close()
    return ok


@pytest.mark.parametrize("shared", [True, False])
def test_a_voter_alternating_between_two_workers_meets_one_limit_only_with_redis(settings, world, shared):
    # 3 votes a minute: matchups at 6 a minute with a burst of 2, refilling one token per 10 s.
    settings = settings.model_copy(
        update={
            "session_votes_per_minute": 3,
            "secret_key": secrets.token_hex(16),  # a fresh Redis namespace for this test
            "redis_url": REDIS if shared else "",
        }
    )
    with serve(create_app(settings, engine=world)) as one, serve(create_app(settings, engine=world)) as two:
        allowed = _successes([one, two], attempts=8)
    if shared:
        assert allowed in (2, 3)  # one burst of 2 (a third only if 10 s passed during the run)
    else:
        assert allowed in (4, 5)  # each worker grants its own burst of 2


def test_operator_lockout_is_shared_through_redis(settings, world):
    settings = settings.model_copy(
        update={
            "operator_token_attempts_per_minute": 2,
            "secret_key": secrets.token_hex(16),
            "redis_url": REDIS,
        }
    )
    bad = {"Authorization": "Bearer wrong"}
    with serve(create_app(settings, engine=world)) as one, serve(create_app(settings, engine=world)) as two:
        codes = [
            httpx.get(f"{url}/api/v1/admin/audit", headers=bad).status_code for url in (one, two, one, two)
        ]
    assert codes[:2] == [401, 401] and codes[2:] == [429, 429]


def test_an_unreachable_redis_falls_back_to_per_process_limits(settings, world):
    settings = settings.model_copy(
        update={"session_votes_per_minute": 3, "redis_url": "redis://127.0.0.1:1/0"}  # nothing listens
    )
    with serve(create_app(settings, engine=world)) as one:
        assert _successes([one], attempts=4) in (2, 3)  # still limited, by this process


def test_accepted_connections_get_tcp_nodelay_even_when_the_listening_socket_has_proto_zero():
    async def scenario() -> tuple[int, int]:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        shared = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0, fileno=listener.detach())
        seen: list[tuple[int, int]] = []

        class Probe(asyncio.Protocol):
            def connection_made(self, transport):
                sock = transport.get_extra_info("socket")
                before = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
                set_nodelay(transport)
                seen.append((before, sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)))
                transport.close()

        loop = asyncio.get_running_loop()
        server = await loop.create_server(Probe, sock=shared)
        port = shared.getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await reader.read()
        writer.close()
        server.close()
        await server.wait_closed()
        return seen[0]

    before, after = asyncio.run(scenario())
    assert after == 1, f"TCP_NODELAY was {before} before and {after} after"


def test_arena_serve_with_two_workers_answers_keep_alive_requests_on_a_tcp_nodelay_socket(tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}",
        "ARENA_MEDIA_DIR": str(tmp_path / "media"),
        "ARENA_SECRET_KEY": secrets.token_hex(16),
        "ARENA_SCHEDULER_ENABLED": "false",
        "ARENA_LOG_LEVEL": "warning",
        "ARENA_PORT": str(port),
    }
    node = Node.start(env, tmp_path / "serve.log", "--workers", "2")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        for _ in range(2):  # the second request on one connection is the one Nagle's algorithm held back
            conn.request("GET", "/healthz")
            response = conn.getresponse()
            response.read()
            assert response.status == 200
        workers = children(node.pid)
        try:
            found = connection_option(
                workers, conn.sock.getsockname()[1], socket.IPPROTO_TCP, socket.TCP_NODELAY
            )
        except CannotInspect as exc:
            pytest.skip(f"cannot read another process's socket here ({exc})")
    finally:
        conn.close()
        node.stop()
    assert found is not None, "no worker process holds the connection"
    pid, nodelay = found
    assert pid in workers and pid != node.pid  # answered by a worker, not by the supervisor
    assert nodelay, "the worker's socket for this keep-alive connection has TCP_NODELAY off"
