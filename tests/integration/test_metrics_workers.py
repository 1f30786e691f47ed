"""`arena serve --workers 2` as a real subprocess: every `/metrics` scrape, whichever worker answers it, counts the
requests of both workers (prometheus-client's multiprocess mode), and a stale metrics file of an earlier server is
wiped at start. One server start, ~50 requests: a few seconds."""

import os
import re
import secrets
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.support.nodes import Node, free_port

REQUESTS = 40


def _total(text: str, metric: str, route: str) -> float:
    """Sum of `metric` over every label set with this route."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith(metric + "{") and f'route="{route}"' in line:
            total += float(line.rpartition(" ")[2])
    return total


def test_every_scrape_counts_the_requests_of_both_workers(tmp_path):
    port = free_port()
    shared = tmp_path / "metrics"
    shared.mkdir()
    (shared / "counter_1.db").write_bytes(b"")  # left by an earlier server: must not survive the start
    token = secrets.token_hex(16)
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}",
        "ARENA_MEDIA_DIR": str(tmp_path / "media"),
        "ARENA_SECRET_KEY": secrets.token_hex(16),
        "ARENA_SCHEDULER_ENABLED": "false",
        "ARENA_LOG_LEVEL": "warning",
        "ARENA_PORT": str(port),
        "ARENA_METRICS_TOKEN": token,
        "PROMETHEUS_MULTIPROC_DIR": str(shared),
    }
    node = Node.start(env, tmp_path / "serve.log", "--workers", "2")
    try:

        def one(_: int) -> int:
            with httpx.Client(timeout=30) as client:  # a new connection each: the kernel spreads them
                return client.get(f"{node.url}/api/v1/health").status_code

        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(one, range(REQUESTS)))
        assert len(codes) == REQUESTS
        scrapes = []
        for _ in range(4):  # new connections: the scrapes land on either worker
            with httpx.Client(timeout=30) as client:
                response = client.get(f"{node.url}/metrics", headers={"Authorization": f"Bearer {token}"})
            assert response.status_code == 200, response.text
            scrapes.append(response.text)
        writers = {m.group(1) for f in shared.iterdir() if (m := re.fullmatch(r"counter_(\d+)\.db", f.name))}
    finally:
        node.stop()
    for text in scrapes:
        assert _total(text, "arena_http_requests_total", "/api/v1/health") == REQUESTS
        assert _total(text, "arena_http_request_duration_seconds_count", "/api/v1/health") == REQUESTS
        assert 'arena_build_info{version="' in text
    assert "1" not in writers  # the stale file was wiped at start
    assert len(writers) >= 2, f"only {writers} wrote counters: the requests did not reach both workers"
