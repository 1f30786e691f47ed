"""`arena serve` as a real process: X-Forwarded-For from a loopback client is not believed unless the peer is in
ARENA_TRUSTED_PROXIES (uvicorn trusts 127.0.0.1 by default), and its logs are JSON lines with a request id and
without client addresses, cookies or the operator token."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

TOKEN = "serve-process-operator-token"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def served(settings, initialized, tmp_path):
    """Start `arena serve` on the initialised test database; yield (base URL, environment, log path)."""

    def start(**extra: str):
        port = _free_port()
        env = {
            **os.environ,
            "ARENA_DATABASE_URL": settings.database_url,
            "ARENA_MEDIA_DIR": str(settings.media_dir),
            "ARENA_MODELS_FILE": str(settings.models_file),
            "ARENA_OPERATOR_TOKEN": TOKEN,
            "ARENA_SCHEDULER_ENABLED": "false",
            "ARENA_PORT": str(port),
            **extra,
        }
        log = tmp_path / f"serve-{port}.log"
        handle = open(log, "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "arena"), "serve"],
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
        )
        started.append((proc, handle))
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    return url, log
            except httpx.TransportError:
                time.sleep(0.2)
            if proc.poll() is not None:
                raise RuntimeError(log.read_text())
        raise RuntimeError("arena serve did not start")

    started: list = []
    yield start
    for proc, handle in started:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        handle.close()


def _guesses(url: str, n: int, spoof: bool) -> list[int]:
    codes = []
    with httpx.Client(base_url=url, timeout=10) as client:
        for i in range(n):
            headers = {"Authorization": "Bearer wrong-guess"}
            if spoof:
                headers["X-Forwarded-For"] = f"203.0.113.{i % 250 + 1}"
            codes.append(client.get("/api/v1/admin/audit", headers=headers).status_code)
    return codes


def test_forwarded_for_from_an_untrusted_peer_does_not_reset_the_token_guess_limit(served):
    url, _ = served()
    codes = _guesses(url, 14, spoof=True)
    assert codes[:10] == [401] * 10 and set(codes[10:]) == {429}


def test_forwarded_for_is_believed_from_a_configured_proxy(served):
    url, _ = served(ARENA_TRUSTED_PROXIES="127.0.0.1")
    codes = _guesses(url, 14, spoof=True)
    assert codes == [401] * 14  # each hop address has its own budget behind a trusted proxy


def test_logs_are_json_lines_with_a_request_id_and_no_addresses_or_secrets(served):
    url, log = served()
    with httpx.Client(base_url=url, timeout=10) as client:
        client.post("/api/v1/matchups", json={"modality": "text_to_image"})
        client.get("/api/v1/admin/audit", headers={"Authorization": f"Bearer {TOKEN}"})
        client.get("/leaderboard?token=" + TOKEN)
        rid = client.get("/api/v1/health").headers["x-request-id"]
    time.sleep(0.5)
    lines = [json.loads(line) for line in Path(log).read_text().splitlines() if line.strip()]
    access = [e for e in lines if e.get("logger") == "arena.access"]
    assert any(e.get("request_id") == rid and e["route"] == "/api/v1/health" for e in access)
    assert {"/api/v1/matchups", "/api/v1/admin/audit", "/leaderboard"} <= {e["route"] for e in access}
    text = Path(log).read_text()
    assert TOKEN not in text and "127.0.0.1" not in text.replace(url, "")
    assert "arena_sid" not in text
