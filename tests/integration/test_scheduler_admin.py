"""The admin page and its JSON routes over real HTTP on both databases: sign-in with the operator token,
CSRF and same-origin checks on every form, queued runs with their progress, bearer-token API."""

import re
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import select

from arena.app import create_app
from arena.db.tables import JobRun
from arena.ops import job_runs as jobruns
from tests.conftest import serve
from tests.fakes.scheduling import sandbox_registry, timing_world

TOKEN = "test-operator-token"


@pytest.fixture
def site(settings, engine) -> Iterator[tuple[httpx.Client, object]]:
    world = timing_world(engine, sandbox_registry({"sandbox-a": (20, 30), "sandbox-b": (40, 60)}))
    with serve(create_app(settings, engine=world)) as url, httpx.Client(base_url=url, timeout=10) as client:
        yield client, world


def sign_in(client):
    response = client.post("/admin/login", data={"token": TOKEN})
    assert response.status_code == 303
    page = client.get("/admin")
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def test_the_admin_page_asks_for_the_token_and_sets_a_strict_httponly_cookie(site):
    client, _ = site
    page = client.get("/admin")
    assert page.status_code == 200 and 'type="password"' in page.text and "Run now" not in page.text
    wrong = client.post("/admin/login", data={"token": "guess"})
    assert (
        wrong.status_code == 401
        and "not a valid operator token" in wrong.text
        and "set-cookie" not in wrong.headers
    )
    right = client.post("/admin/login", data={"token": TOKEN})
    cookie = right.headers["set-cookie"]
    assert (
        right.status_code == 303
        and "HttpOnly" in cookie
        and "SameSite=strict" in cookie.replace("Strict", "strict")
    )
    assert TOKEN not in cookie
    page = client.get("/admin")
    assert "Run now" in page.text and "No scheduler is running" in page.text
    for job in jobruns.JOBS:
        assert f'data-job="{job}"' in page.text
    assert page.headers["cache-control"] == "no-store"


def test_an_operator_queues_a_timing_run_for_one_model_and_follows_it(site):
    client, world = site
    csrf = sign_in(client)
    response = client.post("/admin/jobs/timing_run/run", data={"csrf": csrf, "model": "sandbox-b"})
    assert response.status_code == 303
    run_id = int(re.search(r"queued=(\d+)", response.headers["location"]).group(1))
    run = client.get(f"/api/v1/admin/runs/{run_id}").json()
    assert run["outcome"] == "queued" and run["details"]["params"] == {"model": "sandbox-b"}
    page = client.get(f"/admin?queued={run_id}")
    assert f'id="run-{run_id}"' in page.text and 'data-outcome="queued"' in page.text
    with world.connect() as conn:
        assert conn.execute(select(JobRun.outcome)).scalars().all() == ["queued"]


def test_forms_without_the_csrf_token_or_from_another_site_are_refused(site):
    client, world = site
    csrf = sign_in(client)
    assert client.post("/admin/jobs/rating_snapshot/run", data={}).status_code == 403
    assert client.post("/admin/jobs/rating_snapshot/run", data={"csrf": "0" * 64}).status_code == 403
    cross = client.post(
        "/admin/jobs/rating_snapshot/run", data={"csrf": csrf}, headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert cross.status_code == 403
    other_origin = client.post(
        "/admin/jobs/rating_snapshot/run", data={"csrf": csrf}, headers={"Origin": "http://evil.example"}
    )
    assert other_origin.status_code == 403
    assert (
        client.post(
            "/admin/login", data={"token": TOKEN}, headers={"Sec-Fetch-Site": "cross-site"}
        ).status_code
        == 403
    )
    client.cookies.clear()
    assert client.post("/admin/jobs/rating_snapshot/run", data={"csrf": csrf}).status_code == 401
    with world.connect() as conn:
        assert conn.execute(select(JobRun.id)).all() == []


def test_signing_out_removes_the_cookie(site):
    client, _ = site
    csrf = sign_in(client)
    assert client.post("/admin/logout", data={"csrf": csrf}).status_code == 303
    assert 'type="password"' in client.get("/admin").text


def test_the_json_api_takes_the_bearer_token(site):
    client, _ = site
    assert client.get("/api/v1/admin/jobs").status_code == 401
    assert client.post("/api/v1/admin/jobs/timing_run/runs", json={}).status_code == 401
    auth = {"Authorization": f"Bearer {TOKEN}"}
    queued = client.post("/api/v1/admin/jobs/timing_run/runs", json={"model": "sandbox-a"}, headers=auth)
    assert queued.status_code == 202 and queued.json()["outcome"] == "queued"
    assert client.post("/api/v1/admin/jobs/rating_snapshot/runs", headers=auth).status_code == 202
    assert (
        client.post("/api/v1/admin/jobs/timing_run/runs", json={"model": "nope"}, headers=auth).status_code
        == 422
    )
    assert client.post("/api/v1/admin/jobs/nope/runs", headers=auth).status_code == 404
    overview = client.get("/api/v1/admin/jobs", headers=auth).json()
    assert [j["job"] for j in overview["jobs"]] == list(jobruns.JOBS)
    assert overview["scheduler"] is None
    timing = next(j for j in overview["jobs"] if j["job"] == "timing_run")
    assert timing["queued"] == 1 and timing["last"] is None
    assert client.get(queued.json()["url"], headers=auth).json()["job"] == "timing_run"


def test_without_an_operator_token_the_admin_page_is_disabled(settings, engine):
    world = timing_world(engine, "")
    closed = settings.model_copy(update={"operator_token": ""})
    with serve(create_app(closed, engine=world)) as url:
        page = httpx.get(url + "/admin")
        api = httpx.get(url + "/api/v1/admin/jobs", headers={"Authorization": "Bearer x"})
    assert page.status_code == 403 and "ARENA_OPERATOR_TOKEN" in page.text
    assert api.status_code == 403
