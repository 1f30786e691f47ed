"""The operator APIs answer what their OpenAPI document says (found by the schema fuzzer, kept here as plain
regressions): a 405 names every method of the path, audit days are real YYYY-MM-DD days, a model change
takes only the values its field allows, a refused prompt import names each bad line in `errors`, and
operator names and roles are checked by the schema."""

from __future__ import annotations

import json

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import Model, Prompt
from tests.conftest import serve

AUTH = {"Authorization": "Bearer test-operator-token"}


@pytest.fixture
def api(settings, world):
    with serve(create_app(settings, engine=world)) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client, world


def test_method_not_allowed_names_every_method_of_the_path(api):
    client, _ = api
    for path, methods in [
        ("/api/v1/admin/models/reload", "GET, POST"),
        ("/api/v1/admin/operators", "GET, POST"),
    ]:
        answer = client.delete(path, headers=AUTH)
        assert answer.status_code == 405 and answer.headers["allow"] == methods
    answer = client.put("/api/v1/votes", headers=AUTH)
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"


@pytest.mark.parametrize("day", ["0", "2026-02-30", "1700000000", "2026-1-5"])
def test_audit_days_must_be_calendar_days(api, day):
    client, _ = api
    answer = client.get("/api/v1/admin/audit", params={"until": day}, headers=AUTH)
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["loc"] == ["query", "until"]


def test_audit_filters_accept_days_and_export_is_json_lines(api):
    client, _ = api
    assert client.post(
        "/api/v1/admin/models/model-0", json={"field": "active", "value": False}, headers=AUTH
    ).is_success
    rows = client.get(
        "/api/v1/admin/audit", params={"since": "2000-01-01", "source": "web"}, headers=AUTH
    ).json()
    assert [r["action"] for r in rows][:1] == ["models.set_active"]
    export = client.get("/api/v1/admin/audit/export", params={"action": "models."}, headers=AUTH)
    assert export.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in export.text.splitlines()]
    assert lines and all(line["action"].startswith("models.") for line in lines)
    assert client.get("/api/v1/admin/audit", params={"until": "1999-12-31"}, headers=AUTH).json() == []


@pytest.mark.parametrize(
    "body",
    [
        {"field": "active", "value": "false"},
        {"field": "active", "value": 0},
        {"field": "cohort", "value": True},
        {"field": "endpoint_kind", "value": "distilled"},
        {"field": "", "value": True},
    ],
)
def test_a_model_change_takes_only_its_fields_values(api, body):
    client, world = api
    answer = client.post("/api/v1/admin/models/model-1", json=body, headers=AUTH)
    assert answer.status_code == 422 and answer.json()["errors"]
    with Session(world) as session:
        model = session.get(Model, "model-1")
        assert model.active and model.cohort == "current" and model.endpoint_kind == "standard"


def test_a_refused_import_names_each_line_and_imports_nothing(api):
    client, world = api
    with Session(world) as session:
        before = len(session.exec(select(Prompt.id)).all())
    lines = "\n".join(['{"text": "a lighthouse at dusk"}', "not json", '{"text": "x", "use_case": "nope"}'])
    answer = client.post("/api/v1/admin/prompts/import", json={"lines": lines}, headers=AUTH)
    assert answer.status_code == 422
    body = answer.json()
    assert body["imported"] == 0 and isinstance(body["detail"], str)
    assert {e["loc"][-1] for e in body["errors"]} >= {2, 3}
    with Session(world) as session:
        assert len(session.exec(select(Prompt.id)).all()) == before
    bad_batch = client.post(
        "/api/v1/admin/prompts/import", json={"lines": "", "batch": "2026-1"}, headers=AUTH
    )
    assert bad_batch.status_code == 422 and bad_batch.json()["errors"][0]["loc"] == ["body", "batch"]


def test_operator_names_and_roles_are_checked_by_the_schema(api):
    client, _ = api
    for body in [{"name": ""}, {"name": "Bad Name"}, {"name": "ok", "role": "root"}]:
        answer = client.post("/api/v1/admin/operators", json=body, headers=AUTH)
        assert answer.status_code == 422 and answer.json()["errors"], body
    assert client.post("/api/v1/admin/operators", json={"name": "bootstrap"}, headers=AUTH).status_code == 409
    made = client.post("/api/v1/admin/operators", json={"name": "nina", "role": "viewer"}, headers=AUTH)
    assert made.status_code == 201 and made.json()["token"].startswith("arena_")
