"""Regression tests for the attacker's findings over real HTTP on both databases: labelling by bytes, image
URLs after the vote, bodies without limit, NUL bytes and huge ids, missing security headers, and metrics."""

import hashlib
import io
import re
import socket
from datetime import timedelta

import httpx
import numpy as np
import pytest
from PIL import Image

from arena.media.variants import png_length
from arena.voting import pow as proof


@pytest.fixture
def voter(live_world):
    with httpx.Client(base_url=live_world, timeout=30) as client:
        yield client


def _matchup(client):
    response = client.post("/api/v1/matchups", json={"modality": "text_to_image"})
    assert response.status_code == 200, response.text
    return response.json()


def _vote(client, m, choice="left"):
    nonce = proof.solve(m["challenge"], m["difficulty"])
    return client.post("/api/v1/votes", json={"matchup_id": m["id"], "choice": choice, "nonce": nonce})


def test_each_serve_is_new_bytes_of_one_fixed_size_and_looks_the_same(voter):
    m = _matchup(voter)
    url = m["images"]["left"]
    first, second = voter.get(url), voter.get(url)
    assert first.status_code == second.status_code == 200
    assert first.content != second.content
    assert hashlib.sha256(first.content).digest() != hashlib.sha256(second.content).digest()
    assert len(first.content) == len(second.content) == png_length(1024)
    a = np.asarray(Image.open(io.BytesIO(first.content)).convert("RGB"), dtype=np.int16)
    b = np.asarray(Image.open(io.BytesIO(second.content)).convert("RGB"), dtype=np.int16)
    assert a.shape == b.shape == (1024, 1024, 3)
    assert 0 < np.abs(a - b).mean() < 0.05 and np.abs(a - b).max() <= 2  # different, imperceptibly
    other = voter.get(m["images"]["right"])
    assert len(other.content) == png_length(1024)  # every model's image has the same length
    small = voter.get(url, params={"size": 512})
    assert len(small.content) == png_length(512) and Image.open(io.BytesIO(small.content)).size == (512, 512)


@pytest.mark.parametrize("size", ["300", "1025", "big", "-1"])
def test_an_image_size_outside_the_classes_is_a_422(voter, size):
    m = _matchup(voter)
    answer = voter.get(m["images"]["left"], params={"size": size})
    assert answer.status_code == 422 and "detail" in answer.json()


def test_image_urls_die_with_the_vote_and_with_expiry(voter, frozen):
    m = _matchup(voter)
    for url in m["images"].values():
        assert voter.get(url).status_code == 200
    assert _vote(voter, m).status_code == 200
    assert [voter.get(url).status_code for url in m["images"].values()] == [404, 404]
    late = _matchup(voter)
    frozen.advance(timedelta(hours=1))
    assert [voter.get(url).status_code for url in late["images"].values()] == [404, 404]


@pytest.mark.parametrize("path", ["/api/v1/votes", "/api/v1/matchups", "/api/v1/admin/jobs/snapshot/runs"])
def test_oversized_bodies_are_refused_before_parsing_chunked_or_not(voter, path):
    big = b'{"matchup_id": "' + b"a" * 100_000 + b'", "choice": "left"}'
    declared = voter.post(path, content=big, headers={"content-type": "application/json"})
    assert declared.status_code == 413 and "larger than" in declared.json()["detail"]

    def chunks():
        for _ in range(40):
            yield b" " * 4096

    chunked = voter.post(path, content=chunks(), headers={"content-type": "application/json"})
    assert chunked.status_code == 413
    # A declared 1 GB body is refused at once, without the server waiting for (or reading) the bytes.
    host, port = voter.base_url.host, voter.base_url.port
    with socket.create_connection((host, port), timeout=10) as raw:
        raw.sendall(
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000000000\r\n\r\n{}".encode()
        )
        assert raw.recv(64).startswith(b"HTTP/1.1 413")


@pytest.mark.parametrize(
    "path",
    [
        "/leaderboard/reference/abc%00",
        "/img/" + "a" * 20 + "%00",
        "/media/%00" + "a" * 31,
        "/models/x%00y",
        "/api/v1/leaderboard?board=overall%00",
    ],
)
def test_nul_bytes_in_path_or_query_are_a_400(voter, path):
    response = voter.get(path)
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


def test_nul_in_a_body_field_is_a_4xx_on_both_databases(voter):
    _matchup(voter)  # a session
    response = voter.post("/api/v1/votes", json={"matchup_id": "abc\u0000defgh", "choice": "left"})
    assert 400 <= response.status_code < 500, response.text


@pytest.mark.parametrize(
    "path",
    ["/api/v1/admin/runs/{n}", "/api/v1/retirement/reports/{n}", "/api/v1/retirement/reports/{n}/apply"],
)
def test_ids_beyond_the_id_columns_are_a_422(voter, path):
    headers = {"Authorization": "Bearer test-operator-token"}
    for n in (2**31, 2**63, 2**64 + 5, -(2**63) - 1, 0):
        url = path.format(n=n)
        response = (
            voter.post(url, headers=headers) if url.endswith("apply") else voter.get(url, headers=headers)
        )
        assert response.status_code == 422, (url, response.text)
        assert response.json()["detail"] == "invalid request"


def test_every_page_carries_the_security_headers(voter):
    for path in ("/", "/leaderboard", "/methodology", "/api/v1/health", "/static/css/arena.css", "/nope"):
        response = voter.get(path)
        csp = response.headers.get("content-security-policy", "")
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
        assert "unsafe-eval" not in csp and "script-src 'self' 'unsafe-inline'" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] in {"same-origin", "no-referrer"}
        assert response.headers["x-frame-options"] == "DENY"
    html = voter.get("/").text
    assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", html)  # no inline script


def test_metrics_count_requests_matchups_and_votes_by_reason(voter):
    def scrape():
        text = voter.get("/metrics", headers={"Authorization": "Bearer test-operator-token"}).text
        values = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                values[name] = float(value)
        return values

    before = scrape()
    m = _matchup(voter)
    assert _vote(voter, m).status_code == 200  # unfetched images and instant: filtered
    after = scrape()

    def delta(name):
        return after.get(name, 0.0) - before.get(name, 0.0)

    assert delta('arena_matchups_served_total{modality="text_to_image"}') == 1
    assert delta('arena_votes_total{outcome="filtered",reason="min_time"}') == 1
    assert delta('arena_http_requests_total{method="POST",route="/api/v1/votes",status="200"}') == 1
    assert delta('arena_http_request_duration_seconds_count{method="POST",route="/api/v1/matchups"}') == 1
    response = voter.get("/api/v1/health")
    assert re.fullmatch(r"[0-9a-f]{16}", response.headers["x-request-id"])
    echoed = voter.get("/api/v1/health", headers={"X-Request-ID": "trace-12345678"})
    assert echoed.headers["x-request-id"] == "trace-12345678"
