"""Schemathesis against the live app on both databases: every check (server errors, status codes and bodies
conforming to the OpenAPI document, negative data rejected, ...) over every documented operation, in the
examples, coverage, fuzzing and stateful (links) phases. It must find nothing."""

import re
import subprocess
import sys
from pathlib import Path

import httpx

MAX_EXAMPLES = 15


def test_schemathesis_finds_no_server_error_or_schema_violation(live_world):
    # A voter session, so vote requests get past the session check into the matchup lookup.
    with httpx.Client(base_url=live_world) as client:
        client.post("/api/v1/matchups", json={"modality": "text_to_image"})
        cookie = f"arena_sid={client.cookies['arena_sid']}"
    command = [
        str(Path(sys.executable).parent / "st"),
        "run",
        f"{live_world}/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        "12",
        "--header",
        "Authorization: Bearer test-operator-token",
        "--header",
        f"Cookie: {cookie}",
        "--request-timeout",
        "30",
        "--no-color",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1500)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", report)
    assert counts and int(counts[1]) == int(counts[2]) > 300, report[-3000:]
