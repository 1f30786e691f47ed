"""Schemathesis against the live app on both databases: every check (server errors, status codes and bodies
conforming to the OpenAPI document, negative data rejected, ...) over every documented operation, in the
examples, coverage, fuzzing and stateful (links) phases. It must find nothing."""

import re
import subprocess
import sys
from pathlib import Path

import httpx

MAX_EXAMPLES = 15


# A prompt import is refused (422, every bad line named) for what no schema can say: labels outside the
# taxonomy, near-duplicates of pool prompts, lines that are not prompt cards. Everything else must accept
# every schema-valid request. A matchup request answers 503 "no matchups yet" (documented) when operators
# have left fewer than two models of a modality active, which the stateful phase does through the models
# API; every other operation must never answer a 5xx.
CONFIG = """
[[operations]]
include-path = "/api/v1/admin/prompts/import"
checks.positive_data_acceptance.expected-statuses = [200, 401, 403, 404, 409, 422, 429]

[[operations]]
include-path = "/api/v1/matchups"
include-method = "POST"
checks.not_a_server_error.expected-statuses = ["2XX", "3XX", "4XX", 503]
"""


def test_schemathesis_finds_no_server_error_or_schema_violation(live_world, tmp_path):
    # A voter session, so vote requests get past the session check into the matchup lookup.
    with httpx.Client(base_url=live_world) as client:
        client.post("/api/v1/matchups", json={"modality": "text_to_image"})
        cookie = f"arena_sid={client.cookies['arena_sid']}"
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG, encoding="utf-8")
    command = [
        str(Path(sys.executable).parent / "st"),
        "--config-file",
        str(config),
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
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    assert selected and selected[1] == selected[2], report[-3000:]  # every documented operation is fuzzed
    counts = re.search(r"(\d+) generated, (\d+) passed", report)
    assert counts and int(counts[1]) == int(counts[2]) > 300, report[-3000:]
