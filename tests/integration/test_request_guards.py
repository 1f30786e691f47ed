"""Request guards over real HTTP on both databases: a lone UTF-16 surrogate in any JSON body is a JSON 422 (it
was a plain-text 500 on some operator routes), and the prompt import takes its documented 2 MiB while every
other route keeps the global body limit (the global 64 KiB used to cut the import)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import Prompt
from arena.web.console.prompts import MAX_UPLOAD_BYTES
from tests.conftest import serve

LONE = "\ud800"


@pytest.fixture
def site(settings, initialized) -> Iterator[tuple[str, dict[str, str]]]:
    with Session(initialized) as session:
        prompt_id = session.exec(select(Prompt.id).where(Prompt.retired_at.is_(None))).first()  # type: ignore[union-attr]
    values = {"prompt_id": prompt_id, "action": "retire", "job": "timing_run", "report_id": "1"}
    values |= {"slug": "flux-1-schnell", "name": "someone"}
    with serve(create_app(settings, engine=initialized)) as url:
        yield url, values


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _surrogate_body(spec: dict[str, Any], schema: dict[str, Any]) -> str:
    """A JSON body setting every property the route's schema names (each variant's) to a lone surrogate."""
    schema = _resolve(spec, schema)
    names: list[str] = []
    for variant in schema.get("oneOf", [schema]):
        names += [n for n in _resolve(spec, variant).get("properties", {}) if n not in names]
    return json.dumps({n: LONE for n in names} if names else LONE)  # ensure_ascii: the escape "\ud800"


def _json_routes(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            content = (op.get("requestBody") or {}).get("content", {})
            if "application/json" in content:
                out.append((method, path, content["application/json"]["schema"]))
    return out


def test_a_lone_surrogate_in_any_json_body_is_a_json_422_with_a_message(site, settings):
    url, values = site
    auth = {"Authorization": f"Bearer {settings.operator_token}", "Content-Type": "application/json"}
    with httpx.Client(base_url=url, timeout=30) as client:
        spec = client.get("/openapi.json").json()
        routes = _json_routes(spec)
        assert len(routes) >= 9  # votes, matchups and the operator routes that take JSON
        problems = []
        for method, path, schema in routes:
            filled = re.sub(r"\{([^}]+)\}", lambda m: values[m.group(1)], path)
            body = _surrogate_body(spec, schema)
            assert "\\ud800" in body
            try:
                answer = client.request(method, filled, content=body.encode(), headers=auth)
            except httpx.TransportError as exc:  # an unhandled error in the app can reset the connection
                problems.append(f"{method} {path}: {exc!r}")
                continue
            kind = answer.headers.get("content-type", "")
            if not (
                answer.status_code in (400, 422)
                and kind.startswith("application/json")
                and "surrogate" in answer.json()["detail"]
            ):
                problems.append(f"{method} {path}: {answer.status_code} {kind} {answer.text[:60]}")
        assert not problems, "\n".join(problems)
        # surrogates inside the prompt cards of an import (JSON lines in a JSON string) are refused by line
        card = {"id": "surrogate-01", "modality": "text_to_image", "use_case": "animation_gaming"}
        card |= {"capability": "reasoning", "styles": ["pixel_art"]}
        card["text"] = f"Pixel art icon of a potion bottle {LONE} in a dark inventory slot."
        refused = client.post("/api/v1/admin/prompts/import", json={"lines": json.dumps(card)}, headers=auth)
        assert refused.status_code == 422 and "surrogate" in refused.json()["errors"][0]["msg"]
        # a valid surrogate pair is one character (an emoji): accepted
        prompt = f"/api/v1/admin/prompts/{values['prompt_id']}/retire"
        paired = client.post(prompt, content=b'{"reason": "duplicate \\ud83d\\ude00"}', headers=auth)
        assert paired.status_code == 200, paired.text


def _padded_card(total: int) -> str:
    """JSON lines of `total` characters: one valid new prompt card, then blank lines (skipped by the import)."""
    card = {"id": "big-upload-01", "modality": "text_to_image", "use_case": "animation_gaming"}
    card |= {"capability": "reasoning", "styles": ["pixel_art"]}
    card["text"] = "Pixel art icon of a brass compass on a velvet cloth, drawn for an inventory screen."
    line = json.dumps(card) + "\n"
    return line + " " * (total - len(line) - 1) + "\n"


def test_the_prompt_import_takes_its_documented_2_mib_and_other_routes_keep_the_global_limit(site, settings):
    url, values = site
    auth = {"Authorization": f"Bearer {settings.operator_token}"}
    lines = _padded_card(MAX_UPLOAD_BYTES - 1024)
    assert len(lines) > 30 * settings.max_body_bytes
    with httpx.Client(base_url=url, timeout=60) as client:
        imported = client.post("/api/v1/admin/prompts/import", json={"lines": lines}, headers=auth)
        assert imported.status_code == 200, imported.text[:200]
        assert imported.json()["imported"] == 1
        too_long = client.post(
            "/api/v1/admin/prompts/import", json={"lines": lines + " " * 2048}, headers=auth
        )
        assert too_long.status_code == 422  # over 2 MiB: the route's own limit, with its message
        assert too_long.json()["errors"][0]["loc"] == ["body", "lines"]
        huge = client.post(
            "/api/v1/admin/prompts/import", content=b"x" * (8 * MAX_UPLOAD_BYTES), headers=auth
        )
        assert huge.status_code == 413  # still bounded before parsing
        # any other route keeps ARENA_MAX_BODY_BYTES
        reason = "x" * (settings.max_body_bytes + 1)
        other = client.post(
            f"/api/v1/admin/prompts/{values['prompt_id']}/retire", json={"reason": reason}, headers=auth
        )
        assert other.status_code == 413 and "larger than" in other.json()["detail"]
        # the console's upload form takes the same 2 MiB file
        page = client.post("/admin/login", data={"token": settings.operator_token})
        assert page.status_code == 303
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/admin/prompts").text).group(1)
        upload = _padded_card(MAX_UPLOAD_BYTES - 1024).replace("big-upload-01", "big-upload-02")
        upload = upload.replace("brass compass", "silver pocket watch")
        form = client.post(
            "/admin/prompts/import",
            data={"csrf": csrf},
            files={"file": ("cards.jsonl", upload.encode(), "application/x-ndjson")},
        )
        assert form.status_code == 303 and "Imported%201" in form.headers["location"], form.text[:300]
